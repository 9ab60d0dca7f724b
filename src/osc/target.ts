import { STATE_DONE, type Request as CoreRequest } from '../mpid/request.js';
import { AtomicViews } from './atomic.js';
import type { AttachedMemory } from './attached.js';
import type { WindowChannel } from './channel.js';
import { kindBytes, type Reducer } from './codes.js';
import { type DirectAccess, isWord, WordStage } from './direct.js';
import type { EpochTracker } from './epoch.js';
import type { LockGrants } from './lock-grants.js';
import type { RemotePut } from './remote-put.js';
import {
  ACC, BATCH, CAS, COMPLETE, FLUSH, GET, GET_ACC, HEADER_BYTES, HEADER_DOUBLES, LOCK, PUT, REMOTE_PUT, UNLOCK,
} from './wire.js';

/**
 * The target's agent (the emulated, gathered and remote-put methods' far end, and the lock
 * grants of policy cpu): a progress hook of the engine that takes every request that arrived
 * on the window's request context and applies it to our part in arrival order, answering on
 * the reply context. A FLUSH answered means every earlier request of that origin is applied
 * (messages do not overtake). It serves without the owner's attention: any progress, in any
 * MPI call of ours, runs it.
 */
export class WindowTarget {
  private request: CoreRequest | null;
  /** The agent's atomic views of shared window memory, by buffer. */
  private readonly views = new Map<ArrayBufferLike, AtomicViews>();
  private readonly word = new WordStage();
  /** The engine's hook. */
  readonly hook = { advance: (): number => this.serve() };

  constructor(
    private readonly channel: WindowChannel,
    /** Our part. */
    private readonly memory: Uint8Array,
    /** Dynamic windows: the memory attached; null for the other flavors. */
    private readonly attached: AttachedMemory | null,
    /** Our part by direct access when origins update it directly too (updates then stay atomic together); else null. */
    private readonly direct: DirectAccess | null,
    private readonly epoch: EpochTracker,
    private readonly grants: LockGrants,
    private readonly remotePut: RemotePut,
    private readonly reducer: Reducer,
    /** Ends the job (an access the program made erroneous: no attached memory there). */
    private readonly fatal: (message: string) => never,
  ) {
    this.request = channel.postAgentReceive();
  }

  /** Applies every request that has arrived, in arrival order; returns how many. */
  private serve(): number {
    let n = 0;
    while (this.request !== null && this.request.state === STATE_DONE) {
      const r = this.request;
      const origin = r.statusSource;
      const kind = r.statusTag;
      const msg = r.buf;
      this.channel.world.engine.free(r);
      this.request = this.channel.postAgentReceive();
      this.apply(origin, kind, msg);
      n++;
    }
    // Requests blocked on a lock held by ranks of our node: look again.
    if (this.grants.pending) n += this.grants.grant();
    return n;
  }

  /** Stops serving (Free): the pending receive is cancelled. */
  stop(): void {
    if (this.request === null) return;
    this.channel.world.engine.cancel(this.request);
    this.channel.world.engine.free(this.request);
    this.request = null;
  }

  private apply(origin: number, kind: number, msg: Uint8Array): void {
    if (kind === BATCH) {
      // Gathered requests: each applied as if it had come alone, in order.
      for (let at = 0; at < msg.length;) {
        const entry = new Float64Array(msg.buffer, msg.byteOffset + at, 2);
        const len = entry[1]!;
        this.apply(origin, entry[0]!, msg.subarray(at + 16, at + 16 + len));
        at += 16 + Math.ceil(len / 8) * 8;
      }
      return;
    }
    const h = new Float64Array(msg.buffer, msg.byteOffset, HEADER_DOUBLES);
    const id = h[0]!;
    const count = h[2]!;
    const elemKind = h[3]!;
    const op = h[4]!;
    const hasData = h[5] === 1;
    const nBlocks = h[6]!;
    const bytes = kind <= CAS ? count * kindBytes(elemKind) : 0;
    let mem = this.memory;
    let offset = h[1]!;
    if (this.attached !== null && kind <= CAS) {
      const span = nBlocks > 0 ? blockSpan(msg, nBlocks) : bytes;
      const region = this.attached.regionAt(offset, span);
      if (region === null) {
        this.fatal(`tsmpi: rank ${this.channel.comm.rank}: MPI.ERR_RMA_RANGE: rank ${origin} accessed [${offset}, ` +
          `${offset + span}) of a dynamic window where no attached memory lies`);
      }
      mem = region.bytes;
      offset -= region.address;
    }
    if (this.direct !== null && (kind === ACC || kind === GET_ACC || kind === CAS)) {
      // Policy cpu, a rank of another node: applied like our node's direct updates (CPU atomics
      // or the mutex), so they stay atomic together.
      const list = nBlocks > 0 ? new Float64Array(msg.slice(HEADER_BYTES, HEADER_BYTES + nBlocks * 16).buffer) : null;
      const result = kind === ACC ? null : new Uint8Array(bytes);
      this.direct.update(this.channel.comm.rank, kind, offset, list, elemKind, op, bytes,
        hasData ? msg.subarray(HEADER_BYTES + nBlocks * 16) : null, result);
      if (result !== null) this.channel.reply(origin, id, result);
      return;
    }
    if (nBlocks > 0) {
      // A derived target type: its blocks, then the packed data.
      const list = new Float64Array(msg.slice(HEADER_BYTES, HEADER_BYTES + nBlocks * 16).buffer);
      const data = msg.subarray(HEADER_BYTES + nBlocks * 16);
      this.applyBlocks(mem, origin, kind, id, offset, list, elemKind, op, hasData ? data : null, bytes);
      return;
    }
    const data = msg.subarray(HEADER_BYTES);
    if (kind <= CAS && kind !== GET && mem.buffer instanceof SharedArrayBuffer && this.applyAtomically(origin, kind, id, mem,
      offset, bytes, count, elemKind, op, hasData ? data : null)) return;
    switch (kind) {
      case PUT:
        mem.set(data.subarray(0, bytes), offset);
        return;
      case ACC:
        this.reducer.reduce(op, elemKind, data.subarray(0, bytes), mem.subarray(offset, offset + bytes), count);
        return;
      case GET:
        if (h[5] === REMOTE_PUT) {
          this.remotePut.serve(origin, id, msg, mem, offset, bytes);
          return;
        }
        // No copy: MPI forbids changing the target memory while a Get of it is in its epoch.
        this.channel.reply(origin, id, mem.subarray(offset, offset + bytes));
        return;
      case GET_ACC:
        this.channel.reply(origin, id, mem.slice(offset, offset + bytes));
        if (hasData) this.reducer.reduce(op, elemKind, data.subarray(0, bytes), mem.subarray(offset, offset + bytes), count);
        return;
      case CAS: {
        const old = mem.slice(offset, offset + bytes);
        this.channel.reply(origin, id, old);
        const compare = data.subarray(bytes, 2 * bytes);
        let equal = true;
        for (let i = 0; i < bytes; i++) if (old[i] !== compare[i]) equal = false;
        if (equal) mem.set(data.subarray(0, bytes), offset);
        return;
      }
      case FLUSH:
        this.channel.reply(origin, id, new Uint8Array(0));
        return;
      case LOCK:
        // Policy cpu: a rank of another node; granted in arrival order as the lock allows.
        this.grants.request(origin, h[1]!, id);
        return;
      case UNLOCK:
        this.grants.release(h[1]!);
        return;
      case COMPLETE:
        this.epoch.completeArrived();
        return;
      default:
        this.fatal(`tsmpi: window agent got request kind ${kind} from rank ${origin}`);
    }
  }

  /**
   * The agent's side on shared memory (a SharedArrayBuffer that other threads or processes may
   * poll or update with CPU atomics at the same time: node-shared memory re-exposed by
   * Win.Create, memory of Alloc_mem): a word-sized Put as one store, accumulates and atomics
   * with CPU atomics per element, so nobody sees an element half written (V8 copies shared
   * memory byte by byte). False when the elements do not qualify (the caller copies).
   */
  private applyAtomically(origin: number, kind: number, id: number, mem: Uint8Array, offset: number, bytes: number,
                          count: number, elemKind: number, op: number, data: Uint8Array | null): boolean {
    const at = mem.byteOffset + offset;
    let views = this.views.get(mem.buffer);
    if (views === undefined) this.views.set(mem.buffer, (views = new AtomicViews(mem.buffer)));
    if (kind === PUT) {
      if (!isWord(at, bytes)) return false;
      this.word.store(views, at, bytes, data!, 0);
      return true;
    }
    if (!AtomicViews.directFor(elemKind, at)) return false;
    if (kind === ACC) {
      views.apply(op, elemKind, at, count, data, 0, null, 0);
      return true;
    }
    const result = new Uint8Array(bytes);
    if (kind === CAS) views.compareAndSwap(elemKind, at, data!, 0, bytes, result);
    else views.apply(op, elemKind, at, count, data, 0, result, 0);
    this.channel.reply(origin, id, result);
    return true;
  }

  /** The agent's side of an operation on a derived target type. */
  private applyBlocks(mem: Uint8Array, origin: number, kind: number, id: number, offset: number, list: Float64Array,
                      elemKind: number, op: number, data: Uint8Array | null, bytes: number): void {
    if (kind === GET || kind === GET_ACC) {
      const fetched = new Uint8Array(bytes);
      for (let b = 0, at = 0; b < list.length; b += 2) {
        fetched.set(mem.subarray(offset + list[b]!, offset + list[b]! + list[b + 1]!), at);
        at += list[b + 1]!;
      }
      this.channel.reply(origin, id, fetched);
    }
    if (data === null || kind === GET) return;
    const size = kindBytes(elemKind);
    for (let b = 0, at = 0; b < list.length; b += 2) {
      const o = offset + list[b]!;
      const len = list[b + 1]!;
      if (kind === PUT) mem.set(data.subarray(at, at + len), o);
      else this.reducer.reduce(op, elemKind, data.subarray(at, at + len), mem.subarray(o, o + len), len / size);
      at += len;
    }
  }
}

/** The highest byte a derived-type block list in a message reaches (dynamic windows). */
function blockSpan(msg: Uint8Array, nBlocks: number): number {
  const list = new Float64Array(msg.slice(HEADER_BYTES, HEADER_BYTES + nBlocks * 16).buffer);
  let hi = 0;
  for (let b = 0; b < list.length; b += 2) hi = Math.max(hi, list[b]! + list[b + 1]!);
  return hi;
}
