// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { Request as CoreRequest } from '../mpid/request.js';
import type { WindowChannel } from './channel.js';
import type { GatheredRequests } from './gathered.js';
import type { RemotePut } from './remote-put.js';
import { ACC, CAS, FLUSH, GET_ACC, HEADER_BYTES, HEADER_DOUBLES, PUT } from './wire.js';

/** A request the user holds (MPI's Rget, Rget_accumulate): `core` is null once the user freed it. */
export interface HeldRequest {
  readonly core: CoreRequest | null;
}

/**
 * The agent method, origin side (003b §3.2's emulated access): every operation travels as a message
 * (wire.ts) to the target's agent (target.ts), which applies it in arrival order. A fetching
 * operation's reply proves that the target applied it and everything we sent it before
 * (messages do not overtake), so only targets whose last operation has no reply are dirty: a
 * flush asks them with a FLUSH round trip.
 */
export class AgentAccess {
  /** Targets whose last operation has no reply, so a FLUSH must confirm it (at the next sync). */
  private readonly dirty = new Set<number>();
  /** Replies (gets, fetching atomics) not yet arrived, per target. */
  private readonly pending = new Map<number, CoreRequest[]>();
  /** Reply requests handed to the user, until the next flush. */
  private readonly held: HeldRequest[] = [];
  /** Replies in `pending`, all targets together (a flush with nothing outstanding returns at once). */
  private pendingCount = 0;
  /**
   * The message buffer, reused by every operation: a message is copied into the device (or
   * fully sent) before send() returns, so an operation allocates no buffer of its own.
   */
  private scratch = new Uint8Array(HEADER_BYTES + 256);
  private scratchHeader = new Float64Array(this.scratch.buffer, 0, HEADER_DOUBLES);

  constructor(
    private readonly channel: WindowChannel,
    /** The gathered method's batches (empty while no target uses it). */
    private readonly gathered: GatheredRequests,
    readonly remotePut: RemotePut,
    /** A reply arrived and its request is about to be freed (the face unpacks a non-contiguous result). */
    private readonly replyArrived: (r: CoreRequest) => void,
  ) {}

  /** Operations of ours lack remote completion (a flush has to confirm them). */
  get unflushed(): boolean {
    return this.dirty.size > 0;
  }

  /**
   * Sends request `kind` to `t`: `count` elements of `elemKind` at byte `offset` of its part
   * (`list`: a derived target type's blocks), op code `op`, `data` its payload (Compare_and_swap:
   * origin then compare), `into` where the result goes. Gathered when `gather` allows and the
   * request qualifies. Returns the reply's request (the caller adds it to the pending replies
   * with track(), or hands it to the user), or null when there is no reply.
   */
  issue(t: number, kind: number, offset: number, list: Float64Array | null, elemKind: number, op: number, count: number,
        bytes: number, data: Uint8Array | null, into: Uint8Array | null, gather: boolean): CoreRequest | null {
    const id = this.channel.newId();
    const payload = kind === PUT || kind === ACC || (kind === GET_ACC && data !== null) ? bytes : kind === CAS ? 2 * bytes : 0;
    const listBytes = list !== null ? list.length * 8 : 0;
    const total = HEADER_BYTES + listBytes + payload;
    if (this.scratch.length < total) {
      this.scratch = new Uint8Array(2 * total);
      this.scratchHeader = new Float64Array(this.scratch.buffer, 0, HEADER_DOUBLES);
    }
    const msg = this.scratch.subarray(0, total);
    const h = this.scratchHeader;
    h[0] = id;
    h[1] = offset;
    h[2] = count;
    h[3] = elemKind;
    h[4] = op;
    h[5] = data === null ? 0 : 1;
    h[6] = list !== null ? list.length / 2 : 0;
    if (list !== null) msg.set(new Uint8Array(list.buffer, list.byteOffset, listBytes), HEADER_BYTES);
    if (payload > 0) msg.set(data!.subarray(0, payload), HEADER_BYTES + listBytes);
    const reply = into !== null ? this.channel.expectReply(t, id, into.subarray(0, bytes)) : null;
    if (gather && (kind === PUT || kind === ACC) && payload <= this.gathered.maxBytes && list === null) {
      this.gathered.add(t, kind, msg);
      this.dirty.add(t);
      return null;
    }
    this.gathered.send(t);
    this.channel.send(t, kind, msg);
    if (into === null) this.dirty.add(t);
    else this.dirty.delete(t);
    return reply;
  }

  /** Remote-put access: a Get of `t`'s bytes into our exported memory `key` at byte `at` (remote-put.ts). */
  getInto(t: number, offset: number, count: number, elemKind: number, key: number, at: number): CoreRequest {
    this.gathered.send(t);
    const reply = this.remotePut.getInto(t, offset, count, elemKind, key, at);
    this.dirty.delete(t);
    return reply;
  }

  /** A reply the window waits for at the next synchronisation with `t`. */
  track(t: number, reply: CoreRequest): void {
    let list = this.pending.get(t);
    if (list === undefined) this.pending.set(t, (list = []));
    list.push(reply);
    this.pendingCount++;
  }

  /** A reply the user holds: waited for (not freed) at the next flush. */
  hold(r: HeldRequest): void {
    this.held.push(r);
  }

  /** Nothing sent by the agent method waits for completion (direct access alone leaves nothing behind). */
  get quiet(): boolean {
    return this.dirty.size === 0 && this.pendingCount === 0 && this.held.length === 0 && this.gathered.queued === 0;
  }

  /** Remote completion of everything sent to `t`. */
  flush(t: number): void {
    if (this.quiet) return;
    this.gathered.send(t);
    if (this.dirty.has(t)) {
      this.channel.roundTrip(t, FLUSH, 0);
      this.dirty.delete(t);
    }
    this.waitReplies(t);
  }

  flushAll(): void {
    if (this.quiet) return;
    for (const t of [...this.dirty]) this.flush(t);
    for (const t of this.pending.keys()) this.waitReplies(t);
  }

  /** Local completion: our buffers are reusable once the replies have arrived (puts were copied at the call). */
  waitReplies(t: number): void {
    // Requests the user holds: wait for those still active, but leave freeing to the user.
    if (this.held.length > 0) {
      for (const u of this.held) if (u.core !== null) this.channel.world.progress.wait(u.core);
      this.held.length = 0;
    }
    const list = this.pending.get(t);
    if (list === undefined || list.length === 0) return;
    for (const r of list) {
      this.channel.world.progress.wait(r);
      this.replyArrived(r);
      this.channel.world.engine.free(r);
    }
    this.pendingCount -= list.length;
    list.length = 0;
  }

  waitAllReplies(): void {
    if (this.quiet) return;
    for (const t of [...this.pending.keys()]) this.waitReplies(t);
  }
}

