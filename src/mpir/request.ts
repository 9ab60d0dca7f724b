import { nodeV8 } from '../common/node-v8.js';
import { STATE_DONE, type CoreRequest, type Unexpected } from '../mpid/index.js';
import { dropUnpack, finishUnpack } from './buffer.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { runtime } from './runtime.js';
import { Status, statusProblem, statusesProblem } from './status.js';
import type { Comm } from './comm.js';
import type { BufSpec } from './types.js';
import { check, describe, raise } from './validate.js';

/**
 * @internal The text of MPI.ERR_TRUNCATE for a completed receive, blocking (Comm) or not (Request): who
 * sent how much, and what the buffer holds. Read before the engine request is freed.
 */
export function truncationMessage(core: CoreRequest): string {
  return `the message from rank ${core.statusSource} with tag ${core.statusTag} is longer than the receive buffer ` +
    `of ${core.statusCount} bytes (message truncated: ${core.incomingBytes} bytes sent)`;
}

/** What a request of type R yields when complete: a Status, or an object receive's value. */
export type Yield<R> = R extends Request<infer T> ? T : never;

/**
 * A non-blocking operation, mpi4py-style: Wait/Test and their all/any/some forms, Cancel,
 * Free; also a PromiseLike, so `await comm.Irecv(buf, 0)` completes without blocking the event
 * loop. After completion the request is inactive (MPI's REQUEST_NULL state).
 *
 * T is what the completed operation yields, to `await`, wait() and test(): the Status for
 * buffer operations (T = Status, the default), the received value for comm.irecv<T>() (an
 * ObjectRequest<T>).
 */
export class Request<T = Status> implements PromiseLike<T> {
  /** @internal The engine's request while active; null once completed and released (inactive). */
  core: CoreRequest | null;
  /** @internal Completed with nothing to receive (MPI.PROC_NULL), or a stand-in for a finished operation. */
  protected procNull = false;
  /** @internal */
  protected readonly comm: Comm | null;

  /** @internal Requests come from the calls that start operations (Isend, Irecv, Ibcast, Rget, ...). */
  constructor(core: CoreRequest | null, comm: Comm | null) {
    this.comm = comm;
    this.core = core;
    this.procNull = core === null && comm !== null;
  }

  /** @internal An already-complete request with an empty status (communication with MPI.PROC_NULL). */
  static procNull(comm: Comm): Request {
    return new Request(null, comm);
  }

  /** Whether the request is active (not yet waited for, or started and not completed). */
  get active(): boolean {
    return this.core !== null || this.procNull;
  }

  /** Blocks until the operation completes; fills `status`. */
  Wait(status?: Status): true {
    if (status !== undefined) this.checkStatusArg('Wait', status);
    if (this.core !== null) runtime.requireRunning('Request.Wait').progress.wait(this.core);
    this.finish(status, 'Wait');
    return true;
  }

  /** Completes the operation if it is done; returns whether it was. */
  Test(status?: Status): boolean {
    if (status !== undefined) this.checkStatusArg('Test', status);
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
    if (status !== undefined) this.checkStatusArg('Get_status', status);
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

  then<R1 = T, R2 = never>(onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
                           onRejected?: ((reason: any) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.completion().then(onFulfilled, onRejected);
  }

  /**
   * mpi4py's wait: blocks until the operation completes and returns what it yields (the Status,
   * also written to `status` if given; the value for an object receive).
   */
  wait(status?: Status): T {
    if (status !== undefined) this.checkStatusArg('wait', status);
    const s = status ?? new Status();
    this.Wait(s);
    return this.yielded(s);
  }

  /** mpi4py's test: `[true, what it yields]` once complete (as wait), else `[false, undefined]`. */
  test(status?: Status): [done: true, value: T] | [done: false, value: undefined] {
    if (status !== undefined) this.checkStatusArg('test', status);
    const s = status ?? new Status();
    if (!this.Test(s)) return [false, undefined];
    return [true, this.yielded(s)];
  }

  /** Resolves with what the request yields once complete; the request is then inactive. */
  private async completion(): Promise<T> {
    if (this.core !== null) await runtime.requireRunning('Request (await)').progress.whenDone(this.core);
    const status = new Status();
    this.finish(status, 'await');
    return this.yielded(status);
  }

  /**
   * @internal What the completed request yields, given its status: the status itself here (T
   * is Status for every request made by this class); ObjectRequest yields the received value.
   */
  protected yielded(status: Status): T {
    return status as unknown as T;
  }

  /** @internal Turns a completed engine request into a status (or an error) and releases it. */
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
    const truncation = core.truncated ? truncationMessage(core) : null;
    runtime.requireRunning('Request').engine.free(core);
    this.core = null;
    this.onInactive();
    if (truncation !== null) {
      if (this.comm) this.comm.fail(`Request.${call}`, ErrorClass.ERR_TRUNCATE, truncation);
      throw new MPIException(ErrorClass.ERR_TRUNCATE, `Request.${call}: ${truncation}`);
    }
  }

  /** @internal A bad status argument, raised through the request's communicator (thrown when it has none). */
  protected checkStatusArg(call: string, status: unknown): void {
    const bad = statusProblem(status);
    if (bad === null) return;
    if (this.comm) this.comm.fail(`Request.${call}`, ErrorClass.ERR_ARG, bad);
    raise(`Request.${call}`, ErrorClass.ERR_ARG, bad);
  }

  /**
   * @internal Whether progress can complete the request while this rank blocks in a wait: true
   * but for a generalized request the program has not completed (grequest.ts).
   */
  protected completesWhileBlocked(): boolean {
    return true;
  }

  /** @internal A blocking wait that nothing could end: raised instead of hanging. */
  protected neverCompletes(call: string): never {
    raise(call, ErrorClass.ERR_REQUEST, 'the wait would never end: it needs a generalized request that is not complete, ' +
      'and tsmpi runs no program code while a rank blocks, so nothing could call its Complete(); complete it first, ' +
      'or await the request and complete it from a callback');
  }

  /** @internal Raises for a blocking wait on `requests` when no active one can complete while the rank blocks. */
  private static checkCanBlock(call: string, requests: readonly Request<unknown>[]): void {
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      if (r.active && r.completesWhileBlocked()) return;
    }
    for (const r of requests) if (r.active) r.neverCompletes(call);
  }

  /** @internal Hook: the engine request completed and is about to be released (object receives read it). */
  protected onComplete(_core: CoreRequest): void {}

  /** @internal Hook for persistent requests. */
  protected onInactive(): void {}

  /**
   * mpi4py's waitall: waits for every request and returns what each yields, in order (a tuple
   * of the requests' types for a tuple of requests); fills statuses[i] if given.
   */
  static waitall<const R extends readonly Request<unknown>[]>(requests: R, statuses?: Status[]): { -readonly [K in keyof R]: Yield<R[K]> } {
    checkList('Request.waitall', requests, statuses);
    const values: unknown[] = new Array(requests.length);
    let error: unknown = null;
    for (let i = 0; i < requests.length; i++) {
      try {
        values[i] = requests[i]!.wait(statuses?.[i]);
      } catch (e) {
        error ??= e;
      }
    }
    if (error !== null) throw error;
    return values as { -readonly [K in keyof R]: Yield<R[K]> };
  }

  /** mpi4py's testall: `[true, values]` (as waitall) when every request is complete, else `[false, undefined]`. */
  static testall<const R extends readonly Request<unknown>[]>(requests: R, statuses?: Status[]):
    [done: true, values: { -readonly [K in keyof R]: Yield<R[K]> }] | [done: false, values: undefined] {
    checkList('Request.testall', requests, statuses);
    runtime.requireRunning('Request.testall').engine.progress();
    for (const r of requests) if (r.core !== null && r.core.state !== STATE_DONE) return [false, undefined];
    return [true, Request.waitall(requests, statuses)];
  }

  static Waitall(requests: readonly Request<unknown>[], statuses?: Status[]): true {
    checkList('Request.Waitall', requests, statuses);
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

  static Testall(requests: readonly Request<unknown>[], statuses?: Status[]): boolean {
    checkList('Request.Testall', requests, statuses);
    const world = runtime.requireRunning('Request.Testall');
    world.engine.progress();
    for (const r of requests) if (r.core !== null && r.core.state !== STATE_DONE) return false;
    return Request.Waitall(requests, statuses);
  }

  /** Waits for one active request; returns its index, or MPI.UNDEFINED if none is active. */
  static Waitany(requests: readonly Request<unknown>[], status?: Status): number {
    checkList('Request.Waitany', requests, undefined, status);
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
      Request.checkCanBlock('Request.Waitany', requests);
      world.progress.step();
    }
  }

  static Testany(requests: readonly Request<unknown>[], status?: Status): [number, boolean] {
    checkList('Request.Testany', requests, undefined, status);
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

  // mpi4py's lower-case list calls: what the completed requests yield (their Status, or the
  // received value of an object receive) beside the indices.

  /** `[index, what it yields]` of the request Waitany completed (`[MPI.UNDEFINED, undefined]` when none is active). */
  static waitany<T>(requests: readonly Request<T>[], status?: Status): [number, T | undefined] {
    checkList('Request.waitany', requests, undefined, status);
    const s = status ?? new Status();
    const i = Request.Waitany(requests, s);
    return [i, i === UNDEFINED ? undefined : requests[i]!.yielded(s)];
  }

  /** `[index, flag, what it yields]`, as Testany. */
  static testany<T>(requests: readonly Request<T>[], status?: Status): [number, boolean, T | undefined] {
    checkList('Request.testany', requests, undefined, status);
    const s = status ?? new Status();
    const [i, flag] = Request.Testany(requests, s);
    return [i, flag, i === UNDEFINED ? undefined : requests[i]!.yielded(s)];
  }

  /** `[indices, what each yields]` of the requests Waitsome completed (`[null, null]` when none is active). */
  static waitsome<T>(requests: readonly Request<T>[], statuses?: Status[]): [number[] | null, T[] | null] {
    return Request.yieldedBy('Request.waitsome', requests, statuses, Request.Waitsome);
  }

  /** `[indices, what each yields]`, as Testsome. */
  static testsome<T>(requests: readonly Request<T>[], statuses?: Status[]): [number[] | null, T[] | null] {
    return Request.yieldedBy('Request.testsome', requests, statuses, Request.Testsome);
  }

  private static yieldedBy<T>(call: string, requests: readonly Request<T>[], statuses: Status[] | undefined,
                              complete: (r: readonly Request<T>[], s: Status[]) => number[] | null): [number[] | null, T[] | null] {
    checkList(call, requests, statuses);
    const s = statuses ?? requests.map(() => new Status());
    const done = complete(requests, s);
    return done === null ? [null, null] : [done, done.map((i, k) => requests[i]!.yielded(s[k]!))];
  }

  /**
   * MPI-4.1: `[index, true]` of the first active request that is complete, without completing
   * it; `[MPI.UNDEFINED, true]` when none is active, `[MPI.UNDEFINED, false]` when none is done.
   */
  static Get_status_any(requests: readonly Request<unknown>[], status?: Status): [number, boolean] {
    checkList('Request.Get_status_any', requests, undefined, status);
    let active = false;
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      if (!r.active) continue;
      active = true;
      if (r.Get_status(status)) return [i, true];
    }
    if (!active && status) fillEmpty(status);
    return [UNDEFINED, !active];
  }

  /** MPI-4.1: whether every request is complete (or inactive), without completing them. */
  static Get_status_all(requests: readonly Request<unknown>[], statuses?: Status[]): boolean {
    checkList('Request.Get_status_all', requests, statuses);
    let all = true;
    for (let i = 0; i < requests.length; i++) all = requests[i]!.Get_status(statuses?.[i]) && all;
    return all;
  }

  /** MPI-4.1: the indices of the active requests that are complete, without completing them (null: none active). */
  static Get_status_some(requests: readonly Request<unknown>[], statuses?: Status[]): number[] | null {
    checkList('Request.Get_status_some', requests, statuses);
    const done: number[] = [];
    let active = false;
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      if (!r.active) continue;
      active = true;
      if (r.Get_status(statuses?.[done.length])) done.push(i);
    }
    return active ? done : null;
  }

  static get_status_any = Request.Get_status_any;
  static get_status_all = Request.Get_status_all;
  static get_status_some = Request.Get_status_some;

  /** mpi4py's get_status: Get_status. */
  get_status(status?: Status): boolean {
    return this.Get_status(status);
  }

  /** mpi4py's cancel: Cancel. */
  cancel(): void {
    this.Cancel();
  }

  /** Waits until at least one active request completes; returns the indices completed. */
  static Waitsome(requests: readonly Request<unknown>[], statuses?: Status[]): number[] | null {
    checkList('Request.Waitsome', requests, statuses);
    const world = runtime.requireRunning('Request.Waitsome');
    for (;;) {
      const done = Request.Testsome(requests, statuses);
      if (done === null || done.length > 0) return done;
      Request.checkCanBlock('Request.Waitsome', requests);
      world.progress.step();
    }
  }

  static Testsome(requests: readonly Request<unknown>[], statuses?: Status[]): number[] | null {
    checkList('Request.Testsome', requests, statuses);
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
 * A persistent request (Send_init, Recv_init, ..., the collectives' *_init, Psend_init and
 * Precv_init): inactive until Start(), and inactive again (not freed) after each completion;
 * Free ends it for good.
 */
export class Prequest extends Request {
  /** @internal Free was called: Start raises MPI.ERR_REQUEST. */
  protected freed = false;

  /** @internal Persistent requests come from the *_init calls. */
  constructor(comm: Comm, private readonly starter: () => CoreRequest | null, private readonly callName = 'persistent') {
    super(null, comm);
    this.procNull = false;
  }

  /** Starts the operation (MPI.ERR_REQUEST if it is active or freed). */
  Start(): void {
    if (this.freed) {
      throw new MPIException(ErrorClass.ERR_REQUEST, `Prequest.Start: the ${this.callName} request has been freed`);
    }
    if (this.active) {
      throw new MPIException(ErrorClass.ERR_REQUEST, `Prequest.Start: the ${this.callName} request is already active; ` +
        'complete it (Wait/Test) before starting it again');
    }
    const core = this.starter();
    if (core === null) this.procNull = true;
    else this.core = core;
  }

  /** Frees the request (an active point-to-point operation still completes in the background). */
  override Free(): void {
    super.Free();
    this.freed = true;
  }

  /** Starts every request in order (each as Start). */
  static Startall(requests: readonly Prequest[]): void {
    check(requestsProblem(requests, Prequest), 'Prequest.Startall', ErrorClass.ERR_REQUEST);
    for (const r of requests) r.Start();
  }

  /** Partitioned send (Psend_init): marks `partition` ready to be sent (partitioned.ts). */
  Pready(partition: number): void {
    this.notPartitioned('Pready', ['partition', partition]);
  }

  /** Marks partitions partition_low..partition_high (inclusive) ready. */
  Pready_range(partition_low: number, partition_high: number): void {
    this.notPartitioned('Pready_range', ['partition_low', partition_low], ['partition_high', partition_high]);
  }

  /** Marks each partition of the list ready. */
  Pready_list(partitions: ArrayLike<number>): void {
    if (!Array.isArray(partitions) && !ArrayBuffer.isView(partitions)) {
      check(`partitions must be an array of partition numbers, got ${describe(partitions)}`, 'Prequest.Pready_list');
    }
    this.notPartitioned('Pready_list', ...Array.from(partitions as ArrayLike<number>, (k): [string, unknown] => ['partitions', k]));
  }

  /** Partitioned receive (Precv_init): whether `partition` has arrived in the receive buffer. */
  Parrived(partition: number): boolean {
    return this.notPartitioned('Parrived', ['partition', partition]);
  }

  /** @internal The partition calls on a request that is not partitioned: MPI.ERR_REQUEST. */
  protected notPartitioned(call: string, ...args: Array<[name: string, value: unknown]>): never {
    // The arguments are checked first, as on a partitioned request, so a bad one is named.
    for (const [name, k] of args) {
      if (!(Number.isInteger(k) && (k as number) >= 0 && (k as number) <= 0x7fffffff)) {
        check(`${name} ${describe(k)} is not a partition number`, `Prequest.${call}`);
      }
    }
    throw new MPIException(ErrorClass.ERR_REQUEST, `Prequest.${call}: the ${this.callName} request is not a partitioned ` +
      `${call === 'Parrived' ? 'receive (Precv_init)' : 'send (Psend_init)'}`);
  }
}

/** The arguments of the completion calls on lists: the requests (MPI.ERR_REQUEST), their status or statuses (MPI.ERR_ARG). */
function checkList(call: string, requests: unknown, statuses: unknown, status?: unknown): void {
  check(requestsProblem(requests), call, ErrorClass.ERR_REQUEST);
  check(statusesProblem(statuses), call);
  check(statusProblem(status), call);
}

/** A message taken off the queue by Mprobe/Improbe, to be received with Recv or Irecv. */
export class Message {
  /** @internal The message from MPI.PROC_NULL: receives complete at once with an empty status. */
  readonly procNull: boolean;

  /** @internal Messages come from Mprobe and Improbe. */
  constructor(private entry: Unexpected | null, private readonly comm: Comm, procNull = false) {
    this.procNull = procNull;
  }

  /** @internal Hands the matched message to a receive, once. */
  take(call: string): Unexpected | null {
    if (this.procNull) return null;
    if (this.entry === null) throw new MPIException(ErrorClass.ERR_REQUEST, `Message.${call}: the message was already received`);
    const e = this.entry;
    this.entry = null;
    return e;
  }

  Recv(buf: BufSpec, status?: Status): void {
    this.comm.receiveMatched(this, buf, status, 'Recv');
  }

  Irecv(buf: BufSpec): Request {
    return this.comm.receiveMatchedNonblocking(this, buf);
  }

  /** @internal The matched message's length in bytes (0 for the message from MPI.PROC_NULL). */
  get length(): number {
    return this.entry?.len ?? 0;
  }

  /** mpi4py's recv: the value of a message sent by send/isend/ssend and probed by mprobe. */
  recv<T = unknown>(status?: Status): T {
    check(statusProblem(status), 'Message.recv');
    const r = this.irecv<T>();
    r.Wait(status);
    return r.result();
  }

  /** mpi4py's irecv: a request that yields the value (as comm.irecv's). */
  irecv<T = unknown>(): ObjectRequest<T> {
    return this.comm.receiveMatchedObject<T>(this);
  }

  /** `comm.Mprobe(source, tag, status)`, as mpi4py's Message.Probe. */
  static Probe(comm: Comm, source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): Message {
    return Message.commOf('Probe', comm).mprobeAs('Message.Probe', source, tag, status, true)!;
  }

  /** `comm.Improbe(source, tag, status)`: null when nothing matches yet. */
  static Iprobe(comm: Comm, source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): Message | null {
    return Message.commOf('Iprobe', comm).mprobeAs('Message.Iprobe', source, tag, status, false);
  }

  /** The object forms probe the same messages: receive them with recv()/irecv(). */
  static probe = Message.Probe;
  static iprobe = Message.Iprobe;

  private static commOf(call: string, comm: unknown): Comm {
    if (typeof (comm as Comm | null)?.mprobeAs !== 'function') {
      throw new MPIException(ErrorClass.ERR_COMM, `Message.${call}: comm must be an MPI.Comm, got ${describe(comm)}`);
    }
    return comm as Comm;
  }
}

/**
 * comm.irecv's request: a receive of any size whose completion yields the deserialized value
 * (to await, wait() and test(); also result() after Wait or a successful Test).
 */
export class ObjectRequest<T = unknown> extends Request<T> {
  private value: unknown = null;

  /** @internal */
  protected override onComplete(core: CoreRequest): void {
    this.value = core.buf.length === 0 && core.statusSource === PROC_NULL ? null : nodeV8().deserialize(core.buf);
  }

  /** The received value (after Wait or a successful Test). */
  result(): T {
    return this.value as T;
  }

  /** @internal */
  protected override yielded(): T {
    return this.value as T;
  }
}

/** @internal */
export function fillStatus(status: Status, core: CoreRequest): void {
  status.source = core.statusSource;
  status.tag = core.statusTag;
  status.count = core.statusCount;
  status.cancelled = core.cancelled;
  status.error = core.truncated ? ErrorClass.ERR_TRUNCATE : 0;
}

/** @internal */
export function fillEmpty(status: Status): void {
  status.source = PROC_NULL;
  status.tag = ANY_TAG;
  status.count = 0;
  status.cancelled = false;
  status.error = 0;
}

/** A list of requests (of `cls`, MPI.Request or MPI.Prequest): an array of them. */
export function requestsProblem(requests: unknown, cls: abstract new (...args: never[]) => object = Request,
                                name = 'requests'): string | null {
  const what = cls === Request ? 'MPI.Request' : `MPI.${cls.name}`;
  if (!Array.isArray(requests)) return `${name} must be an array of ${what}, got ${describe(requests)}`;
  for (let i = 0; i < requests.length; i++) {
    const r: unknown = requests[i];
    if (!(r instanceof cls)) return `${name}[${i}] must be an ${what}, got ${describe(r)}`;
  }
  return null;
}
