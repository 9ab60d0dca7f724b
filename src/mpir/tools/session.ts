import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import type { Pvar } from './pvar-registry.js';

/** MPI_T_PVAR_ALL_HANDLES: start, stop or reset every handle of a session at once. */
export const PVAR_ALL_HANDLES: unique symbol = Symbol('MPI.T.PVAR_ALL_HANDLES');

function fail(errorClass: number, message: string): never {
  throw new MPIException(errorClass, message);
}

/**
 * A handle on one performance variable within a session (MPI_T_pvar_handle). A counter's handle
 * starts stopped and reads what the counter gained while the handle was started, since its
 * allocation or its last reset or write: each session sees its own values, and the counter
 * itself is never touched. A level or high-water mark is continuous: it reads the value now,
 * and cannot be started, stopped, reset or written.
 */
export class PvarHandle {
  /** Elements of the variable (one: every variable of tsmpi is one number per process). */
  readonly count = 1;
  private running = false;
  /** The counter's value when the handle was last started, reset or written while running. */
  private base = 0;
  /** What the handle gained before its last start (or what write() set). */
  private kept = 0;
  /** @internal */
  freed = false;
  /** The session the handle belongs to. */
  readonly session: PvarSession;
  /** @internal */
  readonly pvar: Pvar;

  /** @internal Made by MPI.T.pvar_handle_alloc. */
  constructor(session: PvarSession, pvar: Pvar) {
    this.session = session;
    this.pvar = pvar;
  }

  /** The variable's index (MPI.T.pvar_get_info). */
  get index(): number {
    return this.pvar.index;
  }

  /** Whether the handle counts now (continuous variables always do). */
  get started(): boolean {
    return this.pvar.continuous || this.running;
  }

  /** @internal */
  start(call: string): void {
    if (this.pvar.continuous) fail(ErrorClass.ERR_T_PVAR_NO_STARTSTOP, `${call}: ${this.pvar.name} is continuous (a ${this.pvar.varClass}): it cannot be started`);
    if (this.running) return;
    this.base = this.pvar.read();
    this.running = true;
  }

  /** @internal */
  stop(call: string): void {
    if (this.pvar.continuous) fail(ErrorClass.ERR_T_PVAR_NO_STARTSTOP, `${call}: ${this.pvar.name} is continuous (a ${this.pvar.varClass}): it cannot be stopped`);
    if (!this.running) return;
    this.kept += this.pvar.read() - this.base;
    this.running = false;
  }

  /** @internal */
  read(): number {
    if (this.pvar.continuous) return this.pvar.read();
    return this.running ? this.kept + this.pvar.read() - this.base : this.kept;
  }

  /** @internal */
  write(call: string, value: number): void {
    if (this.pvar.readonly) fail(ErrorClass.ERR_T_PVAR_NO_WRITE, `${call}: ${this.pvar.name} is a ${this.pvar.varClass}: it cannot be written or reset`);
    this.kept = value;
    if (this.running) this.base = this.pvar.read();
  }
}

/**
 * A performance-variable session (MPI_T_pvar_session): an isolated set of handles, so that
 * tools measuring at once do not disturb each other.
 */
export class PvarSession {
  /** @internal */
  readonly handles = new Set<PvarHandle>();
  /** @internal */
  freed = false;

  /** @internal The session, or an MPI.Exception naming the call when it was freed or is not a session. */
  static check(call: string, session: unknown): PvarSession {
    if (!(session instanceof PvarSession)) fail(ErrorClass.ERR_T_INVALID_SESSION, `${call}: session is not an MPI.T session (MPI.T.pvar_session_create)`);
    if (session.freed) fail(ErrorClass.ERR_T_INVALID_SESSION, `${call}: session was freed`);
    return session;
  }

  /** @internal A handle of this session, or an MPI.Exception (freed, of another session, not a handle). */
  handle(call: string, handle: unknown): PvarHandle {
    if (!(handle instanceof PvarHandle)) fail(ErrorClass.ERR_T_INVALID_HANDLE, `${call}: handle is not a performance-variable handle (MPI.T.pvar_handle_alloc)`);
    if (handle.freed) fail(ErrorClass.ERR_T_INVALID_HANDLE, `${call}: handle of ${handle.pvar.name} was freed`);
    if (handle.session !== this) fail(ErrorClass.ERR_T_INVALID_HANDLE, `${call}: handle of ${handle.pvar.name} belongs to another session`);
    return handle;
  }

  /** @internal The handles `target` names: one, or every one (PVAR_ALL_HANDLES) that `fits`. */
  targets(call: string, target: PvarHandle | typeof PVAR_ALL_HANDLES, fits: (h: PvarHandle) => boolean): PvarHandle[] {
    if (target === PVAR_ALL_HANDLES) return [...this.handles].filter(fits);
    return [this.handle(call, target)];
  }
}
