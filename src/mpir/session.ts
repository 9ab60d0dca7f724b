import { type AttachedBuffer, ownBuffer } from './bsend.js';
import type { AttachArg } from './buffer-automatic.js';
import { describe } from './validate.js';
import { Errhandler, type ErrhandlerFunction } from './errhandler.js';
import { drainBeforeStop } from './comm-manage.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { Group } from './group.js';
import { INFO_NULL, Info, checkInfo, getHints, setHints } from './info.js';
import { belongsTo } from './lineage.js';
import { Request } from './request.js';
import { refuseWorkerThread, threadLevelName, THREAD_PROVIDED } from './threads.js';
import { runtime } from './runtime.js';
import type { InfoArg } from './types.js';

/** The process sets every session offers: all processes of the job, and the calling one. */
const PSET_WORLD = 'mpi://WORLD';
const PSET_SELF = 'mpi://SELF';
const PSETS = [PSET_WORLD, PSET_SELF] as const;

/**
 * MPI-4's Sessions model, mpi4py-style: `MPI.Session.Init()` gives a session without MPI.Init;
 * its process sets (`mpi://WORLD`, `mpi://SELF`) become groups (Create_group), and groups
 * become communicators with `MPI.Intracomm.Create_from_group`. Sessions and the World Model
 * share one MPI runtime per process (runtime.ts `hold`/`release`): the first to start starts it,
 * the last Finalize ends it; after that this process cannot start MPI again.
 */
export class Session {
  private live = true;
  private errhandler: Errhandler;

  private constructor(errhandler: Errhandler) {
    this.errhandler = errhandler;
  }

  /** Starts a session (and MPI, if it is not running yet). `errhandler` defaults to MPI.ERRORS_ARE_FATAL. */
  static Init(info: InfoArg = INFO_NULL, errhandler: Errhandler | null = null): Session {
    refuseWorkerThread('MPI.Session.Init');
    const badInfo = checkInfo(info);
    if (badInfo !== null) throw new MPIException(ErrorClass.ERR_INFO, `MPI.Session.Init: ${badInfo}`);
    const handler = errhandler ?? Errhandler.ERRORS_ARE_FATAL;
    const refusal = Errhandler.refusal(handler, 'session');
    if (refusal !== null) throw new MPIException(ErrorClass.ERR_ARG, `MPI.Session.Init: errhandler: ${refusal}`);
    runtime.hold('MPI.Session.Init');
    const session = new Session(handler);
    setHints(session, info);
    return session;
  }

  /** Ends the session; the last holder of MPI in this process (session or World Model) ends MPI. */
  Finalize(): void {
    this.check('Finalize');
    this.live = false;
    runtime.release('MPI.Session.Finalize', drainBeforeStop);
  }

  /** How many process sets the session offers (2: mpi://WORLD and mpi://SELF). */
  Get_num_psets(info: InfoArg = INFO_NULL): number {
    this.check('Get_num_psets');
    this.checkInfoArg('Get_num_psets', info);
    return PSETS.length;
  }

  /** The name of process set `n` (0 .. Get_num_psets() - 1). */
  Get_nth_pset(n: number, info: InfoArg = INFO_NULL): string {
    this.check('Get_nth_pset');
    this.checkInfoArg('Get_nth_pset', info);
    if (!Number.isInteger(n) || n < 0 || n >= PSETS.length) {
      this.fail('Get_nth_pset', ErrorClass.ERR_ARG, `n ${describe(n)} is not a process set index (expected 0..${PSETS.length - 1})`);
    }
    return PSETS[n]!;
  }

  /** An MPI.Info describing a process set: `mpi_size`, the number of its processes. */
  Get_pset_info(pset_name: string): Info {
    this.check('Get_pset_info');
    const members = this.members('Get_pset_info', pset_name);
    const info = Info.Create();
    info.Set('mpi_size', String(members.length));
    return info;
  }

  /** The group of a process set's processes (world ranks in ascending order). */
  Create_group(pset_name: string): Group {
    this.check('Create_group');
    return belongsTo(Group.ofWorldRanks(this.members('Create_group', pset_name), runtime.requireRunning('MPI.Session.Create_group').rank), this);
  }

  /** A new MPI.Info with the session's hints and `thread_level`, the thread support level it has. */
  Get_info(): Info {
    this.check('Get_info');
    const info = getHints(this);
    info.Set('thread_level', threadLevelName(THREAD_PROVIDED));
    return info;
  }

  Get_errhandler(): Errhandler {
    return this.errhandler;
  }

  Set_errhandler(handler: Errhandler): void {
    this.check('Set_errhandler');
    const refusal = Errhandler.refusal(handler, 'session');
    if (refusal !== null) this.fail('Set_errhandler', ErrorClass.ERR_ARG, refusal);
    this.errhandler = handler;
  }

  /** A handler for sessions that calls `fn(session, errorcode)`; the failing call then throws. */
  static Create_errhandler(fn: ErrhandlerFunction<Session>): Errhandler {
    return Errhandler.user('session', 'Session.Create_errhandler', fn);
  }

  /** Runs this session's handler for `errorcode`. */
  Call_errhandler(errorcode: number): void {
    this.check('Call_errhandler');
    this.errhandler.call(this, 'MPI.Session.Call_errhandler', errorcode, runtime.requireRunning('MPI.Session.Call_errhandler').rank);
  }

  /**
   * MPI-4.1: a buffer (or MPI.BUFFER_AUTOMATIC) for the buffered sends of the communicators made
   * from this session's groups that have none of their own.
   */
  Attach_buffer(buf: AttachArg): void {
    this.buffered('Attach_buffer', (b) => b.attach(buf));
  }

  /** Waits until the messages buffered in the session's buffer have left, then returns it (null if none). */
  Detach_buffer(): AttachArg | null {
    return this.buffered('Detach_buffer', (b) => b.detach('MPI.Session.Detach_buffer'));
  }

  /** Waits until the messages buffered in the session's buffer have left; it stays attached. */
  Flush_buffer(): void {
    this.buffered('Flush_buffer', (b) => b.flush('MPI.Session.Flush_buffer'));
  }

  /** A request that completes once the messages buffered so far in the session's buffer have left. */
  Iflush_buffer(): Request {
    return this.buffered('Iflush_buffer', (b) => new Request(b.iflush('MPI.Session.Iflush_buffer'), null));
  }

  private buffered<T>(call: string, fn: (buffer: AttachedBuffer) => T): T {
    this.check(call);
    try {
      return fn(ownBuffer(this));
    } catch (e) {
      if (e instanceof MPIException) this.fail(call, e.error_class, e.message);
      throw e;
    }
  }

  /** @internal Group.Create_from_session_pset: the group, errors named after that call. */
  groupFor(call: string, pset: unknown): Group {
    if (!this.live) throw new MPIException(ErrorClass.ERR_SESSION, `${call}: the session has been finalized`);
    return belongsTo(Group.ofWorldRanks(this.members(call, pset, call), runtime.requireRunning(call).rank), this);
  }

  private members(call: string, pset: unknown, fullName = `MPI.Session.${call}`): Int32Array {
    const world = runtime.requireRunning(fullName);
    if (pset === PSET_SELF) return Int32Array.of(world.rank);
    if (pset === PSET_WORLD) {
      const all = new Int32Array(world.size);
      for (let r = 0; r < world.size; r++) all[r] = r;
      return all;
    }
    return this.raise(fullName, ErrorClass.ERR_ARG, `pset_name ${describe(pset)} is no process set of this session ` +
      `(expected one of ${PSETS.join(', ')})`);
  }

  private checkInfoArg(call: string, info: unknown): void {
    const bad = checkInfo(info);
    if (bad !== null) this.fail(call, ErrorClass.ERR_INFO, bad);
  }

  private check(call: string): void {
    if (!this.live) {
      throw new MPIException(ErrorClass.ERR_SESSION, `MPI.Session.${call}: the session has been finalized`);
    }
  }

  private fail(call: string, errorClass: number, message: string): never {
    return this.raise(`MPI.Session.${call}`, errorClass, message);
  }

  private raise(fullName: string, errorClass: number, message: string): never {
    const rank = runtime.phase === 'running' ? runtime.requireRunning(fullName).rank : 0;
    return this.errhandler.raise(this, new MPIException(errorClass, `${fullName}: ${message}`), rank);
  }
}

declare module './group.js' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Group {
    /** MPI-4: the group of a session's process set, as `session.Create_group(pset_name)`. */
    let Create_from_session_pset: (session: Session, pset_name: string) => Group;
  }
}

Object.defineProperty(Group, 'Create_from_session_pset', {
  value: (session: unknown, pset_name: string): Group => {
    const call = 'MPI.Group.Create_from_session_pset';
    if (!(session instanceof Session)) throw new MPIException(ErrorClass.ERR_SESSION, `${call}: session must be an MPI.Session, got ${describe(session)}`);
    return session.groupFor(call, pset_name);
  },
  writable: true,
  configurable: true,
});
