import { createTrace } from '../common/trace.js';
import { copyBytes } from '../common/copy.js';
import {
  CONTROL_PAYLOAD_MAX, HINT_INLINE, HINT_MAY_BUFFER, HINT_NO_BUFFER, NO_EAGER_ROOM, NO_GRANT, NO_ROOM, SENT, SENT_HOLDING,
  type Device, type PackedData, type PacketSink,
} from './device.js';
import {
  FLAG_SYNC, HDR_WORDS, PKT_ACK, PKT_CANCEL, PKT_CANCEL_OK, PKT_CTS, PKT_EAGER, PKT_FIN, PKT_RTS,
  W_CTX, W_RREQ, W_SRC, W_SREQ, W_TAG, W_TYPE, packetLength, writeControlHeader, writeMessageHeader,
} from './hdr/packet.js';
import { MatchQueues } from './match-queue.js';
import { describePending, type PendingOperation } from './pending.js';
import {
  ANY_SOURCE as ANY_SOURCE_WILDCARD, ANY_TAG as ANY_TAG_WILDCARD, KIND_RECV, KIND_SEND, MODE_STANDARD, MODE_SYNC, NO_SENDER_REQUEST,
  Request, RequestPool, SEND_ACKED, SEND_CANCEL_ANSWERED, SEND_DATA_GONE, STATE_DONE, completedSend,
} from './request.js';
import { Unexpected, UnexpectedPool } from './unexpected.js';

const EMPTY_BYTES = new Uint8Array(0);

/**
 * DEBUG=tsmpi:match (every match decision, with source, tag and context) and tsmpi:protocol
 * (the protocol of every send). The message path tests a module constant read once from DEBUG
 * (debug's `.enabled` is a getter that costs tens of ns per message here) and calls out of line
 * only when it is on, so with tracing off no argument or string is ever built. debug.enable()
 * at run time therefore does not reach these two namespaces; DEBUG does.
 */
const matchTrace = createTrace('tsmpi:match');
const protocolTrace = createTrace('tsmpi:protocol');
const MATCH_TRACE = matchTrace.enabled;
const PROTOCOL_TRACE = protocolTrace.enabled;

/** Something progress() advances: it may post sends and receives; returns how much it moved. */
export interface ProgressHook {
  advance(): number;
}

/** A control packet parked for lack of room is a request of this kind. */
const KIND_CONTROL = 4;

/**
 * The point-to-point protocol engine: protocol selection (eager up to the device's eagerMax,
 * rendezvous above it or when the eager buffers are full), matching, and the handlers of every
 * packet type. Sends to a peer leave in the order they were posted: when one has to wait for
 * room, later ones to that peer wait behind it.
 */
export class Engine implements PacketSink {
  readonly requests = new RequestPool();
  /**
   * What a send the device finished inside the call returns (isendStandard): one request of
   * the engine, complete from the start, never pooled and never changed, as MPICH answers such
   * a send with a builtin completed request. Waiting for it returns at once; freeing it does nothing.
   */
  readonly sendDone = completedSend();
  readonly unexpectedPool = new UnexpectedPool();
  readonly queues = new MatchQueues();
  private readonly hdr = new Int32Array(HDR_WORDS);
  /** Scratch for a device's grant on a clear-to-send (attachGrant). */
  private readonly grant = new Uint8Array(CONTROL_PAYLOAD_MAX);
  private readonly pendingHead: (Request | null)[];
  private readonly pendingTail: (Request | null)[];
  private pendingCount = 0;
  /** The devices progress polls: all but those that deliver on send. */
  private readonly polled: Device[];
  /** Read through MPI.T and `tsmpiexec --stats` (engine-pvars.ts describes each). */
  readonly counters = { eagerFallbacks: 0, unexpected: 0, parked: 0 };
  /**
   * Sends per device and protocol: for the device at index d of `devices`, words 4d .. 4d+3
   * hold eager messages, eager bytes, rendezvous messages, rendezvous bytes (sentVia, sentTotal).
   * The one count of sends: the totals are summed from it when read, not kept beside it.
   */
  private sentByDevice: Float64Array;
  /** Index in `devices` of the device that carries each peer. */
  private slotOf: Int32Array;
  /**
   * Progress hooks: upper layers whose operations advance as messages complete (the schedules
   * of non-blocking collectives). progress() calls each hook's advance() after polling the
   * devices; advance() returns how much it moved. An empty list costs one length check.
   */
  private readonly hooks: ProgressHook[] = [];

  /**
   * `deviceOf` is the device of each peer: the world's ranks, then processes of other jobs
   * (addPeer); the engine owns these lists from here on.
   */
  constructor(readonly worldRank: number, readonly devices: Device[], private readonly deviceOf: Device[]) {
    this.pendingHead = new Array<Request | null>(deviceOf.length).fill(null);
    this.pendingTail = new Array<Request | null>(deviceOf.length).fill(null);
    for (const d of devices) d.init(this);
    this.polled = devices.filter((d) => d.deliversOnSend !== true);
    this.sentByDevice = new Float64Array(4 * devices.length);
    this.slotOf = Int32Array.from(deviceOf, (d) => devices.indexOf(d));
  }

  /** How many peers the engine addresses (the world's ranks and the processes of other jobs). */
  get peerCount(): number {
    return this.deviceOf.length;
  }

  /**
   * A process of another job (dynamic processes), carried by `device`: its peer number. A
   * device that carried no peer until now is initialized and polled from here on.
   */
  addPeer(device: Device): number {
    if (!this.devices.includes(device)) {
      device.init(this);
      this.devices.push(device);
      if (device.deliversOnSend !== true) this.polled.push(device);
      const grown = new Float64Array(4 * this.devices.length);
      grown.set(this.sentByDevice);
      this.sentByDevice = grown;
    }
    const peer = this.deviceOf.length;
    this.deviceOf.push(device);
    this.pendingHead.push(null);
    this.pendingTail.push(null);
    const slots = new Int32Array(peer + 1);
    slots.set(this.slotOf);
    slots[peer] = this.devices.indexOf(device);
    this.slotOf = slots;
    return peer;
  }

  /**
   * What went to peers through the device named `name` by `protocol` (eager or rendezvous):
   * messages and bytes; zero when no device of that name carries a peer.
   */
  sentVia(name: string, protocol: 'eager' | 'rndv', what: 'messages' | 'bytes'): number {
    const d = this.devices.findIndex((x) => x.name === name);
    if (d < 0) return 0;
    return this.sentByDevice[4 * d + sentWord(protocol, what)]!;
  }

  /** What went to peers by `protocol` through all devices: messages and bytes. */
  sentTotal(protocol: 'eager' | 'rndv', what: 'messages' | 'bytes'): number {
    const word = sentWord(protocol, what);
    let total = 0;
    for (let d = 0; d < this.devices.length; d++) total += this.sentByDevice[4 * d + word]!;
    return total;
  }

  /** Counts a send that left by eager (word 0) or rendezvous (word 2). */
  private countSent(peer: number, word: number, len: number): void {
    const at = 4 * this.slotOf[peer]! + word;
    this.sentByDevice[at]++;
    this.sentByDevice[at + 1] += len;
  }

  /** Polls every device, then retries parked sends; returns how much happened. */
  progress(): number {
    let n = 0;
    const devices = this.polled;
    for (let i = 0; i < devices.length; i++) n += devices[i]!.poll();
    if (this.pendingCount > 0) n += this.retryParked();
    const hooks = this.hooks;
    for (let i = 0; i < hooks.length; i++) n += hooks[i]!.advance();
    return n;
  }

  /** Registers a hook that progress() advances (once; registering it again does nothing). */
  addProgressHook(hook: ProgressHook): void {
    if (!this.hooks.includes(hook)) this.hooks.push(hook);
  }

  removeProgressHook(hook: ProgressHook): void {
    // Shifted down in place: splice would allocate the array of what it removed, and a small
    // collective's wait adds and removes its hook every call (coll/shm-small.ts).
    const hooks = this.hooks;
    const i = hooks.indexOf(hook);
    if (i < 0) return;
    for (let k = i + 1; k < hooks.length; k++) hooks[k - 1] = hooks[k]!;
    hooks.length--;
  }

  // ---------------------------------------------------------------- sending

  /**
   * Starts a send of `buf` (or of `packed`, non-contiguous data) to world rank `peer`; `src`
   * is our rank in the communicator.
   */
  isend(buf: Uint8Array, peer: number, ctx: number, src: number, tag: number, mode: number,
        packed: PackedData | null = null): Request {
    const r = this.newSend(buf, peer, ctx, src, tag, mode, packed);
    if (this.pendingHead[peer] !== null || !this.trySend(r)) this.park(r);
    return r;
  }

  /**
   * A standard-mode send of contiguous bytes. When nothing waits before it to `peer` and the
   * device copies it before returning (eager, below the device's holdMin), it goes at once and
   * needs no request: the answer is `sendDone`, and the header carries NO_SENDER_REQUEST, which
   * no packet ever answers (only synchronous sends are acknowledged, only rendezvous continue,
   * and a completed send is never cancelled). Anything else takes isend's way; a send the device
   * had no room for continues from the device's answer, without asking it again.
   */
  isendStandard(buf: Uint8Array, peer: number, ctx: number, src: number, tag: number): Request {
    const dev = this.deviceOf[peer]!;
    const len = buf.length;
    const copied = len <= dev.limits.eagerMax && len < (dev.limits.holdMin ?? Infinity);
    if (!copied || this.pendingHead[peer] !== null || PROTOCOL_TRACE) {
      return this.isend(buf, peer, ctx, src, tag, MODE_STANDARD);
    }
    writeMessageHeader(this.hdr, PKT_EAGER, 0, ctx, src, tag, len, NO_SENDER_REQUEST);
    const result = dev.sendPacket(peer, this.hdr, buf, 0, len, null, HINT_MAY_BUFFER);
    if (result === SENT) {
      this.countSent(peer, 0, len);
      return this.sendDone;
    }
    const r = this.newSend(buf, peer, ctx, src, tag, MODE_STANDARD, null);
    if (result === NO_EAGER_ROOM) this.fallBackToRendezvous(r);
    if (result === NO_ROOM || !this.trySend(r)) this.park(r);
    return r;
  }

  /** A send request made ready for trySend: eager up to the device's eagerMax, rendezvous above. */
  private newSend(buf: Uint8Array, peer: number, ctx: number, src: number, tag: number, mode: number,
                  packed: PackedData | null): Request {
    const r = this.requests.acquire(KIND_SEND);
    r.buf = buf;
    r.packed = packed;
    r.peer = peer;
    r.ctx = ctx;
    r.rank = src;
    r.tag = tag;
    r.mode = mode;
    r.sendNeeds = mode === MODE_SYNC ? SEND_DATA_GONE | SEND_ACKED : SEND_DATA_GONE;
    r.pendingType = lengthOf(r) <= this.deviceOf[peer]!.limits.eagerMax ? PKT_EAGER : PKT_RTS;
    if (PROTOCOL_TRACE) traceProtocol(this.deviceOf[peer]!, r);
    return r;
  }

  /** The eager buffers are full: the send goes by rendezvous instead. */
  private fallBackToRendezvous(r: Request): void {
    this.counters.eagerFallbacks++;
    if (PROTOCOL_TRACE) protocolTrace('send to world rank %d (ctx %d, tag %d): eager buffers full, rendezvous instead', r.peer, r.ctx, r.tag);
    r.pendingType = PKT_RTS;
  }

  private trySend(r: Request): boolean {
    const dev = this.deviceOf[r.peer]!;
    const hdr = this.hdr;
    const len = lengthOf(r);
    if (r.pendingType === PKT_EAGER) {
      writeMessageHeader(hdr, PKT_EAGER, r.mode === MODE_SYNC ? FLAG_SYNC : 0, r.ctx, r.rank, r.tag, len, r.id);
      // The user's buffer stays untouched until the request completes: a device may hold it.
      const result = dev.sendPacket(r.peer, hdr, r.buf, 0, len, r.packed, HINT_MAY_BUFFER, r.packed === null ? r.id : -1);
      if (result === SENT) {
        this.countSent(r.peer, 0, len);
        r.sendGot |= SEND_DATA_GONE;
        this.checkSendDone(r);
        return true;
      }
      if (result === SENT_HOLDING) {
        this.countSent(r.peer, 0, len);
        return true; // onSendDone follows
      }
      if (result !== NO_EAGER_ROOM) return false;
      this.fallBackToRendezvous(r);
    }
    if (r.pendingType === PKT_RTS) {
      // A rendezvous completes only after the match (PKT_FIN), so synchronous mode needs no ACK.
      r.sendNeeds &= ~SEND_ACKED;
      r.keep = dev.describeSource(r.peer, r.buf, r.packed, r.desc);
      writeMessageHeader(hdr, PKT_RTS, 0, r.ctx, r.rank, r.tag, len, r.id);
      if (dev.sendPacket(r.peer, hdr, r.descBytes, 0, dev.limits.rndvDescWords * 4, null, HINT_NO_BUFFER) !== SENT) return false;
      this.countSent(r.peer, 2, len);
      return true;
    }
    if (!this.sendControlNow(dev, r.peer, r.pendingType, r.ctlSreq, r.ctlRreq)) return false;
    this.requests.release(r);
    return true;
  }

  /**
   * Sends a control packet if the device has room; a clear-to-send carries the device's grant
   * (attachGrant), and waits like a full ring while the device cannot grant yet.
   */
  private sendControlNow(dev: Device, peer: number, type: number, sreq: number, rreq: number): boolean {
    let len = 0;
    if (type === PKT_CTS && dev.attachGrant !== undefined) {
      len = dev.attachGrant(peer, rreq, this.grant);
      if (len === NO_GRANT) return false;
    }
    writeControlHeader(this.hdr, type, sreq, rreq);
    return dev.sendPacket(peer, this.hdr, this.grant, 0, len, null, HINT_INLINE) === SENT;
  }

  /** Sends a control packet now, or parks it behind what already waits for that peer. */
  private sendControl(peer: number, type: number, sreq: number, rreq: number): void {
    if (this.pendingHead[peer] === null && this.sendControlNow(this.deviceOf[peer]!, peer, type, sreq, rreq)) return;
    const c = this.requests.acquire(KIND_CONTROL);
    c.peer = peer;
    c.pendingType = type;
    c.ctlSreq = sreq;
    c.ctlRreq = rreq;
    this.park(c);
  }

  private park(r: Request): void {
    const peer = r.peer;
    r.next = null;
    r.prev = this.pendingTail[peer]!;
    if (r.prev) r.prev.next = r;
    else this.pendingHead[peer] = r;
    this.pendingTail[peer] = r;
    this.pendingCount++;
    this.counters.parked++;
  }

  private unpark(r: Request): void {
    const peer = r.peer;
    if (r.prev) r.prev.next = r.next;
    else this.pendingHead[peer] = r.next;
    if (r.next) r.next.prev = r.prev;
    else this.pendingTail[peer] = r.prev;
    r.next = null;
    r.prev = null;
    this.pendingCount--;
  }

  private retryParked(): number {
    let sent = 0;
    for (let peer = 0; peer < this.pendingHead.length; peer++) {
      for (let r = this.pendingHead[peer]!; r !== null; r = this.pendingHead[peer]!) {
        const next = r.next;
        this.unpark(r);
        if (!this.trySend(r)) {
          // Back to the front, so the order to this peer stays as posted.
          r.next = next;
          if (next) next.prev = r;
          else this.pendingTail[peer] = r;
          this.pendingHead[peer] = r;
          this.pendingCount++;
          break;
        }
        sent++;
      }
    }
    return sent;
  }

  /** Every operation not yet complete, and every unexpected message; for state reports only. */
  describePending(): PendingOperation[] {
    return describePending(this.requests, this.queues);
  }

  /** Packets waiting for ring room (control replies included). */
  get parkedCount(): number {
    return this.pendingCount;
  }

  private checkSendDone(r: Request): void {
    if ((r.sendGot & r.sendNeeds) === r.sendNeeds) this.complete(r);
  }

  // -------------------------------------------------------------- receiving

  /**
   * Posts a receive into `buf` (or into `packed`, non-contiguous data) for (ctx, rank, tag);
   * rank and tag may be wildcards.
   */
  irecv(buf: Uint8Array, ctx: number, rank: number, tag: number, packed: PackedData | null = null): Request {
    return this.postReceive(buf, packed, false, ctx, rank, tag);
  }

  /** Posts a receive whose buffer is allocated to the message's size when it matches. */
  irecvAllocating(ctx: number, rank: number, tag: number): Request {
    return this.postReceive(EMPTY_BYTES, null, true, ctx, rank, tag);
  }

  private postReceive(buf: Uint8Array, packed: PackedData | null, allocate: boolean, ctx: number, rank: number,
                      tag: number): Request {
    const r = this.requests.acquire(KIND_RECV);
    r.buf = buf;
    r.packed = packed;
    r.allocateOnMatch = allocate;
    r.ctx = ctx;
    r.rank = rank;
    r.tag = tag;
    const u = this.queues.findUnexpected(ctx, rank, tag);
    if (MATCH_TRACE) traceReceive(ctx, rank, tag, u);
    if (u === null) this.queues.post(r);
    else {
      this.queues.removeUnexpected(u);
      this.receiveUnexpected(r, u);
    }
    return r;
  }

  /** Receives a message taken with mprobe (already out of the unexpected queue). */
  irecvMatched(buf: Uint8Array, u: Unexpected, packed: PackedData | null = null): Request {
    const r = this.requests.acquire(KIND_RECV);
    r.buf = buf;
    r.packed = packed;
    r.ctx = u.ctx;
    r.rank = u.src;
    r.tag = u.tag;
    this.receiveUnexpected(r, u);
    return r;
  }

  /** The first unexpected message matching, left in the queue (probe); null if none yet. */
  probe(ctx: number, rank: number, tag: number): Unexpected | null {
    return this.queues.findUnexpected(ctx, rank, tag);
  }

  /** Like probe, but the message is taken out of the queue for a later irecvMatched. */
  mprobe(ctx: number, rank: number, tag: number): Unexpected | null {
    const u = this.queues.findUnexpected(ctx, rank, tag);
    if (u !== null) this.queues.removeUnexpected(u);
    return u;
  }

  private receiveUnexpected(r: Request, u: Unexpected): void {
    r.peer = u.peer;
    r.statusSource = u.src;
    r.statusTag = u.tag;
    if (u.type === PKT_EAGER) {
      this.deliver(r, u.data, 0, u.len);
      if ((u.flags & FLAG_SYNC) !== 0) this.sendControl(u.peer, PKT_ACK, u.sreq, 0);
      this.unexpectedPool.release(u);
      this.complete(r);
    } else {
      r.peerReq = u.sreq;
      r.desc.set(u.desc);
      const len = u.len;
      const peer = u.peer;
      this.unexpectedPool.release(u);
      this.startRendezvousReceive(r, peer, len);
    }
  }

  /** Copies what fits of a message into the receive buffer and sets count and truncation. */
  private deliver(r: Request, data: Uint8Array, off: number, len: number): void {
    if (r.allocateOnMatch) r.buf = new Uint8Array(len);
    const capacity = lengthOf(r);
    const fits = len <= capacity ? len : capacity;
    if (fits > 0) {
      if (r.packed !== null) r.packed.unpack(data, off, 0, fits);
      else copyBytes(data, off, r.buf, 0, fits);
    }
    r.statusCount = fits;
    r.truncated = fits < len;
    r.incomingBytes = len;
  }

  private startRendezvousReceive(r: Request, peer: number, len: number): void {
    if (r.allocateOnMatch) r.buf = new Uint8Array(len);
    const capacity = lengthOf(r);
    const fits = len <= capacity ? len : capacity;
    r.statusCount = fits;
    r.truncated = fits < len;
    r.incomingBytes = len;
    const dest = r.packed !== null || fits === r.buf.length ? r.buf : r.buf.subarray(0, fits);
    const dev = this.deviceOf[peer]!;
    if (dev.pull(peer, r.desc, dest, r.packed, fits)) {
      this.sendControl(peer, PKT_FIN, r.peerReq, 0);
      this.complete(r);
      return;
    }
    dev.expectPush(peer, r.id, dest, r.packed, fits, len);
    this.sendControl(peer, PKT_CTS, r.peerReq, r.id);
  }

  onSendDone(holdId: number): void {
    const r = this.requests.get(holdId);
    r.sendGot |= SEND_DATA_GONE;
    this.checkSendDone(r);
  }

  onPushComplete(rreqId: number): void {
    const r = this.requests.get(rreqId);
    this.sendControl(r.peer, PKT_FIN, r.peerReq, 0);
    this.complete(r);
  }

  onPacket(peer: number, hdr: Int32Array, at: number, payload: Uint8Array, off: number, len: number): void {
    const info = hdr[at + W_TYPE]!;
    switch (info & 0xff) {
      case PKT_EAGER:
      case PKT_RTS:
        this.onMessage(peer, hdr, at, info, payload, off, len);
        return;
      case PKT_CTS: {
        const s = this.requests.get(hdr[at + W_SREQ]!);
        this.deviceOf[peer]!.startPush(peer, s.buf, s.packed, hdr[at + W_RREQ]!, payload, off, len);
        return;
      }
      case PKT_FIN: {
        const s = this.requests.get(hdr[at + W_SREQ]!);
        s.sendGot |= SEND_DATA_GONE;
        this.checkSendDone(s);
        return;
      }
      case PKT_ACK: {
        const s = this.requests.get(hdr[at + W_SREQ]!);
        s.sendGot |= SEND_ACKED;
        this.checkSendDone(s);
        return;
      }
      case PKT_CANCEL: {
        const sreq = hdr[at + W_SREQ]!;
        const u = this.queues.findBySender(peer, sreq);
        if (u !== null) {
          this.queues.removeUnexpected(u);
          this.unexpectedPool.release(u);
        }
        this.sendControl(peer, PKT_CANCEL_OK, sreq, u !== null ? 1 : 0);
        return;
      }
      case PKT_CANCEL_OK: {
        const s = this.requests.get(hdr[at + W_SREQ]!);
        s.sendGot |= SEND_CANCEL_ANSWERED;
        if (hdr[at + W_RREQ] === 1) {
          s.cancelled = true;
          this.complete(s);
        } else this.checkSendDone(s);
        return;
      }
      default:
        throw new Error(`mpid: packet of unknown type ${info & 0xff} from world rank ${peer}`);
    }
  }

  private onMessage(peer: number, hdr: Int32Array, at: number, info: number, payload: Uint8Array, off: number, len: number): void {
    const ctx = hdr[at + W_CTX]!;
    const src = hdr[at + W_SRC]!;
    const tag = hdr[at + W_TAG]!;
    const msgLen = packetLength(hdr, at);
    const sreq = hdr[at + W_SREQ]!;
    const r = this.queues.takePosted(ctx, src, tag);
    if (MATCH_TRACE) traceArrival(ctx, src, tag, msgLen, info & 0xff, r);
    if (r !== null) {
      r.peer = peer;
      r.statusSource = src;
      r.statusTag = tag;
      if ((info & 0xff) === PKT_EAGER) {
        this.deliver(r, payload, off, len);
        if ((info & FLAG_SYNC) !== 0) this.sendControl(peer, PKT_ACK, sreq, 0);
        this.complete(r);
      } else {
        r.peerReq = sreq;
        copyBytes(payload, off, r.descBytes, 0, len);
        this.startRendezvousReceive(r, peer, msgLen);
      }
      return;
    }
    const u = this.unexpectedPool.acquire();
    u.ctx = ctx;
    u.src = src;
    u.tag = tag;
    u.len = msgLen;
    u.type = info & 0xff;
    u.flags = info & FLAG_SYNC;
    u.peer = peer;
    u.sreq = sreq;
    if (u.type === PKT_EAGER) {
      u.data = this.unexpectedPool.bytes(len);
      if (len > 0) copyBytes(payload, off, u.data, 0, len);
    } else {
      copyBytes(payload, off, u.descBytes, 0, len);
    }
    this.queues.pushUnexpected(u);
    this.counters.unexpected++;
  }

  // ------------------------------------------------------------- completion

  /**
   * Cancels a request. A posted receive is withdrawn at once; a send that is still parked is
   * withdrawn at once; a send in flight asks the receiver, and completes when it answers.
   */
  cancel(r: Request): void {
    if (r.state === STATE_DONE) return;
    if (r.kind === KIND_RECV) {
      if (this.queues.removePosted(r)) {
        r.cancelled = true;
        this.complete(r);
      }
      return;
    }
    for (let p = this.pendingHead[r.peer] ?? null; p !== null; p = p.next) {
      if (p === r) {
        this.unpark(r);
        r.cancelled = true;
        this.complete(r);
        return;
      }
    }
    if ((r.sendNeeds & SEND_CANCEL_ANSWERED) !== 0) return;
    r.sendNeeds |= SEND_CANCEL_ANSWERED;
    this.sendControl(r.peer, PKT_CANCEL, r.id, 0);
  }

  /**
   * Marks `r` done: released at once if the user freed it, else its listener told. The layer
   * above completes its generalized requests (kind GREQ: schedules, Isendrecv's pair, Grequest,
   * Iflush_buffer, file accesses, partitioned rounds) here too.
   */
  complete(r: Request): void {
    r.state = STATE_DONE;
    r.keep = null;
    if (r.userFreed) this.requests.release(r);
    else if (r.listener !== null) r.listener.requestDone(r);
  }

  /** The user no longer holds `r`: release it now if done, else when it completes. */
  free(r: Request): void {
    if (r === this.sendDone) return;
    if (r.state === STATE_DONE) this.requests.release(r);
    else r.userFreed = true;
  }
}

/** The word of a device's four in sentByDevice that counts `what` sent by `protocol`. */
function sentWord(protocol: 'eager' | 'rndv', what: 'messages' | 'bytes'): number {
  return (protocol === 'eager' ? 0 : 2) + (what === 'messages' ? 0 : 1);
}

function traceProtocol(dev: Device, r: Request): void {
  const len = lengthOf(r);
  const shortMax = dev.limits.shortMax ?? -1;
  const protocol = r.pendingType === PKT_RTS ? 'rendezvous' : len <= shortMax ? 'short' : 'eager';
  protocolTrace('send to world rank %d (ctx %d, tag %d%s): %d bytes by %s over %s', r.peer, r.ctx, r.tag,
    r.mode === MODE_SYNC ? ', synchronous' : '', len, protocol, dev.name);
}

function traceReceive(ctx: number, rank: number, tag: number, u: Unexpected | null): void {
  const source = rank === ANY_SOURCE_WILDCARD ? 'any' : String(rank);
  const tagText = tag === ANY_TAG_WILDCARD ? 'any' : String(tag);
  if (u === null) matchTrace('recv posted (ctx %d, source %s, tag %s): no unexpected message matches', ctx, source, tagText);
  else matchTrace('recv (ctx %d, source %s, tag %s) matched an unexpected message from %d, tag %d, %d bytes', ctx, source, tagText, u.src, u.tag, u.len);
}

function traceArrival(ctx: number, src: number, tag: number, len: number, type: number, r: Request | null): void {
  const kind = type === PKT_EAGER ? 'eager' : 'rendezvous';
  if (r !== null) matchTrace('%s message (ctx %d, source %d, tag %d, %d bytes) matched a posted recv', kind, ctx, src, tag, len);
  else matchTrace('%s message (ctx %d, source %d, tag %d, %d bytes) is unexpected: queued', kind, ctx, src, tag, len);
}

/** Bytes of a request's message: its buffer's, or its packed stream's. */
function lengthOf(r: Request): number {
  return r.packed !== null ? r.packed.length : r.buf.length;
}

export { Unexpected };
