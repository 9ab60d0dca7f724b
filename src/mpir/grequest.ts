import { KIND_GREQ, type CoreRequest } from '../mpid/index.js';
import { ANY_SOURCE, ANY_TAG } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { Request } from './request.js';
import { runtime } from './runtime.js';
import { Status } from './status.js';
import { describe, raise } from './validate.js';

/**
 * Generalized requests (MPI-4 §13.2), mpi4py's names: MPI.Grequest.Start(query_fn, free_fn,
 * cancel_fn, args, kwargs) gives an active request that the program completes itself with
 * Complete() (or complete(value), whose value wait() and await then yield; null otherwise).
 * Wait/Test and their all/any/some forms, Get_status, Cancel, Free and await treat it as any
 * other request: the completing call runs query_fn(status, ...args) to fill the status (preset
 * to MPI.ANY_SOURCE, MPI.ANY_TAG, no error, 0 bytes, not cancelled), then free_fn(...args);
 * Cancel runs cancel_fn(completed, ...args); a request freed before it is complete runs free_fn
 * when Complete comes. mpi4py's keyword arguments, when given, reach each callback as one last
 * object argument.
 *
 * A blocking wait that only this request's Complete could end raises MPI.ERR_REQUEST instead of
 * hanging: tsmpi runs one thread (MPI.THREAD_FUNNELED) and calls no program code while it
 * blocks, so nothing could call Complete. Await the request instead, and complete it from a
 * timer, an I/O callback or a promise.
 *
 * The request stands on an engine request of kind GREQ, as Isendrecv's and the schedules' do,
 * so the completion calls need nothing of their own; Complete marks it done and rings the rank's
 * own doorbell, which ends the sleep of an `await` waiting for it.
 */

export type GrequestQueryFn = (status: Status, ...args: any[]) => void;
export type GrequestFreeFn = (...args: any[]) => void;
export type GrequestCancelFn = (completed: boolean, ...args: any[]) => void;

export class Grequest extends Request<unknown> {
  /** The engine request, kept after Free drops the handle's `core`: Complete still needs it. */
  private readonly greq: CoreRequest;
  private readonly args: readonly unknown[];
  private value: unknown = null;
  private completed = false;

  private constructor(core: CoreRequest, private readonly queryFn: GrequestQueryFn | null,
                      private readonly freeFn: GrequestFreeFn | null, private readonly cancelFn: GrequestCancelFn | null,
                      args: readonly unknown[]) {
    super(core, null);
    this.greq = core;
    this.args = args;
  }

  /** Starts a request the program completes itself (Complete/complete); callbacks may be null. */
  static Start(query_fn: GrequestQueryFn | null = null, free_fn: GrequestFreeFn | null = null,
               cancel_fn: GrequestCancelFn | null = null, args: readonly unknown[] | null = null,
               kwargs: Record<string, unknown> | null = null): Grequest {
    const call = 'MPI.Grequest.Start';
    const world = runtime.requireRunning(call);
    for (const [name, fn] of [['query_fn', query_fn], ['free_fn', free_fn], ['cancel_fn', cancel_fn]] as const) {
      if (fn !== null && fn !== undefined && typeof fn !== 'function') {
        raise(call, ErrorClass.ERR_ARG, `${name} must be a function or null, got ${describe(fn)}`);
      }
    }
    if (args !== null && args !== undefined && !Array.isArray(args)) {
      raise(call, ErrorClass.ERR_ARG, `args must be an array or null, got ${describe(args)}`);
    }
    if (kwargs !== null && kwargs !== undefined && (typeof kwargs !== 'object' || Array.isArray(kwargs))) {
      raise(call, ErrorClass.ERR_ARG, `kwargs must be an object or null, got ${describe(kwargs)}`);
    }
    const all = [...(args ?? [])];
    if (kwargs !== null && kwargs !== undefined) all.push({ ...kwargs });
    return new Grequest(world.engine.requests.acquire(KIND_GREQ), query_fn ?? null, free_fn ?? null, cancel_fn ?? null, all);
  }

  /** Tells MPI the operation is complete: a wait on the request returns now. Once only. */
  Complete(): void {
    const call = 'Grequest.Complete';
    const world = runtime.requireRunning(call);
    if (this.completed) raise(call, ErrorClass.ERR_REQUEST, 'the generalized request is already complete (Complete was called before)');
    this.completed = true;
    const freed = this.greq.userFreed;
    world.engine.complete(this.greq);
    // Freed before it was complete: nothing will wait for it, so its free_fn runs now.
    if (freed) this.callback(call, this.freeFn, []);
    else world.progress.wakeAwaiters();
  }

  /** mpi4py's complete: Complete, with the value wait() and await yield. */
  complete(value: unknown = null): void {
    if (!this.completed) this.value = value;
    this.Complete();
  }

  override Wait(status?: Status): true {
    if (status !== undefined) this.checkStatusArg('Wait', status);
    if (this.core !== null && !this.completed) this.neverCompletes('Request.Wait');
    this.finish(status, 'Wait');
    return true;
  }

  override Get_status(status?: Status): boolean {
    if (status !== undefined) this.checkStatusArg('Get_status', status);
    if (this.core === null) return super.Get_status(status);
    if (!this.completed) return false;
    // MPI_Request_get_status asks query_fn too; the request stays active.
    this.query('Request.Get_status', status ?? new Status());
    return true;
  }

  override Cancel(): void {
    if (this.core === null) return;
    runtime.requireRunning('Request.Cancel');
    this.callback('Request.Cancel', this.cancelFn, [this.completed]);
  }

  /** @internal Only Complete can end it, and the program cannot call that while this rank blocks. */
  protected override completesWhileBlocked(): boolean {
    return this.completed;
  }

  /** @internal query_fn fills the status, then free_fn runs and the request is inactive. */
  protected override finish(status: Status | undefined, call: string): void {
    const core = this.core;
    if (core === null) {
      super.finish(status, call);
      return;
    }
    const name = `Request.${call}`;
    let failure: unknown = null;
    try {
      this.query(name, status ?? new Status());
    } catch (e) {
      failure = e;
    }
    this.core = null;
    runtime.requireRunning(name).engine.free(core);
    try {
      this.callback(name, this.freeFn, []);
    } catch (e) {
      failure ??= e;
    }
    if (failure !== null) throw failure;
  }

  /** Frees the handle; a request already complete runs its free_fn now, one not yet complete at Complete. */
  override Free(): void {
    const complete = this.core !== null && this.completed;
    super.Free();
    if (complete) this.callback('Request.Free', this.freeFn, []);
  }

  protected override yielded(): unknown {
    return this.value;
  }

  private query(call: string, status: Status): void {
    status.source = ANY_SOURCE;
    status.tag = ANY_TAG;
    status.error = 0;
    status.count = 0;
    status.cancelled = false;
    this.callback(call, this.queryFn, [status]);
    // Without a cancel_fn nothing can have cancelled it (mpi4py clears the flag too).
    if (this.cancelFn === null) status.cancelled = false;
  }

  /** Runs one of the program's callbacks; what it throws reaches the caller as an MPI.Exception. */
  private callback(call: string, fn: ((...a: any[]) => void) | null, first: readonly unknown[]): void {
    if (fn === null) return;
    try {
      fn(...first, ...this.args);
    } catch (e) {
      if (e instanceof MPIException) throw e;
      throw new MPIException(ErrorClass.ERR_OTHER, `${call}: the generalized request's callback raised: ${String(e)}`, { cause: e });
    }
  }
}
