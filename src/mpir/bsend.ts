import { KIND_GREQ, STATE_DONE, type CompletionListener, type CoreRequest } from '../mpid/index.js';
import { BUFFER_AUTOMATIC, type AttachArg } from './buffer-automatic.js';
import { BSEND_OVERHEAD } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { sessionOf } from './lineage.js';
import { runtime } from './runtime.js';
import { describe } from './validate.js';

/**
 * A buffer for buffered sends: MPI.Attach_buffer's, one communicator's or one session's
 * (comm.Attach_buffer, session.Attach_buffer: MPI-4.1). Bsend copies the message and accounts its size plus BSEND_OVERHEAD against the
 * attached bytes until the copy has been delivered, so a program that would overflow the buffer
 * gets MPI.ERR_BUFFER as MPI requires. Flush waits for the copies to leave; Iflush gives a
 * request (a generalized engine request) that completes when they have.
 *
 * Errors are MPIExceptions without a call's name; the caller adds it (or raises them through its
 * communicator's handler, which does).
 */
export class AttachedBuffer implements CompletionListener {
  private attached: AttachArg | null = null;
  private capacity = 0;
  private used = 0;
  /** Sends whose copies are in flight: the bytes each holds and its number (in the order sent). */
  private readonly inFlight = new Map<CoreRequest, { charge: number; seq: number }>();
  private sent = 0;
  /** Iflush requests, each done once every send numbered up to its `upTo` has left. */
  private flushes: { request: CoreRequest; upTo: number }[] = [];

  /** @param attachCall the call that attaches this buffer, named in "no buffer is attached". */
  constructor(private readonly attachCall: string) {}

  get isAttached(): boolean {
    return this.attached !== null;
  }

  attach(buf: unknown): void {
    if (!(buf === BUFFER_AUTOMATIC || ArrayBuffer.isView(buf) || buf instanceof ArrayBuffer || buf instanceof SharedArrayBuffer)) {
      throw new MPIException(ErrorClass.ERR_BUFFER, `buf must be a TypedArray, Buffer, ArrayBuffer or MPI.BUFFER_AUTOMATIC, ` +
        `got ${describe(buf)}`);
    }
    if (this.attached !== null) throw new MPIException(ErrorClass.ERR_BUFFER, 'a buffer is already attached; detach it first');
    this.attached = buf as AttachArg;
    this.capacity = buf === BUFFER_AUTOMATIC ? Infinity : buf.byteLength;
    this.used = 0;
  }

  /** Waits until every buffered send has left, then returns the buffer (null when none was attached). */
  detach(call: string): AttachArg | null {
    this.flush(call);
    const b = this.attached;
    this.attached = null;
    this.capacity = 0;
    return b;
  }

  /** Waits until every buffered send has left; the buffer stays attached. */
  flush(call: string): void {
    const world = runtime.requireRunning(call);
    while (this.inFlight.size > 0) world.progress.step();
  }

  /** A request that completes once every send buffered so far has left (at once if none is in flight). */
  iflush(call: string): CoreRequest {
    const r = runtime.requireRunning(call).engine.requests.acquire(KIND_GREQ);
    r.statusSource = -1;  // the empty status of a request that received nothing
    r.statusTag = -1;
    if (this.inFlight.size === 0) r.state = STATE_DONE;
    else this.flushes.push({ request: r, upTo: this.sent });
    return r;
  }

  /** A private copy of `bytes` for a buffered send, charged to this buffer (throws without a call prefix). */
  reserve(bytes: Uint8Array): Uint8Array {
    const need = bytes.length + BSEND_OVERHEAD;
    if (this.attached === null) {
      throw new MPIException(ErrorClass.ERR_BUFFER, `no buffer is attached (call ${this.attachCall} with at least ${need} bytes)`);
    }
    if (this.used + need > this.capacity) {
      throw new MPIException(ErrorClass.ERR_BUFFER, `a message of ${bytes.length} bytes needs ${need} bytes of the ` +
        `attached buffer, ${this.capacity - this.used} of ${this.capacity} are free`);
    }
    this.used += need;
    return bytes.slice();
  }

  /** Follows a started buffered send until it is delivered (at once if it already was). */
  track(core: CoreRequest, bytes: number): void {
    if (core.state === STATE_DONE) {
      this.used -= bytes + BSEND_OVERHEAD;
      runtime.requireRunning('Bsend').engine.free(core);
      return;
    }
    this.inFlight.set(core, { charge: bytes + BSEND_OVERHEAD, seq: ++this.sent });
    core.listener = this;
  }

  requestDone(core: CoreRequest): void {
    this.used -= this.inFlight.get(core)?.charge ?? 0;
    this.inFlight.delete(core);
    const engine = runtime.requireRunning('Bsend').engine;
    engine.free(core);
    if (this.flushes.length === 0) return;
    // The map keeps insertion order, so its first entry is the oldest send still in flight.
    const oldest = this.inFlight.size === 0 ? Infinity : this.inFlight.values().next().value!.seq;
    const waiting: { request: CoreRequest; upTo: number }[] = [];
    for (const f of this.flushes) {
      if (f.upTo >= oldest) {
        waiting.push(f);
        continue;
      }
      engine.complete(f.request);
    }
    this.flushes = waiting;
  }
}

/** MPI.Attach_buffer's buffer: for communicators with none of their own and no session's to use. */
export const processBuffer = new AttachedBuffer('MPI.Attach_buffer or comm.Attach_buffer');

/** Communicators' and sessions' own buffers, made detached on first use. */
const ownBuffers = new WeakMap<object, AttachedBuffer>();

/** The buffer of a communicator or a session. */
export function ownBuffer(owner: object): AttachedBuffer {
  let b = ownBuffers.get(owner);
  if (b === undefined) {
    b = new AttachedBuffer('comm.Attach_buffer, session.Attach_buffer or MPI.Attach_buffer');
    ownBuffers.set(owner, b);
  }
  return b;
}

/**
 * The buffer a buffered send on `comm` uses (MPI-4.1 §3.6): the communicator's, else that of the
 * session it derives from (lineage.ts), else the process's.
 */
export function bufferFor(comm: object): AttachedBuffer {
  const own = ownBuffers.get(comm);
  if (own !== undefined && own.isAttached) return own;
  const session = sessionOf(comm);
  const inherited = session === undefined ? undefined : ownBuffers.get(session);
  return inherited !== undefined && inherited.isAttached ? inherited : processBuffer;
}
