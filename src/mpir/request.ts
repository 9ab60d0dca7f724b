import { STATE_DONE, type CoreRequest, type Unexpected } from '../mpid/index.js';
import { dropUnpack, finishUnpack } from './buffer.js';
import { PROC_NULL, ANY_TAG, UNDEFINED } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { runtime } from './runtime.js';
import { Status } from './status.js';
import type { Comm } from './comm.js';

/**
 * A non-blocking operation, mpi4py-style: Wait/Test and their all/any/some forms, Cancel,
 * Free; also a PromiseLike<Status>, so `await comm.Irecv(buf, 0)` completes without blocking
 * the event loop. After completion the request is inactive (MPI's REQUEST_NULL state).
 */
export class Request implements PromiseLike<Status> {
  /** The engine's request while active; null once completed and released (inactive). */
  core: CoreRequest | null;
  /** Completed with nothing to receive (MPI.PROC_NULL), or a stand-in for a finished operation. */
  protected procNull = false;

  constructor(core: CoreRequest | null, protected readonly comm: Comm | null) {
    this.core = core;
    this.procNull = core === null && comm !== null;
  }

  /** An already-complete request with an empty status (communication with MPI.PROC_NULL). */
  static procNull(comm: Comm): Request {
    return new Request(null, comm);
  }

  /** Whether the request is active (not yet waited for, or started and not completed). */
  get active(): boolean {
    return this.core !== null || this.procNull;
  }

  /** Blocks until the operation completes; fills `status`. */
  Wait(status?: Status): true {
    if (this.core !== null) runtime.requireRunning('Request.Wait').progress.wait(this.core);
    this.finish(status, 'Wait');
    return true;
  }

  /** Completes the operation if it is done; returns whether it was. */
  Test(status?: Status): boolean {
    if (this.core !== null) {
      const world = runtime.requireRunning('Request.Test');
      if (this.core.state !== STATE_DONE) world.engine.progress();
      if (this.core.state !== STATE_DONE) return false;
    }
    this.finish(status, 'Test');
    return true;
  }

  /** Whether the request is complete, without completing it (status is filled if given). */
  Get_status(status?: Status): boolean {
    if (this.core === null) {
      if (status) fillEmpty(status);
      return true;
    }
    if (this.core.state !== STATE_DONE) runtime.requireRunning('Request.Get_status').engine.progress();
    if (this.core.state !== STATE_DONE) return false;
    if (status) fillStatus(status, this.core);
    return true;
  }

  /** Asks for cancellation; Wait still has to complete the request (Is_cancelled tells). */
  Cancel(): void {
    if (this.core !== null) runtime.requireRunning('Request.Cancel').engine.cancel(this.core);
  }

  /** Drops the request; an unfinished operation still completes in the background. */
  Free(): void {
    if (this.core !== null) {
      dropUnpack(this.core);
      runtime.requireRunning('Request.Free').engine.free(this.core);
    }
    this.core = null;
    this.procNull = false;
  }

  then<T1 = Status, T2 = never>(onFulfilled?: ((s: Status) => T1 | PromiseLike<T1>) | null,
                               onRejected?: ((e: unknown) => T2 | PromiseLike<T2>) | null): Promise<T1 | T2> {
    return this.completion().then(onFulfilled, onRejected);
  }

  /** Resolves with the status once complete; the request is then inactive. */
  protected async completion(): Promise<Status> {
    if (this.core !== null) await runtime.requireRunning('Request (await)').progress.whenDone(this.core);
    const status = new Status();
    this.finish(status, 'await');
    return status;
  }

  /** Turns a completed engine request into a status (or an error) and releases it. */
  protected finish(status: Status | undefined, call: string): void {
    const core = this.core;
    if (core === null) {
      if (status) fillEmpty(status);
      this.procNull = false;
      return;
    }
    if (status) fillStatus(status, core);
    finishUnpack(core);
    this.onComplete(core);
    const truncated = core.truncated;
    const count = core.statusCount;
    const incoming = core.incomingBytes;
    const source = core.statusSource;
    const tag = core.statusTag;
    runtime.requireRunning('Request').engine.free(core);
    this.core = null;
    this.onInactive();
    if (truncated) {
      const message = `message truncated: the message from rank ${source} with tag ${tag} is ${incoming} bytes, ` +
        `the receive buffer holds ${count}`;
      if (this.comm) this.comm.fail(`Request.${call}`, ErrorClass.ERR_TRUNCATE, message);
      throw new MPIException(ErrorClass.ERR_TRUNCATE, `Request.${call}: ${message}`);
    }
  }

  /** Hook: the engine request completed and is about to be released (object receives read it). */
  protected onComplete(_core: CoreRequest): void {}

  /** Hook for persistent requests. */
  protected onInactive(): void {}

  static Waitall(requests: readonly Request[], statuses?: Status[]): true {
    let error: unknown = null;
    for (let i = 0; i < requests.length; i++) {
      try {
        requests[i]!.Wait(statuses?.[i]);
      } catch (e) {
        error ??= e;
      }
    }
    if (error !== null) throw error;
    return true;
  }

  static Testall(requests: readonly Request[], statuses?: Status[]): boolean {
    const world = runtime.requireRunning('Request.Testall');
    world.engine.progress();
    for (const r of requests) if (r.core !== null && r.core.state !== STATE_DONE) return false;
    return Request.Waitall(requests, statuses);
  }

  /** Waits for one active request; returns its index, or MPI.UNDEFINED if none is active. */
  static Waitany(requests: readonly Request[], status?: Status): number {
    const world = runtime.requireRunning('Request.Waitany');
    for (;;) {
      let active = false;
      for (let i = 0; i < requests.length; i++) {
        const r = requests[i]!;
        if (!r.active) continue;
        active = true;
        if (r.core === null || r.core.state === STATE_DONE) {
          r.Wait(status);
          return i;
        }
      }
      if (!active) {
        if (status) fillEmpty(status);
        return UNDEFINED;
      }
      world.progress.step();
    }
  }

  static Testany(requests: readonly Request[], status?: Status): [number, boolean] {
    runtime.requireRunning('Request.Testany').engine.progress();
    let active = false;
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      if (!r.active) continue;
      active = true;
      if (r.core === null || r.core.state === STATE_DONE) {
        r.Wait(status);
        return [i, true];
      }
    }
    return [UNDEFINED, !active];
  }

  /** Waits until at least one active request completes; returns the indices completed. */
  static Waitsome(requests: readonly Request[], statuses?: Status[]): number[] | null {
    const world = runtime.requireRunning('Request.Waitsome');
    for (;;) {
      const done = Request.Testsome(requests, statuses);
      if (done === null || done.length > 0) return done;
      world.progress.step();
    }
  }

  static Testsome(requests: readonly Request[], statuses?: Status[]): number[] | null {
    runtime.requireRunning('Request.Testsome').engine.progress();
    const done: number[] = [];
    let active = false;
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      if (!r.active) continue;
      active = true;
      if (r.core === null || r.core.state === STATE_DONE) {
        r.Wait(statuses?.[done.length]);
        done.push(i);
      }
    }
    return active ? done : null;
  }
}

/**
 * A persistent request (Send_init/Ssend_init/Recv_init): inactive until Start(), and
 * inactive again (not freed) after each completion.
 */
export class Prequest extends Request {
  constructor(comm: Comm, private readonly starter: () => CoreRequest | null) {
    super(null, comm);
    this.procNull = false;
  }

  Start(): void {
    if (this.active) {
      throw new MPIException(ErrorClass.ERR_REQUEST, 'Prequest.Start: the request is already active; complete it (Wait/Test) before starting it again');
    }
    const core = this.starter();
    if (core === null) this.procNull = true;
    else this.core = core;
  }

  static Startall(requests: readonly Prequest[]): void {
    for (const r of requests) r.Start();
  }
}

/** A message taken off the queue by Mprobe/Improbe, to be received with Recv or Irecv. */
export class Message {
  constructor(private entry: Unexpected | null, private readonly comm: Comm, readonly procNull = false) {}

  /** @internal Hands the matched message to a receive, once. */
  take(call: string): Unexpected | null {
    if (this.procNull) return null;
    if (this.entry === null) throw new MPIException(ErrorClass.ERR_REQUEST, `Message.${call}: the message was already received`);
    const e = this.entry;
    this.entry = null;
    return e;
  }

  Recv(buf: unknown, status?: Status): void {
    this.comm.receiveMatched(this, buf, status, 'Recv');
  }

  Irecv(buf: unknown): Request {
    return this.comm.receiveMatchedNonblocking(this, buf);
  }
}

export function fillStatus(status: Status, core: CoreRequest): void {
  status.source = core.statusSource;
  status.tag = core.statusTag;
  status.count = core.statusCount;
  status.cancelled = core.cancelled;
  status.error = core.truncated ? ErrorClass.ERR_TRUNCATE : 0;
}

export function fillEmpty(status: Status): void {
  status.source = PROC_NULL;
  status.tag = ANY_TAG;
  status.count = 0;
  status.cancelled = false;
  status.error = 0;
}
