// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { createTrace } from '../common/trace.js';
import { addon } from '../native/addon.js';
import {
  HEADER_WORDS, HINT_MAY_BUFFER, NO_ROOM, NO_EAGER_ROOM, SENT, type Device, type DeviceLimits, type PackedData,
  type PacketSink, type PeerBell, type SendHint, type SendResult,
} from '../mpid/device.js';
import { type ShmemConfig, singleCopyFor } from './config.js';
import {
  CHUNK_ENTRY_WORDS, CHUNK_FLAG, CHUNK_INDEX, CHUNK_LEN, CHUNK_RREQ, CHUNK_TABLE, CONS_EAGER, CONS_SLOTS,
  EAGER_CELL_MAX, EAGER_CELL_MIN, eagerCellPad, FRAME_BYTES, F_HEADER, F_INFO, INFO_IN_EAGER_RING, INFO_LEN_MASK,
  INFO_SKIP, PairLayout, SLOT_BYTES, SLOT_WORDS,
} from './layout.js';
import type { RankSegment } from './rank-segment.js';
import { copyBytes, LOOP_MAX } from '../common/copy.js';
import { loadShared } from '../common/shared-load.js';

const trace = createTrace('tsmpi:shmem');

/**
 * Descriptor of a rendezvous source for single copy: pid, address (low, high 32 bits), and
 * DESC_IOV: 0 for contiguous bytes at the address; n > 0 for non-contiguous data whose n
 * pieces are listed as (address, length) pairs in a Float64Array at the address (the
 * receiver reads the table, then the data with one scatter/gather process_vm_readv);
 * NO_SINGLE_COPY when the sender's blocks are too small to list (it packs them locally into
 * the bounce chunks after CTS).
 */
const DESC_PID = 0;
const DESC_ADDR_LO = 1;
const DESC_ADDR_HI = 2;
const DESC_IOV = 3;
const DESC_WORDS = 4;
const NO_SINGLE_COPY = -1;

/**
 * Whole-buffer payloads of SET_MIN+1 to SET_MAX bytes go into the slot with one TypedArray.set,
 * which copies into shared memory a word at a time; copyBytes would copy them with its byte
 * loop (its choice up to 32 bytes, measured between ordinary buffers), which costs ~2 ns a byte
 * into a SharedArrayBuffer. A two-process ping-pong through this device took 110 ns a message
 * at 32 bytes with the loop and 87 with set (101 and 87 at 24 bytes; equal at 8 and 16 bytes,
 * where the builtin's call costs as much as the loop). With copyBytes' loop unrolled since, set
 * still wins at 32 bytes (one process: 62-64 ns a send against 70-72). Above SET_MAX copyBytes
 * itself uses set (or memmove, for eager-ring payloads from 4 KiB).
 */
const SET_MIN = 16;
const SET_MAX = 32;

/** Most packets handled per peer in one poll, so one busy peer cannot starve the others. */
const POLL_BATCH = 16;
/** The eager ring is backed with memory in steps of this many bytes as senders reach it. */
const EAGER_PREPARE_STEP = 64 * 1024;

interface Push {
  readonly source: Uint8Array;
  readonly packed: PackedData | null;
  readonly total: number;
  readonly rreqId: number;
  sent: number;
}

interface ExpectedPush {
  readonly dest: Uint8Array;
  readonly packed: PackedData | null;
  /** Bytes that fit the receive; the rest of `total` is drained and dropped (truncation). */
  readonly fits: number;
  readonly total: number;
  received: number;
}

/**
 * ch_shmem: the device for ranks of one node. Every ordered pair has a single-producer,
 * single-consumer ring of 128-byte slots in the receiver's segment; messages up to shortMax
 * travel inside the slots (short), larger ones up to eagerMax in the pair's eager ring
 * (eager), larger ones by rendezvous: one process_vm_readv of the sender's buffer (single
 * copy) or a pipelined copy through the pair's bounce chunks.
 *
 * Flow control: the sender keeps private counts of slots and eager bytes written; the
 * receiver publishes what it consumed in its consumer line; free = capacity - (written -
 * consumed), all counts wrapping int32 with power-of-two capacities.
 */
export class ShmemDevice implements Device {
  readonly name = 'ch_shmem';
  readonly limits: DeviceLimits;
  private sink: PacketSink | null = null;
  private readonly layout: PairLayout;
  private readonly slotMask: number;
  /** config.slots and config.shortMax, read on every send. */
  private readonly slots: number;
  private readonly shortMax: number;
  private readonly eagerMask: number;
  /** Local peers (world ranks), the only ones polled. */
  private readonly peers: Int32Array;
  /**
   * Sender side, indexed by world rank: the peer's segment as words/bytes, our region in it. The
   * words are the SharedArrayBuffer's (sequence words, credits: atomics and polls); the bytes a
   * plain view of the same memory (addon.shmPlainView), which the payloads are copied through:
   * V8 copies shared memory a relaxed-atomic byte at a time, plain memory with memmove (512 B -
   * 4 KiB messages 1.3-2 x faster each side, bench/native/message-path.js).
   */
  private readonly outWords: (Int32Array | null)[];
  private readonly outBytes: (Uint8Array | null)[];
  private readonly outBase: Int32Array;
  /** Word index of the first slot of our ring in each peer's segment. */
  private readonly outRing: Int32Array;
  /** The doorbells of our local peers, rung after we publish something for them. */
  private readonly bells: readonly (PeerBell | null)[];
  private readonly sentSlots: Int32Array;
  private readonly eagerWritten: Int32Array;
  /**
   * Segments are sparse (a page costs memory once it is prepared), so memory grows with the
   * pairs that talk, not with the square of the node's ranks: the control part of a pair is
   * prepared when the device connects, its eager ring as far as the sender has written (in
   * steps of EAGER_PREPARE_STEP), its bounce chunks at the pair's first pipelined copy.
   */
  private readonly eagerPrepared: Int32Array;
  private readonly bouncePrepared: Uint8Array;
  /**
   * Credits: free slots / eager bytes as last learned from the receiver's consumer line. The
   * sender reads that line (a cache miss: the receiver writes it) only when its credits run out.
   */
  private readonly slotCredits: Int32Array;
  private readonly eagerCredits: Int32Array;
  private readonly chunkWrite: Int32Array;
  /** Receiver side: our segment (words shared, bytes a plain view, as the sender's), each sender's region in it. */
  private readonly inWords: Int32Array;
  private readonly inBytes: Uint8Array;
  private readonly inBase: Int32Array;
  private readonly readSlots: Int32Array;
  private readonly publishedSlots: Int32Array;
  private readonly publishBatch: number;
  private readonly eagerRead: Int32Array;
  /**
   * Per peer (made at its first short packet) and slot: the last exact view of a short payload
   * handed to the sink. A slot's payload always starts at the same place, so while the length
   * repeats the view is reused and the short path makes no object per message (a copy of a
   * part of a buffer would make one: common/copy.ts).
   */
  private readonly slotViews: ((Uint8Array | null)[] | null)[];
  /** The same for eager payloads up to EAGER_CELL_MAX, per cell start (layout.ts). */
  private readonly eagerCellViews: ((Uint8Array | null)[] | null)[];
  private readonly chunkRead: Int32Array;
  private readonly pushes: Push[][];
  private readonly expected: Map<number, ExpectedPush>[];
  private activePushes = 0;
  private activeExpects = 0;
  private singleCopy: boolean;
  /** Counters read through MPI.T and --stats. */
  readonly counters = { short: 0, eager: 0, eagerFull: 0, ringFull: 0, pulls: 0, iovPulls: 0, pushChunks: 0, wakes: 0 };
  /** One-piece iovec lists for the contiguous side of a scatter/gather pull. */
  private readonly remoteOne = new Float64Array(2);
  private readonly localOne = new Float64Array(2);

  constructor(private readonly config: ShmemConfig, worldRank: number, worldSize: number,
              own: RankSegment, peerSegments: readonly (RankSegment | null)[], bells: readonly (PeerBell | null)[],
              private readonly plainPublish: boolean) {
    this.layout = new PairLayout(config);
    this.limits = { eagerMax: config.eagerMax, rndvDescWords: DESC_WORDS, shortMax: config.shortMax };
    this.slotMask = config.slots - 1;
    this.slots = config.slots;
    this.shortMax = config.shortMax;
    this.eagerMask = config.eagerBytes - 1;
    this.peers = Int32Array.from(peerSegments.map((s, r) => (s !== null ? r : -1)).filter((r) => r >= 0));
    this.outWords = peerSegments.map((s) => (s ? s.words : null));
    this.outBytes = peerSegments.map((s) => (s ? new Uint8Array(addon.shmPlainView(s.memory)) : null));
    this.outBase = new Int32Array(worldSize).fill(this.layout.pairOffset(worldRank));
    this.outRing = new Int32Array(worldSize).fill((this.layout.pairOffset(worldRank) + this.layout.ringOffset) >> 2);
    this.bells = bells;
    this.sentSlots = new Int32Array(worldSize);
    this.eagerWritten = new Int32Array(worldSize);
    this.eagerPrepared = new Int32Array(worldSize);
    this.bouncePrepared = new Uint8Array(worldSize);
    this.slotCredits = new Int32Array(worldSize).fill(config.slots);
    this.eagerCredits = new Int32Array(worldSize).fill(config.eagerBytes);
    this.chunkWrite = new Int32Array(worldSize);
    this.inWords = own.words;
    this.inBytes = new Uint8Array(addon.shmPlainView(own.memory));
    this.inBase = Int32Array.from({ length: worldSize }, (_, s) => this.layout.pairOffset(s));
    this.readSlots = new Int32Array(worldSize);
    this.publishedSlots = new Int32Array(worldSize);
    this.publishBatch = Math.max(1, config.slots >> 2);
    this.eagerRead = new Int32Array(worldSize);
    this.slotViews = new Array<(Uint8Array | null)[] | null>(worldSize).fill(null);
    this.eagerCellViews = new Array<(Uint8Array | null)[] | null>(worldSize).fill(null);
    this.chunkRead = new Int32Array(worldSize);
    this.pushes = Array.from({ length: worldSize }, () => []);
    this.expected = Array.from({ length: worldSize }, () => new Map());
    for (let i = 0; i < this.peers.length; i++) {
      const peer = this.peers[i]!;
      addon.shmPrepare(peerSegments[peer]!.memory, this.layout.pairOffset(worldRank), this.layout.eagerOffset);
      addon.shmPrepare(own.memory, this.layout.pairOffset(peer), this.layout.eagerOffset);
    }
    this.singleCopy = singleCopyFor(config.singleCopy, this.peers.length + 1) && singleCopyAllowed();
    trace('rank %d: %d local peers, single copy %s', worldRank, this.peers.length, this.singleCopy);
  }

  init(sink: PacketSink): void {
    this.sink = sink;
  }

  /**
   * Control packets and eager data up to shortMax go inside the slots (the short protocol),
   * larger eager data into the pair's eager ring with one slot announcing it.
   */
  sendPacket(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
             packed: PackedData | null, hint: SendHint): SendResult {
    if (hint !== HINT_MAY_BUFFER || len <= this.shortMax) return this.sendInSlots(peer, hdr, payload, off, len, packed, hint);
    return this.sendInEagerRing(peer, hdr, payload, off, len, packed);
  }

  /**
   * The short protocol: the frame and the payload after it in the ring's slots, the payload
   * packed there directly when it is non-contiguous. Its own routine, apart from the eager
   * ring's, so that the short path carries none of the eager ring's work.
   */
  private sendInSlots(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
                      packed: PackedData | null, hint: SendHint): SendResult {
    const slots = slotsFor(len);
    const sent = this.sentSlots[peer]!;
    const pos = sent & this.slotMask;
    const skip = pos + slots > this.slots ? this.slots - pos : 0;
    if (this.slotCredits[peer]! < skip + slots && !this.refreshSlotCredits(peer, sent, skip + slots)) return NO_ROOM;
    const words = this.outWords[peer]!;
    const ring = this.outRing[peer]!;
    if (skip > 0) {
      const at = ring + pos * SLOT_WORDS;
      words[at + F_INFO] = INFO_SKIP | skip;
      Atomics.store(words, at, (sent + 1) | 0);
    }
    const start = (sent + skip) | 0;
    const at = ring + (start & this.slotMask) * SLOT_WORDS;
    if (len > 0) {
      const bytes = this.outBytes[peer]!;
      const to = at * 4 + FRAME_BYTES;
      if (packed !== null) packed.pack(0, len, bytes, to);
      else if (payload !== null) {
        if (len > SET_MIN && len <= SET_MAX && off === 0 && len === payload.length) bytes.set(payload, to);
        else copyBytes(payload, off, bytes, to, len);
      }
    }
    writeFrame(words, at, hdr, len);
    // The sequence number publishes the packet. A plain store (the receiver fences us before it
    // sleeps: mpid/publish-fence.ts) does not wait for the line the receiver polls, as a locked
    // store would.
    if (this.plainPublish) words[at] = (start + 1) | 0;
    else Atomics.store(words, at, (start + 1) | 0);
    this.sentSlots[peer] = (start + slots) | 0;
    this.slotCredits[peer] = this.slotCredits[peer]! - skip - slots;
    if (hint === HINT_MAY_BUFFER) this.counters.short++;
    if (this.bells[peer]!.ring()) this.counters.wakes++;
    return SENT;
  }

  /** Eager data in the pair's eager ring, one slot announcing it. */
  private sendInEagerRing(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
                          packed: PackedData | null): SendResult {
    const sent = this.sentSlots[peer]!;
    const pos = sent & this.slotMask;
    if (this.slotCredits[peer]! < 1 && !this.refreshSlotCredits(peer, sent, 1)) return NO_ROOM;
    const words = this.outWords[peer]!;
    const base = this.outBase[peer]!;
    const written = this.eagerWritten[peer]!;
    const pad = eagerCellPad(written & this.eagerMask, len);
    const epos = (written + pad) & this.eagerMask;
    const eskip = epos + len > this.config.eagerBytes ? this.config.eagerBytes - epos : 0;
    const need = pad + eskip + len;
    if (this.eagerCredits[peer]! < need) {
      const econsumed = Atomics.load(words, (base >> 2) + CONS_EAGER);
      this.eagerCredits[peer] = this.config.eagerBytes - ((written - econsumed) | 0);
      if (this.eagerCredits[peer]! < need) {
        this.counters.eagerFull++;
        return NO_EAGER_ROOM;
      }
    }
    const ringAt = eskip === 0 ? epos : 0;
    const end = ringAt + len;
    if (end > this.eagerPrepared[peer]!) this.prepareEager(peer, end);
    const to = base + this.layout.eagerOffset + ringAt;
    const bytes = this.outBytes[peer]!;
    if (packed !== null) packed.pack(0, len, bytes, to);
    else if (payload !== null) copyBytes(payload, off, bytes, to, len);
    // A packet of one slot always fits before the ring's end: no skip.
    const at = this.outRing[peer]! + pos * SLOT_WORDS;
    writeFrame(words, at, hdr, len | INFO_IN_EAGER_RING);
    // A large copy may use non-temporal stores, which only a fence (the locked store) orders.
    Atomics.store(words, at, (sent + 1) | 0);
    this.sentSlots[peer] = (sent + 1) | 0;
    this.slotCredits[peer] = this.slotCredits[peer]! - 1;
    this.eagerWritten[peer] = (written + need) | 0;
    this.eagerCredits[peer] = this.eagerCredits[peer]! - need;
    this.counters.eager++;
    if (this.bells[peer]!.ring()) this.counters.wakes++;
    return SENT;
  }

  /** Learns how many slots the receiver consumed; false (counted as ring full) if `need` still do not fit. */
  private refreshSlotCredits(peer: number, sent: number, need: number): boolean {
    const consumed = Atomics.load(this.outWords[peer]!, (this.outBase[peer]! >> 2) + CONS_SLOTS);
    this.slotCredits[peer] = this.slots - ((sent - consumed) | 0);
    if (this.slotCredits[peer]! >= need) return true;
    this.counters.ringFull++;
    return false;
  }

  poll(): number {
    let handled = 0;
    const peers = this.peers;
    for (let i = 0; i < peers.length; i++) handled += this.pollPeer(peers[i]!);
    if (this.activePushes > 0) handled += this.progressPushes();
    if (this.activeExpects > 0) handled += this.progressExpects();
    return handled;
  }

  private pollPeer(peer: number): number {
    const words = this.inWords;
    const base = this.inBase[peer]!;
    const ringWord = (base + this.layout.ringOffset) >> 2;
    let read = this.readSlots[peer]!;
    let handled = 0;
    let eagerRead = this.eagerRead[peer]!;
    while (handled < POLL_BATCH) {
      const at = ringWord + (read & this.slotMask) * SLOT_WORDS;
      if (loadShared(words, at) !== ((read + 1) | 0)) break;
      const info = words[at + F_INFO]!;
      const len = info & INFO_LEN_MASK;
      let slots: number;
      if ((info & INFO_SKIP) !== 0) slots = len;
      else {
        let off = at * 4 + FRAME_BYTES;
        if ((info & INFO_IN_EAGER_RING) !== 0) {
          slots = 1;
          eagerRead = (eagerRead + eagerCellPad(eagerRead & this.eagerMask, len)) | 0;
          let epos = eagerRead & this.eagerMask;
          if (epos + len > this.config.eagerBytes) {
            eagerRead = (eagerRead + this.config.eagerBytes - epos) | 0;
            epos = 0;
          }
          off = base + this.layout.eagerOffset + epos;
          eagerRead = (eagerRead + len) | 0;
          if (len > LOOP_MAX && len <= EAGER_CELL_MAX) {
            this.sink!.onPacket(peer, words, at + F_HEADER, this.eagerCellView(peer, epos, off, len), 0, len);
          } else this.sink!.onPacket(peer, words, at + F_HEADER, this.inBytes, off, len);
        } else {
          slots = slotsFor(len);
          if (len > LOOP_MAX) this.sink!.onPacket(peer, words, at + F_HEADER, this.slotView(peer, read & this.slotMask, off, len), 0, len);
          else this.sink!.onPacket(peer, words, at + F_HEADER, this.inBytes, off, len);
        }
        handled++;
      }
      // The slots after a message's first (its payload, or the ring's end after a skip) keep
      // what was written there: a stale first word equal to the sequence number the poll will
      // expect there one lap later would pass for a packet. Stamp each with its own,
      // consumed, number, which the poll never expects again (it expects n + slots there).
      for (let k = 1; k < slots; k++) words[ringWord + ((read + k) & this.slotMask) * SLOT_WORDS] = (read + k + 1) | 0;
      read = (read + slots) | 0;
    }
    this.readSlots[peer] = read;
    this.eagerRead[peer] = eagerRead;
    // Consumption is published once a quarter of the ring is used, or as soon as the ring is
    // empty again: the second case runs while we wait anyway, so a ping-pong pays nothing.
    const unpublished = (read - this.publishedSlots[peer]!) | 0;
    if (unpublished !== 0 && (handled === 0 || unpublished >= this.publishBatch)) {
      this.publishedSlots[peer] = read;
      Atomics.store(words, (base >> 2) + CONS_EAGER, eagerRead);
      Atomics.store(words, (base >> 2) + CONS_SLOTS, read);
      if (this.bells[peer]!.ring()) this.counters.wakes++;
    }
    return handled;
  }

  describeSource(_peer: number, source: Uint8Array, packed: PackedData | null, desc: Int32Array): object | null {
    desc[DESC_PID] = process.pid;
    let table: Float64Array | null = null;
    let addr = 0;
    if (packed === null) {
      addr = addon.addressOf(source);
      desc[DESC_IOV] = 0;
    } else if (this.singleCopy && packed.pieceBytes >= this.config.directPackMin && packed.length > 0) {
      table = packed.iovecs(packed.length);
      addr = addon.addressOf(table);
      desc[DESC_IOV] = table.length >> 1;
    } else desc[DESC_IOV] = NO_SINGLE_COPY;
    desc[DESC_ADDR_LO] = addr % 0x100000000;
    desc[DESC_ADDR_HI] = Math.floor(addr / 0x100000000);
    return table;
  }

  pull(_peer: number, desc: Int32Array, dest: Uint8Array, packed: PackedData | null, len: number): boolean {
    if (!this.singleCopy) return false;
    const pieces = desc[DESC_IOV]!;
    if (pieces === NO_SINGLE_COPY) return false;
    // Our blocks too small to list: take the chunks, unpacking locally from them.
    if (packed !== null && packed.pieceBytes < this.config.directPackMin) return false;
    if (len === 0) return true;
    const pid = desc[DESC_PID]!;
    const addr = (desc[DESC_ADDR_HI]! * 0x100000000) + (desc[DESC_ADDR_LO]! >>> 0);
    try {
      if (pieces === 0 && packed === null) addon.cmaRead(pid, dest, addr);
      else this.pullScattered(pid, addr, pieces, dest, packed, len);
    } catch (e) {
      // The kernel refused (ptrace scope, seccomp): every later rendezvous takes the push path.
      trace('single copy refused (%s); using the pipelined copy', (e as Error).message);
      this.singleCopy = false;
      return false;
    }
    this.counters.pulls++;
    return true;
  }

  /**
   * Single copy with iovec lists (003b §1, direct): the sender's pieces (its table, read
   * first) paired in stream order with ours, in one scatter/gather process_vm_readv; the
   * kernel stops at the shorter list, which is how a truncated receive gets only what fits.
   */
  private pullScattered(pid: number, addr: number, pieces: number, dest: Uint8Array, packed: PackedData | null,
                        len: number): void {
    let remote = this.remoteOne;
    let remoteCount = 1;
    if (pieces === 0) {
      remote[0] = addr;
      remote[1] = len;
    } else {
      remote = new Float64Array(pieces * 2);
      addon.cmaRead(pid, remote, addr);
      remoteCount = pieces;
    }
    let local: Float64Array;
    if (packed !== null) local = packed.iovecs(len);
    else {
      local = this.localOne;
      local[0] = addon.addressOf(dest);
      local[1] = len;
    }
    const moved = addon.cmaReadv(pid, local, local.length >> 1, remote, remoteCount);
    if (moved !== len) throw new Error(`scatter/gather read moved ${moved} of ${len} bytes`);
    this.counters.iovPulls++;
  }

  private slotView(peer: number, slot: number, off: number, len: number): Uint8Array {
    let views = this.slotViews[peer];
    if (views === null) views = this.slotViews[peer] = new Array<Uint8Array | null>(this.config.slots).fill(null);
    return this.cachedView(views, slot, off, len);
  }

  /** A view of an eager payload up to EAGER_CELL_MAX bytes, kept per cell start (layout.ts). */
  private eagerCellView(peer: number, epos: number, off: number, len: number): Uint8Array {
    let views = this.eagerCellViews[peer];
    if (views === null) {
      views = this.eagerCellViews[peer] = new Array<Uint8Array | null>(this.config.eagerBytes / EAGER_CELL_MIN).fill(null);
    }
    return this.cachedView(views, epos / EAGER_CELL_MIN, off, len);
  }

  private cachedView(views: (Uint8Array | null)[], index: number, off: number, len: number): Uint8Array {
    let view = views[index]!;
    if (view === null || view.length !== len) view = views[index] = new Uint8Array(this.inBytes.buffer, off, len);
    return view;
  }

  /** Backs the pair's eager ring in the peer's segment up to `end` bytes (and a step beyond). */
  private prepareEager(peer: number, end: number): void {
    const upTo = Math.min(this.config.eagerBytes, Math.ceil(end / EAGER_PREPARE_STEP) * EAGER_PREPARE_STEP);
    const from = this.eagerPrepared[peer]!;
    const base = this.outBase[peer]! + this.layout.eagerOffset;
    addon.shmPrepare(this.outWords[peer]!.buffer as SharedArrayBuffer, base + from, upTo - from);
    this.eagerPrepared[peer] = upTo;
  }

  /** No grant: the bounce chunks of a pair serve one transfer at a time, in order. */
  startPush(peer: number, source: Uint8Array, packed: PackedData | null, rreqId: number): void {
    if (this.bouncePrepared[peer] === 0) {
      addon.shmPrepare(this.outWords[peer]!.buffer as SharedArrayBuffer, this.outBase[peer]! + this.layout.bounceOffset,
        this.config.bounceChunks * this.config.bounceChunk);
      this.bouncePrepared[peer] = 1;
    }
    const total = packed !== null ? packed.length : source.length;
    this.pushes[peer]!.push({ source, packed, total, rreqId, sent: 0 });
    this.activePushes++;
    this.progressPushes();
  }

  expectPush(peer: number, rreqId: number, dest: Uint8Array, packed: PackedData | null, fits: number, total: number): void {
    this.expected[peer]!.set(rreqId, { dest, packed, fits, total, received: 0 });
    this.activeExpects++;
  }

  /** Sender side of the pipelined copy: fill every free chunk of the head transfer per peer. */
  private progressPushes(): number {
    let moved = 0;
    for (let peer = 0; peer < this.pushes.length; peer++) {
      const queue = this.pushes[peer]!;
      if (queue.length === 0) continue;
      const words = this.outWords[peer]!;
      const bytes = this.outBytes[peer]!;
      const base = this.outBase[peer]!;
      const table = (base + CHUNK_TABLE) >> 2;
      while (queue.length > 0) {
        const push = queue[0]!;
        const index = this.chunkWrite[peer]! % this.config.bounceChunks;
        const entry = table + index * CHUNK_ENTRY_WORDS;
        if (Atomics.load(words, entry + CHUNK_FLAG) !== 0) break;
        const n = Math.min(this.config.bounceChunk, push.total - push.sent);
        const to = base + this.layout.bounceOffset + index * this.config.bounceChunk;
        if (push.packed !== null) push.packed.pack(push.sent, n, bytes, to);
        else copyBytes(push.source, push.sent, bytes, to, n);
        words[entry + CHUNK_RREQ] = push.rreqId;
        words[entry + CHUNK_LEN] = n;
        words[entry + CHUNK_INDEX] = push.sent / this.config.bounceChunk;
        Atomics.store(words, entry + CHUNK_FLAG, 1);
        this.chunkWrite[peer] = this.chunkWrite[peer]! + 1;
        push.sent += n;
        moved++;
        this.counters.pushChunks++;
        if (push.sent >= push.total) {
          queue.shift();
          this.activePushes--;
        }
      }
      if (moved > 0) this.bells[peer]!.ring();
    }
    return moved;
  }

  /** Receiver side of the pipelined copy: drain ready chunks into the posted receive. */
  private progressExpects(): number {
    let moved = 0;
    const words = this.inWords;
    for (let i = 0; i < this.peers.length; i++) {
      const peer = this.peers[i]!;
      const expected = this.expected[peer]!;
      if (expected.size === 0) continue;
      const base = this.inBase[peer]!;
      const table = (base + CHUNK_TABLE) >> 2;
      for (;;) {
        const index = this.chunkRead[peer]! % this.config.bounceChunks;
        const entry = table + index * CHUNK_ENTRY_WORDS;
        if (Atomics.load(words, entry + CHUNK_FLAG) === 0) break;
        const rreqId = words[entry + CHUNK_RREQ]!;
        const len = words[entry + CHUNK_LEN]!;
        const offset = words[entry + CHUNK_INDEX]! * this.config.bounceChunk;
        const x = expected.get(rreqId)!;
        const fits = Math.max(0, Math.min(len, x.fits - offset));
        const from = base + this.layout.bounceOffset + index * this.config.bounceChunk;
        if (fits > 0) {
          if (x.packed !== null) x.packed.unpack(this.inBytes, from, offset, fits);
          else copyBytes(this.inBytes, from, x.dest, offset, fits);
        }
        Atomics.store(words, entry + CHUNK_FLAG, 0);
        this.chunkRead[peer] = this.chunkRead[peer]! + 1;
        x.received += len;
        moved++;
        if (x.received >= x.total) {
          expected.delete(rreqId);
          this.activeExpects--;
          this.sink!.onPushComplete(rreqId);
        }
      }
      if (moved > 0) this.bells[peer]!.ring();
    }
    return moved;
  }

  /** Nothing to let go: the mappings of the peers' segments end with the process. */
  disconnect(): void {
    this.sink = null;
  }

  /** Our segment's name went once every peer had attached (the descriptor's connected()). */
  close(): void {}
}

/**
 * A packet's frame but its sequence word: mpid's header (opaque here) and INFO. The header's
 * words are copied unrolled: a loop over them cost ~10 ns of a 55 ns short send (its bounds
 * check and counter each word; V8 unrolls no loop), so the header must be the six words it was.
 */
if (HEADER_WORDS !== 6) throw new Error(`ch_shmem copies a header of 6 words, mpid's has ${HEADER_WORDS}`);
function writeFrame(words: Int32Array, at: number, hdr: Int32Array, info: number): void {
  words[at + F_HEADER] = hdr[0]!;
  words[at + F_HEADER + 1] = hdr[1]!;
  words[at + F_HEADER + 2] = hdr[2]!;
  words[at + F_HEADER + 3] = hdr[3]!;
  words[at + F_HEADER + 4] = hdr[4]!;
  words[at + F_HEADER + 5] = hdr[5]!;
  words[at + F_INFO] = info;
}

/** Slots a packet with `len` payload bytes takes inside the ring. */
function slotsFor(len: number): number {
  return ((FRAME_BYTES + len + SLOT_BYTES - 1) / SLOT_BYTES) | 0;
}

/** Whether process_vm_readv works at all here (seccomp or a kernel without it say no). */
function singleCopyAllowed(): boolean {
  const probe = new Uint8Array(8);
  return addon.cmaProbe(process.pid, addon.addressOf(probe)).ok;
}
