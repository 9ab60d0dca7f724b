import createDebug from 'debug';
import {
  NO_EAGER_ROOM, NO_ROOM, SENT, type Device, type DeviceLimits, type PackedData, type PacketSink, type SendResult,
} from '../mpid/device.js';
import { HDR_WORDS, PKT_CTS, PKT_EAGER, W_LEN, W_RREQ, W_TYPE } from '../mpid/hdr/packet.js';
import { copyBytes } from '../common/copy.js';
import {
  DMA_DONE, DMA_ERROR, DMA_POSTED, type Descriptor, type DmaQueue, type LocalInterrupt, type InterruptRelay,
  type LocalSegment, type RemoteInterrupt, type RemoteSegment, type SciMap, SEQ_OK, type Sequence,
} from '../sisci/index.js';
import {
  FREE_RING_ENTRIES, ONE_SIDED_BYTES, OS_ASLEEP, OS_DYN_READ, OS_FREE_RING, type SciConfig, roundUp, shortSegmentBytes,
} from './config.js';
import { ResourceCache, type Resource } from './resources.js';
import type { ExposedMemory, MappedMemory } from '../mpid/remote-memory.js';
import { ShortRingReceiver, ShortRingSender, type ShortVisit, regionBytes } from './short-ring.js';
import { SciWake } from './wake.js';
import type { DoorbellWake } from '../ch_shmem/doorbell.js';

const trace = createDebug('tsmpi:sci');

/**
 * Packet types of the device itself, carried on the short ring beside mpid's (1..7):
 *   BLOCK_READY  sender → receiver  words 2..6: rreq, stream offset, bytes, pool offset, last of round
 *   OK_TO_SEND   receiver → sender  words 2..4: rreq, pool offset, bytes granted (rounds after the first,
 *                                   whose grant rides on mpid's CTS as an 8-byte payload)
 */
const DEV_BLOCK_READY = 0x41;
const DEV_OK_TO_SEND = 0x42;
/** Bit of header word 1 (device bits 16-31): the EAGER data lies in our slice of the receiver's eager segment. */
const DEV_IN_SLICE = 1 << 16;

/** Segment ids: unique per SCI node because world ranks are unique. */
const KIND_SHORT = 0;
const KIND_EAGER = 1;
const KIND_POOL = 2;
const KIND_DMA = 3;
export function segmentIdOf(worldRank: number, kind: number): number {
  return worldRank * 4 + kind + 1;
}

/** Rewrites of one data transfer before its error counts as permanent. */
const MAX_RETRIES = 64;
/** DMA sizes are multiples of this (SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT of the emulation). */
const DMA_ALIGN = 8;
const CONNECT_TIMEOUT_MS = 30_000;
/** Segment ids of exported one-sided memory: above the device's (rank * 4 + kind + 1), a block per rank. */
const MEMORY_ID_BASE = 0x40000000;
const MEMORY_IDS_PER_RANK = 0x4000;

/** Our own exported segments. */
interface Exported {
  readonly segment: LocalSegment;
  readonly map: SciMap;
}

/** A ch_sci peer: the static short-protocol connection and the per-pair protocol state. */
interface Peer {
  readonly rank: number;
  readonly nodeId: number;
  readonly shortSegment: RemoteSegment;
  readonly ringMap: SciMap;
  readonly ringSequence: Sequence;
  readonly out: ShortRingSender;
  /** Our one-sided area in the peer's short segment (we write it remotely). */
  readonly osMap: SciMap;
  readonly inMap: SciMap;
  readonly in: ShortRingReceiver;
  /** Word index of the peer's one-sided area in our short segment (it writes, we read locally). */
  readonly osIndex: number;
  readonly interrupt: RemoteInterrupt;
  readonly visit: ShortVisit;
  /** Dynamic eager, sender side: bytes written into our slice of the peer's eager ring. */
  eagerWritten: number;
  /** Static eager, sender side: indices of our free buffers in the peer's slice, and frees seen. */
  readonly freeStack: Int32Array;
  freeTop: number;
  freesSeen: number;
  /** Receiver side: our read position in the peer's slice of our eager ring, and static frees written. */
  eagerRead: number;
  frees: number;
  /** CTS grants received, by receive request, until startPush takes them. */
  readonly grants: Map<number, number>;
  /** Device control messages that found the ring full, in order. */
  readonly pendingControls: Int32Array[];
}

/** A rendezvous send streaming into the receiver's pool. */
interface Push {
  readonly peer: Peer;
  readonly source: Uint8Array;
  readonly packed: PackedData | null;
  readonly total: number;
  readonly rreqId: number;
  sent: number;
  grantOffset: number;
  grantLeft: number;
  roundPos: number;
  resource: Resource | null;
  /** A block handed to the DMA engine and not yet announced: its length (0: none). */
  dmaBlock: number;
}

/** A rendezvous receive: blocks arrive in our pool part and are copied out. */
interface Expect {
  readonly peer: Peer;
  readonly dest: Uint8Array;
  readonly packed: PackedData | null;
  readonly fits: number;
  readonly total: number;
  received: number;
  part: number;
}

/**
 * ch_sci: the device between SCI nodes (003a §2 and §4), built only on what SCI offers between
 * nodes: remote stores into mapped segments, remote loads (for credits only), store barriers,
 * sequence checks, interrupts and DMA. No CPU atomics touch another rank's memory: every word
 * of another rank's segment is written by exactly one process.
 *
 * Every rank exports three segments: the short segment (a short ring per sender plus a
 * one-sided area per peer, connected statically by every peer at Init), the eager segment (a
 * slice per sender, connected by a sender on its first eager message through the resource
 * cache) and the rendezvous pool (TSMPI_SCI_POOL_PARTS grants of TSMPI_SCI_RNDV_BYTES).
 *
 *   short       message inside the short ring (ShortRingSender: CRC, ID word, sequence-checked)
 *   eager       data written into our slice of the receiver's eager segment (checked), then
 *               an EAGER control message naming where; the receiver frees the space by a
 *               remote store into our one-sided area (dynamic: its read position; static: the
 *               buffer's index into a free ring)
 *   rendezvous  RTS → the receive matches → CTS carries the grant (pool offset, S_in bytes) →
 *               blocks of S_pipe by PIO (or DMA from TSMPI_SCI_DMA_MIN), each announced by
 *               BLOCK_READY and copied out at once → after the last block of a round, OK_TO_SEND
 *               grants the next round → the engine's FIN when all arrived.
 *
 * Non-contiguous data is packed straight into the remote slice, pool or DMA staging buffer and
 * unpacked straight out of the local pool (003b §1, direct packing).
 */
export class SciDevice implements Device {
  readonly name = 'ch_sci';
  readonly limits: DeviceLimits;
  readonly wake: SciWake;
  readonly cache: ResourceCache;
  readonly counters = {
    short: 0, eager: 0, eagerFull: 0, ringFull: 0, poolFull: 0, blocks: 0, dmaBlocks: 0, dataRetries: 0,
    dmaRetries: 0, interrupts: 0, resourceWaits: 0,
  };
  private sink: PacketSink | null = null;
  private readonly peerOf: (Peer | null)[];
  private readonly peers: Peer[] = [];
  private readonly ownWords: Int32Array;
  private readonly eagerView: Uint8Array | null;
  private readonly poolView: Uint8Array;
  private readonly freeParts: Int32Array;
  private freePartTop: number;
  private readonly expects = new Map<number, Expect>();
  private readonly pushes: Push[] = [];
  private dmaOwner: Push | null = null;
  private readonly staticBuffers: number;
  private readonly staticBufferBytes: number;
  private readonly hdr = new Int32Array(HDR_WORDS);
  private readonly ctl = new Uint8Array(8);
  private readonly ctlWords = new Int32Array(this.ctl.buffer);
  private relay: InterruptRelay | null = null;
  /** TSMPI_PROGRESS=thread: every message triggers the receiver's interrupt. */
  private readonly threadMode: boolean;
  /** Our doorbell cell: DMA completion wakes it. */
  private dmaWake: { cells: Int32Array; index: number } | undefined;
  private memorySerial = 0;

  private constructor(
    private readonly config: SciConfig,
    private readonly desc: Descriptor,
    private readonly rank: number,
    private readonly size: number,
    private readonly short: Exported,
    private readonly eager: Exported | null,
    private readonly pool: Exported,
    private readonly dma: { segment: LocalSegment; map: SciMap; queue: DmaQueue } | null,
    private readonly interrupt: LocalInterrupt,
    doorbell: DoorbellWake,
  ) {
    this.limits = { eagerMax: config.eagerBytes > 0 ? config.eagerMax : config.shortMax, rndvDescWords: 0, shortMax: config.shortMax };
    this.cache = new ResourceCache(desc, config.cache);
    this.peerOf = new Array<Peer | null>(size).fill(null);
    this.ownWords = short.map.words;
    this.eagerView = eager !== null ? eager.map.bytes : null;
    this.poolView = pool.map.bytes;
    this.freeParts = Int32Array.from({ length: config.poolParts }, (_, i) => config.poolParts - 1 - i);
    this.freePartTop = config.poolParts;
    this.staticBufferBytes = roundUp(Math.max(1, config.eagerMax));
    this.staticBuffers = Math.min(Math.floor(config.eagerBytes / this.staticBufferBytes), FREE_RING_ENTRIES, 255);
    this.threadMode = config.progress === 'thread';
    this.wake = new SciWake(doorbell, this.threadMode, () => this.peers, OS_ASLEEP);
  }

  /**
   * Step 1 of bootstrap, before the business cards are exchanged: opens SISCI, exports our
   * segments and our interrupt (number = world rank, relayed into our doorbell cell).
   */
  static export(config: SciConfig, desc: Descriptor, rank: number, size: number, doorbell: DoorbellWake,
                doorbellCells: Int32Array, doorbellIndex: number): SciDevice {
    const made: LocalSegment[] = [];
    const exportSegment = (kind: number, bytes: number): Exported => {
      const segment = desc.createSegment(segmentIdOf(rank, kind), bytes);
      made.push(segment);
      const map = segment.map();
      if (kind !== KIND_DMA) segment.setAvailable();
      return { segment, map };
    };
    try {
      const short = exportSegment(KIND_SHORT, shortSegmentBytes(config, size));
      const eager = config.eagerBytes > 0 ? exportSegment(KIND_EAGER, config.eagerBytes * size) : null;
      const pool = exportSegment(KIND_POOL, config.rndvBytes * config.poolParts);
      let dma = null;
      if (config.dmaMin > 0) {
        const staging = exportSegment(KIND_DMA, roundUp(config.block, DMA_ALIGN));
        dma = { ...staging, queue: desc.createDmaQueue(1) };
      }
      const interrupt = desc.createInterrupt(rank);
      const dev = new SciDevice(config, desc, rank, size, short, eager, pool, dma, interrupt, doorbell);
      dev.relay = interrupt.relay(doorbellCells, doorbellIndex);
      dev.dmaWake = { cells: doorbellCells, index: doorbellIndex };
      return dev;
    } catch (e) {
      for (const s of made) {
        try { s.remove(); } catch { /* already failing */ }
      }
      throw e;
    }
  }

  /** Step 2, after every rank exported: connects statically to the short segment and interrupt of each peer. */
  connect(peers: readonly { rank: number; nodeId: number }[]): void {
    const region = regionBytes(this.config.slots);
    const osBase = this.size * region;
    for (const { rank, nodeId } of peers) {
      const shortSegment = this.desc.connect(nodeId, segmentIdOf(rank, KIND_SHORT), CONNECT_TIMEOUT_MS);
      const ringMap = shortSegment.map(this.rank * region, region);
      const ringSequence = ringMap.sequence();
      const osMap = shortSegment.map(osBase + this.rank * ONE_SIDED_BYTES, ONE_SIDED_BYTES);
      const inMap = this.short.segment.map(rank * region, region);
      const peer: Peer = {
        rank, nodeId, shortSegment, ringMap, ringSequence, osMap, inMap,
        out: new ShortRingSender(ringMap, ringSequence, this.config.slots),
        in: new ShortRingReceiver(inMap, this.config.slots),
        osIndex: (osBase + rank * ONE_SIDED_BYTES) >> 2,
        interrupt: this.desc.connectInterrupt(nodeId, rank, CONNECT_TIMEOUT_MS),
        visit: null as unknown as ShortVisit,
        eagerWritten: 0,
        freeStack: Int32Array.from({ length: this.staticBuffers }, (_, i) => i),
        freeTop: this.staticBuffers, freesSeen: 0, eagerRead: 0, frees: 0,
        grants: new Map(), pendingControls: [],
      };
      (peer as { visit: ShortVisit }).visit = (w, at, bytes, off, len) => this.onMessage(peer, w, at, bytes, off, len);
      this.peerOf[rank] = peer;
      this.peers.push(peer);
    }
    trace('rank %d: %d ch_sci peers, eager %s, cache %s, progress %s', this.rank, peers.length, this.config.eager,
      this.config.cache, this.config.progress);
  }

  /** Our SCI node id, published in the business card. */
  get nodeId(): number {
    return this.desc.nodeId();
  }

  init(sink: PacketSink): void {
    this.sink = sink;
  }

  reachable(worldRank: number): boolean {
    return this.peerOf[worldRank] !== null;
  }

  /** Sum of the short rings' counters (retries are rewrites after a failed sequence check). */
  ringCounters(): { messages: number; retries: number; creditReads: number; crcMismatches: number } {
    const c = { messages: 0, retries: 0, creditReads: 0, crcMismatches: 0 };
    for (const p of this.peers) {
      c.messages += p.out.counters.messages;
      c.retries += p.out.counters.retries;
      c.creditReads += p.out.counters.creditReads;
      c.crcMismatches += p.in.counters.crcMismatches;
    }
    return c;
  }

  // ---------------------------------------------------------------- sending

  sendPacket(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
             packed: PackedData | null = null): SendResult {
    const p = this.peerOf[peer]!;
    const type = hdr[W_TYPE]! & 0xff;
    if (type === PKT_EAGER && len > this.config.shortMax) return this.sendEager(p, hdr, payload, off, len, packed);
    if (type === PKT_CTS) return this.sendGrant(p, hdr);
    if (!p.out.send(hdr, payload, off, len, packed)) {
      this.counters.ringFull++;
      return NO_ROOM;
    }
    if (type === PKT_EAGER) this.counters.short++;
    this.notify(p);
    return SENT;
  }

  /** Eager (003a §2.3): the data into our slice of the receiver's eager segment, then a control message. */
  private sendEager(p: Peer, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
                    packed: PackedData | null): SendResult {
    const bytes = this.config.eagerBytes;
    if (bytes === 0 || len > this.config.eagerMax) return NO_EAGER_ROOM;
    if (!p.out.canSend(8)) {
      this.counters.ringFull++;
      return NO_ROOM;
    }
    const block = roundUp(len);
    let offset: number;
    let token: number;
    if (this.config.eager === 'dynamic') {
      const pos = p.eagerWritten % bytes;
      const skip = pos + block > bytes ? bytes - pos : 0;
      const used = ((p.eagerWritten | 0) - Atomics.load(this.ownWords, p.osIndex + OS_DYN_READ)) | 0;
      if (bytes - used < skip + block) {
        this.counters.eagerFull++;
        return NO_EAGER_ROOM;
      }
      offset = skip > 0 ? 0 : pos;
      token = skip + block;
    } else {
      if (p.freeTop === 0) this.reclaimBuffers(p);
      if (p.freeTop === 0) {
        this.counters.eagerFull++;
        return NO_EAGER_ROOM;
      }
      token = p.freeStack[--p.freeTop]!;
      offset = token * this.staticBufferBytes;
    }
    const r = this.cache.acquire(p.nodeId, segmentIdOf(p.rank, KIND_EAGER), p.rank, 'eager', this.rank * bytes, bytes);
    if (r === null) {
      if (this.config.eager === 'static') p.freeStack[p.freeTop++] = token;
      this.counters.resourceWaits++;
      return NO_EAGER_ROOM;
    }
    try {
      this.writeChecked(r, offset, payload, off, 0, len, packed);
    } finally {
      this.cache.release(r);
    }
    const h = this.hdr;
    for (let i = 1; i < HDR_WORDS; i++) h[i] = hdr[i]!;
    h[W_TYPE] = h[W_TYPE]! | DEV_IN_SLICE;
    this.ctlWords[0] = offset;
    this.ctlWords[1] = token;
    p.out.send(h, this.ctl, 0, 8);
    if (this.config.eager === 'dynamic') p.eagerWritten += token;
    this.counters.eager++;
    this.notify(p);
    return SENT;
  }

  /** Static eager: takes the buffers the receiver freed from the ring in our one-sided area. */
  private reclaimBuffers(p: Peer): void {
    for (;;) {
      const word = Atomics.load(this.ownWords, p.osIndex + OS_FREE_RING + (p.freesSeen % FREE_RING_ENTRIES));
      if ((word >>> 8) !== ((p.freesSeen + 1) & 0xffffff)) return;
      p.freeStack[p.freeTop++] = word & 0xff;
      p.freesSeen++;
    }
  }

  /**
   * Writes source bytes [from, from + len) (or packed bytes of `packed`) to `at` of a mapped
   * remote resource and checks the sequence, writing again while it says RETRIABLE. The check
   * includes a store barrier, so the data are visible before any later control message.
   */
  private writeChecked(r: Resource, at: number, source: Uint8Array | null, srcOff: number, from: number, len: number,
                       packed: PackedData | null): void {
    if (packed === null) {
      this.counters.dataRetries += r.sequence.writeChecked(at, source!, srcOff + from, len, MAX_RETRIES);
      return;
    }
    for (let attempt = 0; ; attempt++) {
      r.sequence.start();
      packed.pack(from, len, r.map.bytes, at);
      if (r.sequence.check() === SEQ_OK) return;
      if (attempt === MAX_RETRIES) throw new Error(`ch_sci: a transfer into segment ${r.segment.id} of SCI node ${r.segment.nodeId} failed its sequence check ${MAX_RETRIES + 1} times`);
      this.counters.dataRetries++;
    }
  }

  /**
   * CTS is the thesis's OK_TO_SEND: it takes a part of our pool for the receive (NO_ROOM while
   * every part serves another transfer: the engine retries) and carries the grant.
   */
  private sendGrant(p: Peer, hdr: Int32Array): SendResult {
    const x = this.expects.get(hdr[W_RREQ]!)!;
    if (x.part < 0) {
      if (this.freePartTop === 0) {
        this.counters.poolFull++;
        return NO_ROOM;
      }
      x.part = this.freeParts[--this.freePartTop]!;
    }
    this.ctlWords[0] = x.part * this.config.rndvBytes;
    this.ctlWords[1] = Math.min(x.total - x.received, this.config.rndvBytes);
    if (!p.out.send(hdr, this.ctl, 0, 8)) {
      this.counters.ringFull++;
      return NO_ROOM;
    }
    this.notify(p);
    return SENT;
  }

  /** Device control message; queued when the ring is full and sent by the next poll. */
  private sendControl(p: Peer, type: number, a: number, b: number, c: number, d: number, e: number): void {
    const h = this.hdr;
    h[0] = 0;
    h[W_TYPE] = type;
    h[2] = a;
    h[3] = b;
    h[4] = c;
    h[5] = d;
    h[6] = e;
    h[7] = 0;
    if (p.pendingControls.length === 0 && p.out.send(h, null, 0, 0)) {
      this.notify(p);
      return;
    }
    p.pendingControls.push(h.slice());
  }

  private flushControls(p: Peer): number {
    let n = 0;
    while (p.pendingControls.length > 0 && p.out.send(p.pendingControls[0]!, null, 0, 0)) {
      p.pendingControls.shift();
      n++;
    }
    if (n > 0) this.notify(p);
    return n;
  }

  /**
   * Wakes the peer if it needs it: in thread mode after every message (its device thread waits
   * on the interrupt), in poll mode only when it announced sleep in our one-sided area (read
   * locally; our message's sequence check included a store barrier, and the peer's flag write
   * one, so either it sees the message before sleeping or we see its flag).
   */
  private notify(p: Peer): void {
    if (this.threadMode || Atomics.load(this.ownWords, p.osIndex + OS_ASLEEP) !== 0) {
      p.interrupt.trigger();
      this.counters.interrupts++;
    }
  }

  // ---------------------------------------------------------------- receiving

  poll(): number {
    let handled = 0;
    const peers = this.peers;
    for (let i = 0; i < peers.length; i++) {
      const p = peers[i]!;
      if (p.pendingControls.length > 0) handled += this.flushControls(p);
      handled += p.in.poll(p.visit);
      // Credits returned: a sender that ran out may be asleep waiting for them.
      if (p.in.published) this.notify(p);
    }
    if (this.pushes.length > 0) handled += this.progressPushes();
    return handled;
  }

  private onMessage(p: Peer, w: Int32Array, at: number, bytes: Uint8Array, off: number, len: number): void {
    const info = w[at + W_TYPE]!;
    const type = info & 0xff;
    if (type === DEV_BLOCK_READY) return this.onBlockReady(p, w, at);
    if (type === DEV_OK_TO_SEND) return this.onRegrant(p, w, at);
    if (type === PKT_EAGER && (info & DEV_IN_SLICE) !== 0) return this.onEagerInSlice(p, w, at, bytes, off);
    if (type === PKT_CTS) p.grants.set(w[at + W_RREQ]!, readPair(bytes, off));
    this.sink!.onPacket(p.rank, w, at, bytes, off, len);
  }

  private onEagerInSlice(p: Peer, w: Int32Array, at: number, bytes: Uint8Array, off: number): void {
    const offset = readInt(bytes, off);
    const token = readInt(bytes, off + 4);
    this.sink!.onPacket(p.rank, w, at, this.eagerView!, p.rank * this.config.eagerBytes + offset, w[at + W_LEN]!);
    // The engine copied what it keeps: free the space with one remote store into the sender's area.
    if (this.config.eager === 'dynamic') {
      p.eagerRead += token;
      p.osMap.words[OS_DYN_READ] = p.eagerRead | 0;
    } else {
      p.osMap.words[OS_FREE_RING + (p.frees % FREE_RING_ENTRIES)] = (((p.frees + 1) & 0xffffff) << 8) | token;
      p.frees++;
    }
  }

  // ---------------------------------------------------------------- rendezvous

  describeSource(): object | null {
    return null;
  }

  /** The sender's memory is not exported: the data always come by push, after the grant. */
  pull(): boolean {
    return false;
  }

  expectPush(peer: number, rreqId: number, dest: Uint8Array, packed: PackedData | null, fits: number, total: number): void {
    this.expects.set(rreqId, { peer: this.peerOf[peer]!, dest, packed, fits, total, received: 0, part: -1 });
  }

  startPush(peer: number, source: Uint8Array, packed: PackedData | null, rreqId: number): void {
    const p = this.peerOf[peer]!;
    const grant = p.grants.get(rreqId)!;
    p.grants.delete(rreqId);
    const push: Push = {
      peer: p, source, packed, total: packed !== null ? packed.length : source.length, rreqId, sent: 0,
      grantOffset: grant % 0x100000000, grantLeft: Math.floor(grant / 0x100000000), roundPos: 0, resource: null, dmaBlock: 0,
    };
    this.pushes.push(push);
    this.progressPush(push);
  }

  private progressPushes(): number {
    let moved = 0;
    // Backwards: a finished push removes itself from the list.
    for (let i = this.pushes.length - 1; i >= 0; i--) moved += this.progressPush(this.pushes[i]!);
    return moved;
  }

  /** Writes and announces the blocks the current grant allows; returns blocks announced. */
  private progressPush(push: Push): number {
    let moved = 0;
    const p = push.peer;
    if (push.dmaBlock > 0) {
      if (!this.finishDma(push)) return 0;
      moved++;
    }
    while (push.grantLeft > 0 && push.sent < push.total) {
      if (push.resource === null) {
        const poolBytes = this.config.rndvBytes * this.config.poolParts;
        push.resource = this.cache.acquire(p.nodeId, segmentIdOf(p.rank, KIND_POOL), p.rank, 'pool', 0, poolBytes);
        if (push.resource === null) {
          this.counters.resourceWaits++;
          break;
        }
      }
      if (!p.out.canSend(0)) break;
      const n = Math.min(this.config.block, push.grantLeft, push.total - push.sent);
      const at = push.grantOffset + push.roundPos;
      if (this.dma !== null && n >= this.config.dmaMin) {
        if (this.dmaOwner !== null) break;
        this.startDma(push, at, n);
        break;
      }
      this.writeChecked(push.resource, at, push.source, 0, push.sent, n, push.packed);
      this.announceBlock(push, at, n);
      moved++;
    }
    if (push.sent >= push.total && push.dmaBlock === 0) {
      if (push.resource !== null) this.cache.release(push.resource);
      push.resource = null;
      this.pushes.splice(this.pushes.indexOf(push), 1);
    }
    return moved;
  }

  /** DMA (003c §2.2): pack the block into our staging segment, let the adapter carry it. */
  private startDma(push: Push, at: number, n: number): void {
    const dma = this.dma!;
    if (push.packed !== null) push.packed.pack(push.sent, n, dma.map.bytes, 0);
    else copyBytes(push.source, push.sent, dma.map.bytes, 0, n);
    dma.queue.enqueue(dma.segment, 0, push.resource!.segment, at, roundUp(n, DMA_ALIGN));
    dma.queue.post(this.dmaWake);
    this.dmaOwner = push;
    push.dmaBlock = n;
  }

  /** True when the push's DMA block is done and announced; a failed transfer is posted again. */
  private finishDma(push: Push): boolean {
    const queue = this.dma!.queue;
    const state = queue.state();
    if (state === DMA_POSTED) return false;
    if (state === DMA_ERROR) {
      this.counters.dmaRetries++;
      queue.reset();
      const at = push.grantOffset + push.roundPos;
      queue.enqueue(this.dma!.segment, 0, push.resource!.segment, at, roundUp(push.dmaBlock, DMA_ALIGN));
      queue.post(this.dmaWake);
      return false;
    }
    if (state !== DMA_DONE) throw new Error(`ch_sci: DMA queue in unexpected state ${state}`);
    if (!push.peer.out.canSend(0)) return false;
    queue.reset();
    const n = push.dmaBlock;
    push.dmaBlock = 0;
    this.dmaOwner = null;
    this.counters.dmaBlocks++;
    this.announceBlock(push, push.grantOffset + push.roundPos, n);
    return true;
  }

  private announceBlock(push: Push, at: number, n: number): void {
    const last = push.grantLeft === n || push.sent + n === push.total ? 1 : 0;
    this.sendControl(push.peer, DEV_BLOCK_READY, push.rreqId, push.sent, n, at, last);
    push.sent += n;
    push.roundPos += n;
    push.grantLeft -= n;
    this.counters.blocks++;
  }

  /** Receiver: a block is in our pool; copy (or unpack) it out, grant the next round after the last. */
  private onBlockReady(p: Peer, w: Int32Array, at: number): void {
    const rreq = w[at + 2]!;
    const from = w[at + 3]!;
    const n = w[at + 4]!;
    const poolOff = w[at + 5]!;
    const x = this.expects.get(rreq)!;
    const fits = Math.max(0, Math.min(n, x.fits - from));
    if (fits > 0) {
      if (x.packed !== null) x.packed.unpack(this.poolView, poolOff, from, fits);
      else copyBytes(this.poolView, poolOff, x.dest, from, fits);
    }
    x.received += n;
    if (x.received >= x.total) {
      this.freeParts[this.freePartTop++] = x.part;
      this.expects.delete(rreq);
      this.sink!.onPushComplete(rreq);
      return;
    }
    if (w[at + 6] === 1) {
      this.sendControl(p, DEV_OK_TO_SEND, rreq, x.part * this.config.rndvBytes,
        Math.min(x.total - x.received, this.config.rndvBytes), 0, 0);
    }
  }

  /** Sender: the next round's grant. */
  private onRegrant(p: Peer, w: Int32Array, at: number): void {
    const rreq = w[at + 2]!;
    for (const push of this.pushes) {
      if (push.peer === p && push.rreqId === rreq) {
        push.grantOffset = w[at + 3]!;
        push.grantLeft = w[at + 4]!;
        push.roundPos = 0;
        this.progressPush(push);
        return;
      }
    }
    throw new Error(`ch_sci: OK_TO_SEND from rank ${p.rank} for unknown transfer ${rreq}`);
  }

  // ---------------------------------------------------------------- memory for one-sided access

  /**
   * Exports `bytes` of memory that ranks of every SCI node can map (one-sided windows, their
   * lock areas, MPI.Alloc_mem with info type=shared; 003b §3.1): a segment of its own, with an
   * id unique on our node (ids above the device's own, numbered per rank).
   */
  exportMemory(bytes: number): ExposedMemory {
    const id = MEMORY_ID_BASE + this.rank * MEMORY_IDS_PER_RANK + (this.memorySerial++ % MEMORY_IDS_PER_RANK);
    // Whole lines, so that the memory is whole words for Atomics.
    const segment = this.desc.createSegment(id, Math.ceil(Math.max(bytes, 64) / 64) * 64);
    const map = segment.map();
    segment.setAvailable();
    return {
      id, bytes: map.bytes.subarray(0, bytes), words: map.words,
      write: (offset, src, srcOffset, length) => { map.bytes.set(src.subarray(srcOffset, srcOffset + length), offset); },
      storeBarrier: () => undefined,
      remove: () => {
        map.unmap();
        segment.remove();
      },
    };
  }

  /** Maps memory rank `rank` (on SCI node `nodeId`) exported as `id`: loads and stores reach it, writes are checked. */
  mapMemory(nodeId: number, id: number, bytes: number): MappedMemory {
    const segment = this.desc.connect(nodeId, id, CONNECT_TIMEOUT_MS);
    const map = segment.map(0, Math.ceil(Math.max(bytes, 64) / 64) * 64);
    const sequence = map.sequence();
    return {
      bytes: map.bytes.subarray(0, bytes), words: map.words,
      write: (offset, src, srcOffset, length) => {
        this.counters.dataRetries += sequence.writeChecked(offset, src, srcOffset, length, MAX_RETRIES);
      },
      storeBarrier: () => sequence.storeBarrier(),
      release: () => {
        sequence.remove();
        map.unmap();
        segment.disconnect();
      },
    };
  }

  // ---------------------------------------------------------------- teardown

  /**
   * Finalize, step 1 (before the last fence): releases every remote resource, static and
   * cached, and stops listening for interrupts. Our own segments stay until step 2, since
   * peers may still be connected to them.
   */
  disconnect(): void {
    this.cache.clear();
    for (const p of this.peers) {
      p.ringSequence.remove();
      p.ringMap.unmap();
      p.osMap.unmap();
      p.inMap.unmap();
      p.shortSegment.disconnect();
      p.interrupt.disconnect();
    }
    if (this.relay !== null) this.relay.stop();
    this.relay = null;
  }

  /** Finalize, step 2 (after every rank disconnected): removes our segments and interrupt. */
  removeExported(): void {
    const own = [this.short, this.eager, this.pool, this.dma].filter((e) => e !== null);
    if (this.dma !== null) this.dma.queue.remove();
    for (const e of own) {
      e.map.unmap();
      e.segment.remove();
    }
    this.interrupt.remove();
    this.desc.close();
  }

  /** A failed bootstrap: undo what can be undone (tsmpiexec sweeps the rest with the job's segments). */
  abandon(): void {
    try {
      this.disconnect();
      this.removeExported();
    } catch (e) {
      trace('abandon: %s', (e as Error).message);
    }
  }

  finalize(): void {
    this.sink = null;
  }
}

function readInt(b: Uint8Array, off: number): number {
  return b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16) | (b[off + 3]! << 24);
}

/** A CTS grant (pool offset, bytes) packed into one number: bytes * 2^32 + offset. */
function readPair(b: Uint8Array, off: number): number {
  return (readInt(b, off + 4) >>> 0) * 0x100000000 + (readInt(b, off) >>> 0);
}
