import { createTrace } from '../common/trace.js';
import { copyBytes } from '../common/copy.js';
import { startAsDoubles } from '../common/double-fields.js';
import { TsmpiError } from '../common/errors.js';
import {
  addon, UCS_ERR_ENDPOINT_TIMEOUT, UCS_ERR_NO_RESOURCE, UCX_CQ_ENTRY_WORDS, UCX_CQ_EP_FAILED, UCX_CQ_RECV, UCX_CQ_SEND, UCX_CTL_CQ_HEAD,
  UCX_CTL_CQ_TAIL, UCX_CTL_INBOX_HEAD, UCX_CTL_INBOX_TAIL, UCX_DESC_DATA, UCX_DESC_RNDV, UCX_REC_DESC, UCX_REC_KIND_MASK, UCX_REC_MSG,
  UCX_REC_LENGTH_HIGH_SHIFT, UCX_REC_WRAP, UCX_RECORD_HEADER_BYTES, UCX_SEND_EAGER, UCX_SEND_IMMEDIATE, UCX_SEND_RNDV, type UcxContext,
  type UcxEndpoint, type UcxWorkerRings,
} from '../native/addon.js';
import {
  HEADER_WORDS, HINT_MAY_BUFFER, HINT_NO_BUFFER, NO_EAGER_ROOM, NO_ROOM, SENT, SENT_HOLDING, type Device, type DeviceLimits,
  type PackedData, type PacketSink, type RankDoorbell, type RemotePeers, type SendHint, type SendResult,
} from '../mpid/device.js';
import type { UcxConfig } from './config.js';
import { UcxPeers } from './peers.js';
import { TOKEN_RMA_KINDS, UcxRma } from './rma.js';

const trace = createTrace('tsmpi:ucx');

/**
 * The frame ch_ucx puts around mpid's opaque header, as the active message's header: the
 * sender's world rank (UCX does not say who sent an active message), its sequence number to
 * this receiver (a check that UCX kept the order MPI's matching relies on), then mpid's words.
 */
const FRAME_SRC = 0;
const FRAME_SEQ = 1;
const FRAME_HDR = 2;
const FRAME_WORDS = FRAME_HDR + HEADER_WORDS;
const FRAME_BYTES = FRAME_WORDS * 4;

/**
 * The rendezvous descriptor mpid carries for us from the arrival of a request to its match:
 * the binding's descriptor id of the waiting message and the message's length (low, high).
 * At the sender the same words name the slot holding the source until UCX is done with it.
 */
const DESC_ID = 0;
const DESC_LEN_LO = 1;
const DESC_LEN_HI = 2;
const DESC_WORDS = 4;

/** Completion tokens: what finished, in the high byte, and its slot. */
const TOKEN_STAGED = 1 << 24;
const TOKEN_RNDV = 2 << 24;
const TOKEN_PULL = 3 << 24;
/** A rendezvous receive going on in the background (4 .. 6 are one-sided's, in rma.ts). */
const TOKEN_RECV = 7 << 24;
/** An eager send UCX reads from the user's buffer (the slot is mpid's holdId). */
const TOKEN_HELD = 8 << 24;
/** The flush of every endpoint at the end (disconnect). */
const TOKEN_FLUSH = 9 << 24;
const TOKEN_KIND = 0xff << 24;
const TOKEN_SLOT = 0xffffff;

const EMPTY = new Uint8Array(0);
/**
 * Eager messages from this size are sent from the user's buffer (SENT_HOLDING): UCX cannot send
 * them within the call (they span fragments), and a staged copy cost a memcpy of each.
 */
const HOLD_MIN = 16 * 1024;
const pad8 = (n: number): number => (n + 7) & ~7;

/**
 * A rendezvous message being received in the background, from expectPush to its completion:
 * where UCX writes it (`into`: the matched buffer, or a bounce when it must be cut or unpacked)
 * and where it goes. Kept in a pool and reused.
 */
interface BackgroundRecv {
  rreqId: number;
  peer: number;
  into: Uint8Array;
  dest: Uint8Array;
  packed: PackedData | null;
  fits: number;
  direct: boolean;
}

/** A peer this rank can no longer reach (it died, or its host or the network went away). */
export class PeerLostError extends TsmpiError {
  constructor(message: string) {
    super('TSMPI_PEER_LOST', message);
  }
}

/** What the device takes from its rank: the doorbell and spin budget its own waits use, and where a lost peer goes. */
export interface UcxRankLinks {
  readonly doorbell: RankDoorbell;
  readonly spinBudget: number;
  /** Where a lost peer goes (DeviceLinks.fail): the upper layer's error handler. */
  readonly fail: (error: Error) => never;
}

/** Longest single sleep of a device wait; it polls again after it (a lost wake-up costs this much). */
const SLEEP_MS = 1000;

/** The parts of UCX a device owns: made at bootstrap's step 1, so the address can go in our card. */
export interface UcxEndpointSide {
  readonly context: UcxContext;
  readonly rings: UcxWorkerRings;
}

/**
 * ch_ucx: the network device, over UCX's UCP (native/src/ucx_*.cc). One worker per rank, an
 * endpoint per peer from the worker address in its card. Every packet is one active message
 * whose header is FRAME + mpid's opaque header:
 *  - inline and eager packets carry their payload; UCX delivers it into the binding's inbox
 *    (read in place, nothing allocated), or holds it in a descriptor we receive into a scratch;
 *  - a rendezvous request (HINT_NO_BUFFER) carries the source itself as a UCX rendezvous
 *    message: the receiver's mpid matches the header and the data is received straight into
 *    the matched buffer (ucp_am_recv_data_nbx: zero-copy from the sender's memory), in the
 *    background: pull() declines, so mpid takes its push path, and expectPush starts the
 *    receive, which ends in onPushComplete from a later poll. A window of large messages thus
 *    overlaps (UCX runs their rendezvous side by side) instead of one blocking receive after
 *    another; it costs one UCX rendezvous and mpid's CTS (ignored by the sender, whose data
 *    already flows) and FIN, with no copy on either side.
 * Sends UCX cannot take at once are copied to a staging buffer (the contract says a packet's
 * bytes are read before sendPacket returns). Matching stays in mpid, so MPI's order and
 * ANY_SOURCE hold across this device and ch_shmem at once.
 *
 * Sleep: the binding's relay thread watches the worker's event fd while the rank sleeps and
 * rings the rank's doorbell (announceSleep arms it), so a waiting rank uses no CPU.
 */
export class UcxDevice implements Device {
  readonly name = 'ch_ucx';
  /** UCX completes a send once it holds the data; its transport sends it on while we progress. */
  readonly sendsNeedProgress = true;
  readonly limits: DeviceLimits;
  /** Counters read through MPI.T and --stats. */
  readonly counters = startAsDoubles({
    eager: 0, held: 0, staged: 0, rndv: 0, rndvBytes: 0, iovSends: 0, iovRecvs: 0, eagerHeld: 0, eagerDescriptors: 0, pullWaits: 0,
    wakes: 0,
  }, 'rndvBytes');
  private sink: PacketSink | null = null;
  private readonly worker;
  private readonly control: Int32Array;
  private readonly inbox: Uint8Array;
  private readonly inboxWords: Int32Array;
  private readonly inboxMask: number;
  private readonly cq: Int32Array;
  private readonly cqMask: number;
  /** Our frame, rewritten per packet. */
  private readonly frame = new Int32Array(FRAME_WORDS);
  private readonly frameBytes = new Uint8Array(this.frame.buffer);
  /** Endpoints, sequence numbers and failures per peer (the world's ranks, then other jobs' processes). */
  private readonly peers: UcxPeers;
  /** Processes of other jobs (dynamic processes). */
  readonly remote: RemotePeers;
  private closing = false;
  /** The peer watch runs (startWatch). */
  private watching = false;
  /** Staging buffers for eager packets UCX keeps (a stack of free slots). */
  private readonly staging: (Uint8Array | null)[];
  private readonly freeStaging: Int32Array;
  private freeStagingCount: number;
  /** Rendezvous sources UCX still reads from, by slot (what must stay alive). */
  private readonly rndvSources: (Uint8Array | null)[] = [];
  /** A rendezvous source sent as user-memory pieces (UCX iov), by slot: its (address, length) pairs. */
  private readonly rndvPieces: ({ readonly pairs: Float64Array; readonly memory: PackedData } | null)[] = [];
  private readonly freeRndv: number[] = [];
  /** The descriptor words handed to mpid for an arriving rendezvous request. */
  private readonly arrivingDesc = new Int32Array(DESC_WORDS);
  private readonly arrivingDescBytes = new Uint8Array(this.arrivingDesc.buffer);
  /** Where eager data held by a descriptor is received before it goes to mpid. */
  private eagerScratch = new Uint8Array(0);
  private packScratch = new Uint8Array(0);
  private pullStatus = 1;
  /** 1 while the final flush runs (flushAll), then 0 or a UCX status. */
  private flushStatus = 0;
  /** One-sided operations (rma.ts): window memory registered, put/get/atomics/flush. */
  readonly rma: UcxRma;
  /** The descriptor pull() declined, for the expectPush that mpid calls right after it. */
  private declinedDesc = -1;
  private readonly recvs: BackgroundRecv[] = [];
  private readonly freeRecvs: number[] = [];
  /** Receives UCX finished within expectPush: completed at the next poll, after mpid's CTS left. */
  private readonly finishedNow: number[] = [];

  constructor(private readonly config: UcxConfig, private readonly rank: number, worldSize: number,
              private readonly side: UcxEndpointSide, eps: readonly (UcxEndpoint | null)[], address: string,
              private readonly nodeOf: (rank: number) => string, private readonly links: UcxRankLinks) {
    this.limits = { eagerMax: config.eagerMax, rndvDescWords: DESC_WORDS, holdMin: HOLD_MIN };
    const rings = side.rings;
    this.worker = rings.worker;
    this.control = rings.control;
    this.inbox = rings.inbox;
    this.inboxWords = new Int32Array(rings.inbox.buffer, rings.inbox.byteOffset, rings.inbox.byteLength >> 2);
    this.inboxMask = rings.inbox.length - 1;
    this.cq = rings.completions;
    this.cqMask = rings.completions.length / UCX_CQ_ENTRY_WORDS - 1;
    this.peers = new UcxPeers(worldSize, rank, eps);
    this.remote = {
      address,
      connect: (peer, to, usThere) => this.connectRemote(peer, to, usThere),
      release: (peer) => this.releaseRemote(peer),
    };
    this.staging = new Array<Uint8Array | null>(config.staging).fill(null);
    this.freeStaging = Int32Array.from({ length: config.staging }, (_, i) => config.staging - 1 - i);
    this.freeStagingCount = config.staging;
    this.rma = new UcxRma(side.context, rings.worker, this.peers.eps, () => this.poll(), () => this.sleepUntilEvent(),
      links.spinBudget, (peer, status) => this.failSend(peer, status));
    this.startWatch(worldSize);
  }

  /**
   * The peer watch: a ring over the world in rank order, each rank beating to its successor and
   * watching its predecessor where this device carries the pair. Every host then has a rank
   * that watches a rank of another host (the ring leaves each host somewhere), so a host that
   * drops off the network is noticed within the timeout by a rank that survives it.
   */
  private startWatch(worldSize: number): void {
    const timeoutMs = this.config.peerTimeoutMs;
    if (timeoutMs === 0 || worldSize < 2) return;
    const eps = this.peers.eps;
    const next = eps[(this.rank + 1) % worldSize] ?? null;
    const previous = (this.rank + worldSize - 1) % worldSize;
    const watched = eps[previous] !== null && eps[previous] !== undefined ? previous : -1;
    if (next === null && watched < 0) return;
    addon.ucxWatchStart(this.worker, next, this.rank, watched, Math.max(1, Math.floor(timeoutMs / 4)), timeoutMs);
    this.watching = true;
  }

  init(sink: PacketSink): void {
    this.sink = sink;
  }

  sendPacket(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
             packed: PackedData | null, hint: SendHint, holdId = -1): SendResult {
    const ep = this.endpoint(peer);
    const frame = this.frame;
    const peers = this.peers;
    frame[FRAME_SRC] = peers.usThere[peer]!;
    frame[FRAME_SEQ] = peers.sendSeq[peer]!;
    for (let i = 0; i < HEADER_WORDS; i++) frame[FRAME_HDR + i] = hdr[i]!;
    if (hint === HINT_NO_BUFFER) return this.sendRendezvous(peer, ep, payload!, off);
    let src = payload ?? EMPTY;
    if (packed !== null) {
      if (this.packScratch.length < len) this.packScratch = new Uint8Array(Math.max(len, this.config.eagerMax));
      packed.pack(0, len, this.packScratch, 0);
      src = this.packScratch;
      off = 0;
    }
    if (len >= HOLD_MIN && holdId >= 0 && holdId <= TOKEN_SLOT && packed === null) return this.sendHolding(peer, ep, src, off, len, holdId);
    const now = addon.ucxAmSend(ep, this.frameBytes, 0, FRAME_BYTES, src, off, len, UCX_SEND_EAGER | UCX_SEND_IMMEDIATE, 0);
    if (now === 0) {
      this.peers.sendSeq[peer]!++;
      this.counters.eager++;
      return SENT;
    }
    if (now !== UCS_ERR_NO_RESOURCE) this.failSend(peer, now);
    // UCX cannot send it within the call: hand it a copy it may keep until the completion.
    if (this.freeStagingCount === 0) return hint === HINT_MAY_BUFFER ? NO_EAGER_ROOM : NO_ROOM;
    const slot = this.freeStaging[--this.freeStagingCount]!;
    let buf = this.staging[slot]!;
    if (buf === null || buf.length < len) buf = this.staging[slot] = new Uint8Array(Math.max(len, this.config.eagerMax, 64));
    copyBytes(src, off, buf, 0, len);
    const later = addon.ucxAmSend(ep, this.frameBytes, 0, FRAME_BYTES, buf, 0, len, UCX_SEND_EAGER, TOKEN_STAGED | slot);
    if (later < 0) this.failSend(peer, later);
    if (later === 0) this.freeStaging[this.freeStagingCount++] = slot;
    this.peers.sendSeq[peer]!++;
    this.counters.staged++;
    return SENT;
  }

  /**
   * An eager message too large for UCX to send within the call (it spans several fragments):
   * UCX reads it from the user's buffer, which mpid leaves untouched until onSendDone, instead
   * of from a staged copy.
   */
  private sendHolding(peer: number, ep: UcxEndpoint, src: Uint8Array, off: number, len: number, holdId: number): SendResult {
    const r = addon.ucxAmSend(ep, this.frameBytes, 0, FRAME_BYTES, src, off, len, UCX_SEND_EAGER, TOKEN_HELD | holdId);
    if (r < 0) this.failSend(peer, r);
    this.peers.sendSeq[peer]!++;
    this.counters.eager++;
    if (r === 0) return SENT;
    this.counters.held++;
    return SENT_HOLDING;
  }

  /** The request of a rendezvous, with the source (held since describeSource) as UCX rendezvous data. */
  private sendRendezvous(peer: number, ep: UcxEndpoint, descBytes: Uint8Array, off: number): SendResult {
    const slot = descBytes[off]! | (descBytes[off + 1]! << 8) | (descBytes[off + 2]! << 16) | (descBytes[off + 3]! << 24);
    const source = this.rndvSources[slot]!;
    const pieces = this.rndvPieces[slot] ?? null;
    const r = pieces === null
      ? addon.ucxAmSend(ep, this.frameBytes, 0, FRAME_BYTES, source, 0, source.length, UCX_SEND_RNDV, TOKEN_RNDV | slot)
      : addon.ucxAmSendIov(ep, this.frameBytes, 0, FRAME_BYTES, pieces.pairs, pieces.pairs.length >> 1, pieces.memory,
        UCX_SEND_RNDV, TOKEN_RNDV | slot);
    if (r < 0) this.failSend(peer, r);
    if (r === 0) this.releaseRndv(slot);
    this.peers.sendSeq[peer]!++;
    this.counters.rndv++;
    this.counters.rndvBytes += source.length;
    if (pieces !== null) this.counters.iovSends++;
    return SENT;
  }

  describeSource(_peer: number, source: Uint8Array, packed: PackedData | null, desc: Int32Array): object | null {
    let bytes = source;
    let pairs: Float64Array | null = null;
    let length = source.length;
    if (packed !== null) {
      length = packed.length;
      // Derived datatypes: large pieces go as a UCX iov list (gathered by UCX, zero-copy);
      // small ones are packed once here, and UCX moves the packed bytes zero-copy.
      if (this.piecesPay(packed)) {
        pairs = packed.iovecs(length);
        trace('rank %d: a rendezvous of %d bytes goes as %d pieces (UCX iov)', this.rank, length, pairs.length >> 1);
      }
      else {
        bytes = new Uint8Array(length);
        packed.pack(0, length, bytes, 0);
      }
    }
    const slot = this.freeRndv.length > 0 ? this.freeRndv.pop()! : this.rndvSources.length;
    if (slot > TOKEN_SLOT) throw new Error('ch_ucx: too many rendezvous sends in flight');
    this.rndvSources[slot] = bytes;
    // The pieces are the user's memory: the packed view keeps it alive while UCX reads it.
    this.rndvPieces[slot] = pairs === null ? null : { pairs, memory: packed! };
    desc[DESC_ID] = slot;
    desc[DESC_LEN_LO] = length % 0x100000000;
    desc[DESC_LEN_HI] = Math.floor(length / 0x100000000);
    return bytes;
  }

  /** Whether a derived datatype's pieces are large enough to move as a UCX iov list. */
  private piecesPay(packed: PackedData): boolean {
    const min = this.config.iovMin;
    return min > 0 && packed.pieceBytes >= min && packed.length > 0;
  }

  /**
   * Declines, so that mpid takes the push path and the receive goes on in the background
   * (expectPush); keeps the descriptor for it.
   */
  pull(_peer: number, desc: Int32Array): boolean {
    this.declinedDesc = desc[DESC_ID]! >>> 0;
    return false;
  }

  /**
   * Starts receiving the message whose pull was just declined: UCX receives a message whole,
   * into the matched buffer when it fits exactly, else into a bounce that is cut or unpacked
   * at the end. Completes through onPushComplete from poll(), never within this call (mpid
   * sends its CTS after it, and the FIN must follow the CTS).
   */
  expectPush(peer: number, rreqId: number, dest: Uint8Array, packed: PackedData | null, fits: number, total: number): void {
    const descId = this.declinedDesc;
    if (descId < 0) throw new Error('ch_ucx: expectPush without the declined pull of its message');
    this.declinedDesc = -1;
    const pieces = packed !== null && fits === total && this.piecesPay(packed) ? packed.iovecs(total) : null;
    const direct = (packed === null && fits === total) || pieces !== null;
    const slot = this.freeRecvs.length > 0 ? this.freeRecvs.pop()! : this.recvs.length;
    if (slot > TOKEN_SLOT) throw new Error('ch_ucx: too many rendezvous receives in flight');
    const into = direct ? dest : new Uint8Array(total);
    const rec = this.recvs[slot] ??= { rreqId: 0, peer: 0, into, dest, packed: null, fits: 0, direct: true };
    rec.rreqId = rreqId;
    rec.peer = peer;
    rec.into = into;
    rec.dest = dest;
    rec.packed = packed;
    rec.fits = fits;
    rec.direct = direct;
    const r = pieces === null
      ? addon.ucxAmRecv(this.worker, descId, into, 0, total, TOKEN_RECV | slot)
      : addon.ucxAmRecvIov(this.worker, descId, pieces, pieces.length >> 1, packed!, TOKEN_RECV | slot);
    if (pieces !== null) this.counters.iovRecvs++;
    if (r < 0) this.failSend(peer, r);
    if (r === 0) this.finishedNow.push(slot);
    else this.counters.pullWaits++;
  }

  /** The sender's side of the push path has nothing to do: its data already travels by UCX's rendezvous. */
  startPush(): void {
    // mpid's CTS only says that the receiver matched; the send completes on its FIN.
  }

  /**
   * Progress counts UCX's own events too (a connection set up, a rendezvous step): after one, the
   * rank must not go to sleep on the strength of this poll, since the worker's event fd may
   * already have fired for it and will not fire again.
   */
  poll(): number {
    const finished = this.finishedNow.length > 0 ? this.finishReceivedNow() : 0;
    const events = addon.ucxProgress(this.worker) + finished;
    const c = this.control;
    if (c[UCX_CTL_CQ_HEAD] !== c[UCX_CTL_CQ_TAIL]) this.drainCompletions();
    return (c[UCX_CTL_INBOX_HEAD] !== c[UCX_CTL_INBOX_TAIL] ? this.drainInbox() : 0) + events;
  }

  /**
   * A wait's sleep when its spin budget is spent: arm the worker (the relay then watches its fd
   * and rings the rank's doorbell on the next event), poll once more, and sleep on the doorbell
   * unless that poll moved something. The same protocol as mpid's Progress, for the waits this
   * device runs itself (one-sided completions), which only UCX can end.
   */
  private sleepUntilEvent(): void {
    const { cells, index } = this.links.doorbell;
    const seen = Atomics.load(cells, index);
    if (!addon.ucxBellArm(this.worker)) return; // events are pending: the caller polls them
    if (this.poll() === 0) addon.futexWait(cells, index, seen, SLEEP_MS);
    addon.ucxBellDisarm(this.worker);
  }

  announceSleep(asleep: boolean): void {
    if (asleep) {
      if (addon.ucxBellArm(this.worker)) this.counters.wakes++;
    } else addon.ucxBellDisarm(this.worker);
  }

  disconnect(): void {
    this.flushAll();
    // From here a peer closing its endpoints is no failure, nor one that stops beating.
    this.closing = true;
    if (this.watching) addon.ucxWatchStop(this.worker, true);
    this.watching = false;
  }

  /**
   * Progresses until every message this rank sent has left it. UCX completes an eager send once
   * it holds the data, which may still wait in its TCP queue; after disconnect this rank
   * progresses no more (the process manager's fence), so the last messages of the barrier
   * before it (comm-manage.ts drainBeforeStop) must leave now: a peer on another host once
   * waited in that barrier for a message that sat here.
   */
  private flushAll(): void {
    this.flushStatus = 1;
    const r = addon.ucxWorkerFlush(this.worker, TOKEN_FLUSH);
    if (r <= 0) return;
    while (this.flushStatus === 1) {
      addon.ucxProgress(this.worker);
      this.drainCompletions();
    }
  }

  close(): void {
    this.sink = null;
    addon.ucxBellDetach(this.worker);
    addon.ucxContextDestroy(this.side.context);
  }

  /** Hands every arrived packet to mpid, releasing each record after its visit. */
  private drainInbox(): number {
    const c = this.control;
    const words = this.inboxWords;
    let n = 0;
    for (let tail = c[UCX_CTL_INBOX_TAIL]!; tail !== c[UCX_CTL_INBOX_HEAD]; tail = c[UCX_CTL_INBOX_TAIL]!) {
      const off = tail & this.inboxMask;
      const w = off >> 2;
      const kindFlags = words[w]!;
      const kind = kindFlags & UCX_REC_KIND_MASK;
      if (kind === UCX_REC_WRAP) {
        c[UCX_CTL_INBOX_TAIL] = (tail + (this.inbox.length - off)) | 0;
        continue;
      }
      const hLen = words[w + 1]!;
      const len = words[w + 2]!;
      const f = (off + UCX_RECORD_HEADER_BYTES) >> 2;
      if (hLen !== FRAME_BYTES) throw new Error(`ch_ucx: a message with a ${hLen}-byte header is not ours`);
      const src = words[f + FRAME_SRC]!;
      this.checkOrder(src, words[f + FRAME_SEQ]!);
      if (kind === UCX_REC_MSG) {
        // The record stays ours until TAIL passes it: mpid reads the payload in place.
        this.sink!.onPacket(src, words, f + FRAME_HDR, this.inbox, off + UCX_RECORD_HEADER_BYTES + FRAME_BYTES, len);
        c[UCX_CTL_INBOX_TAIL] = (tail + UCX_RECORD_HEADER_BYTES + FRAME_BYTES + pad8(len)) | 0;
      } else if (kind === UCX_REC_DESC) {
        const descId = words[w + 3]! >>> 0; // an id carries a generation in its high bits
        if ((kindFlags & UCX_DESC_RNDV) !== 0) {
          const d = this.arrivingDesc;
          d[DESC_ID] = descId;
          d[DESC_LEN_LO] = len;
          d[DESC_LEN_HI] = kindFlags >>> UCX_REC_LENGTH_HIGH_SHIFT;
          this.sink!.onPacket(src, words, f + FRAME_HDR, this.arrivingDescBytes, 0, DESC_WORDS * 4);
        } else if ((kindFlags & UCX_DESC_DATA) !== 0) {
          // Eager data UCX keeps for us: mpid reads it in place, then UCX has it back.
          const view = addon.ucxAmView(this.worker, descId);
          this.counters.eagerHeld++;
          try {
            this.sink!.onPacket(src, words, f + FRAME_HDR, view, 0, len);
          } finally {
            addon.ucxAmDiscard(this.worker, descId, view);
          }
        } else {
          this.receiveEager(src, descId, len);
          this.sink!.onPacket(src, words, f + FRAME_HDR, this.eagerScratch, 0, len);
        }
        c[UCX_CTL_INBOX_TAIL] = (tail + UCX_RECORD_HEADER_BYTES + FRAME_BYTES) | 0;
      } else throw new Error(`ch_ucx: inbox record of unknown kind ${kind}`);
      n++;
    }
    return n;
  }

  /** Eager data UCX holds (it did not fit the inbox): received into the scratch, in the call. */
  private receiveEager(src: number, descId: number, len: number): void {
    if (this.eagerScratch.length < len) this.eagerScratch = new Uint8Array(Math.max(len, this.config.eagerMax));
    this.counters.eagerDescriptors++;
    this.receiveHeld(src, descId, this.eagerScratch, len);
  }

  /**
   * Receives the message a descriptor holds into `into[0 .. len)`, progressing the worker until
   * it is there (completions only: the inbox is drained by the caller's loop). Returns whether
   * it had to wait.
   */
  private receiveHeld(peer: number, descId: number, into: Uint8Array, len: number): boolean {
    this.pullStatus = 1;
    const r = addon.ucxAmRecv(this.worker, descId, into, 0, len, TOKEN_PULL);
    if (r < 0) this.failSend(peer, r);
    if (r === 0) return false;
    while (this.pullStatus === 1) {
      addon.ucxProgress(this.worker);
      this.drainCompletions();
      if (this.peers.failed[peer] !== 0) this.failSend(peer, this.peers.failed[peer]!);
    }
    if (this.pullStatus < 0) this.failSend(peer, this.pullStatus);
    return true;
  }

  private drainCompletions(): void {
    const c = this.control;
    const cq = this.cq;
    for (let tail = c[UCX_CTL_CQ_TAIL]!; tail !== c[UCX_CTL_CQ_HEAD]; tail = (tail + 1) | 0) {
      const at = (tail & this.cqMask) * UCX_CQ_ENTRY_WORDS;
      const token = cq[at]!;
      const status = cq[at + 1]!;
      const kind = cq[at + 2]!;
      c[UCX_CTL_CQ_TAIL] = (tail + 1) | 0;
      if (kind === UCX_CQ_EP_FAILED) {
        if (!this.closing && this.peers.failed[token] === 0) {
          this.peers.failed[token] = status;
          trace('rank %d: endpoint to peer %d failed: %s', this.rank, token, addon.ucxStatusName(status));
          // Another job's process ends when it likes once a Disconnect released it.
          if (this.peers.released[token] !== 0) continue;
          // The job cannot go on without the peer (MPI has no fault tolerance here): whatever
          // call progresses now fails with the peer's name, and the job ends.
          this.failSend(token, status);
        }
        continue;
      }
      const slot = token & TOKEN_SLOT;
      switch (token & TOKEN_KIND) {
        case TOKEN_STAGED:
          this.freeStaging[this.freeStagingCount++] = slot;
          break;
        case TOKEN_RNDV:
          this.releaseRndv(slot);
          break;
        case TOKEN_HELD:
          if (status < 0 && !this.closing) {
            // A lost peer also fails its endpoint (UCX_CQ_EP_FAILED, which names it); this says what was lost.
            this.links.fail(new PeerLostError(`ch_ucx: rank ${this.rank}: an eager send failed: ${addon.ucxStatusName(status)}`));
          }
          this.sink!.onSendDone(slot);
          break;
        case TOKEN_PULL:
          if (kind === UCX_CQ_RECV) this.pullStatus = status < 0 ? status : 0;
          break;
        case TOKEN_FLUSH:
          this.flushStatus = status < 0 ? status : 0;
          break;
        case TOKEN_RMA_KINDS[0]:
        case TOKEN_RMA_KINDS[1]:
        case TOKEN_RMA_KINDS[2]:
          this.rma.complete(token, status);
          break;
        case TOKEN_RECV:
          if (kind === UCX_CQ_RECV) {
            if (status < 0) this.failSend(this.recvs[slot]!.peer, status);
            this.finishRecv(slot);
          }
          break;
        default:
          if (kind === UCX_CQ_SEND && status < 0 && !this.closing) {
            throw new Error(`ch_ucx: a send of unknown token ${token} failed`);
          }
      }
    }
  }

  /** Completes the receives UCX finished within expectPush (and any that finish meanwhile: their CTS has left too). */
  private finishReceivedNow(): number {
    const list = this.finishedNow;
    for (let i = 0; i < list.length; i++) this.finishRecv(list[i]!);
    const n = list.length;
    list.length = 0;
    return n;
  }

  /** A background receive is done: the bytes go where mpid matched them, and mpid hears of it. */
  private finishRecv(slot: number): void {
    const rec = this.recvs[slot]!;
    if (!rec.direct && rec.fits > 0) {
      if (rec.packed !== null) rec.packed.unpack(rec.into, 0, 0, rec.fits);
      else copyBytes(rec.into, 0, rec.dest, 0, rec.fits);
    }
    const rreqId = rec.rreqId;
    rec.into = rec.dest = EMPTY;
    rec.packed = null;
    this.freeRecvs.push(slot);
    this.sink!.onPushComplete(rreqId);
  }

  private releaseRndv(slot: number): void {
    this.rndvSources[slot] = null;
    this.rndvPieces[slot] = null;
    this.freeRndv.push(slot);
  }

  private endpoint(peer: number): UcxEndpoint {
    if (this.peers.failed[peer] !== 0) this.failSend(peer, this.peers.failed[peer]!);
    const ep = this.peers.eps[peer];
    if (ep === null || ep === undefined) throw new Error(`ch_ucx: bootstrap gave this device no endpoint to rank ${peer}`);
    return ep;
  }

  /** Another job's process as `peer` (RemotePeers.connect): an endpoint from its worker address. */
  private connectRemote(peer: number, address: string, usThere: number): void {
    const ep = addon.ucxEpCreate(this.worker, Buffer.from(address, 'base64url'), peer);
    this.peers.add(peer, ep, usThere);
    this.rma.grow(this.peers.count);
    trace('rank %d: peer %d is another job\'s process (it knows us as %d)', this.rank, peer, usThere);
  }

  /**
   * Disconnect: what we sent `peer` has left (a flush of its endpoint), and its loss is no error
   * from now on. The endpoint stays open until Finalize: another communicator may still reach
   * the process through it.
   */
  private releaseRemote(peer: number): void {
    if (!this.peers.isRemote(peer) || this.peers.released[peer] !== 0) return;
    this.peers.released[peer] = 1;
    if (this.peers.failed[peer] === 0) this.rma.flush(peer, true);
  }

  private checkOrder(src: number, seq: number): void {
    const expected = this.peers.recvSeq[src]!;
    if (seq !== expected) {
      throw new Error(`ch_ucx: message ${seq} from rank ${src} arrived where ${expected} was due: UCX broke the order MPI needs`);
    }
    this.peers.recvSeq[src] = (expected + 1) | 0;
  }

  private failSend(peer: number, status: number): never {
    return this.links.fail(new PeerLostError(`ch_ucx: rank ${this.rank} lost rank ${peer} (on ${this.nodeOf(peer)}): ` +
      `${addon.ucxStatusName(status)}${status === UCS_ERR_ENDPOINT_TIMEOUT ? this.silence() : ''}; ` +
      'the rank or its host is gone, or the network between us is down'));
  }

  private silence(): string {
    const ms = this.config.peerTimeoutMs;
    return ms > 0 ? ` (nothing heard for over ${(ms / 1000).toFixed(1)} s, TSMPI_UCX_PEER_TIMEOUT)` : '';
  }
}
