// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { createTrace } from '../common/trace.js';
import {
  HEADER_WORDS, HINT_MAY_BUFFER, NO_EAGER_ROOM, NO_ROOM, SENT, type Device, type DeviceLimits, type PackedData,
  type PacketSink, type RankDoorbell, type SendHint, type SendResult,
} from '../mpid/device.js';
import type { Descriptor, InterruptRelay, LocalInterrupt, LocalSegment, SciMap } from '../sisci/index.js';
import {
  FREE_RING_ENTRIES, ONE_SIDED_BYTES, OS_ASLEEP, OS_DYN_READ, OS_FREE_RING, type SciConfig, roundUp, shortSegmentBytes,
} from './config.js';
import { SciMemory } from './memory.js';
import {
  CONNECT_TIMEOUT_MS, KIND_BLOCK_READY, KIND_EAGER_SLICE, KIND_OK_TO_SEND, KIND_PACKET, MAX_RETRIES, type Peer,
  type SciCounters, SEGMENT_DMA, SEGMENT_EAGER, SEGMENT_POOL, SEGMENT_SHORT, readInt, segmentIdOf,
} from './peer.js';
import { ResourceCache, writeChecked } from './resources.js';
import { DMA_ALIGN, type Dma, PoolRendezvous } from './rndv.js';
import { ShortRingReceiver, ShortRingSender, type ShortVisit, regionBytes } from './short-ring.js';

const trace = createTrace('tsmpi:sci');

/** Where a device control message keeps its kind in the scratch and in a queued copy: after the carried words. */
const CONTROL_KIND_WORD = HEADER_WORDS;

/** Bytes of an eager-slice notice on the short ring: offset, token, length. */
const SLICE_NOTICE_BYTES = 12;

/** Our own exported segments. */
interface Exported {
  readonly segment: LocalSegment;
  readonly map: SciMap;
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
 *   short       packet inside the short ring (ShortRingSender: CRC, ID word, sequence-checked):
 *               control packets, and message data up to TSMPI_SCI_SHORT_MAX
 *   eager       data written into our slice of the receiver's eager segment (checked), then
 *               an EAGER_SLICE notice carrying mpid's header and where the data lie; the
 *               receiver frees the space by a remote store into our one-sided area (dynamic:
 *               its read position; static: the buffer's index into a free ring)
 *   rendezvous  through the receiver's pool, granted on mpid's clear-to-send (rndv.ts)
 *
 * mpid's header is carried unread: what to do with a packet comes from the send hint, and the
 * device's own messages are told apart by the ring's kind field (peer.ts).
 *
 * Non-contiguous data is packed straight into the remote slice, pool or DMA staging buffer and
 * unpacked straight out of the local pool (003b §1, direct packing).
 */
export class SciDevice implements Device {
  readonly name = 'ch_sci';
  readonly limits: DeviceLimits;
  readonly cache: ResourceCache;
  readonly counters: SciCounters = {
    short: 0, eager: 0, eagerFull: 0, ringFull: 0, poolFull: 0, blocks: 0, dmaBlocks: 0, dataRetries: 0,
    dmaRetries: 0, interrupts: 0, resourceWaits: 0,
  };
  readonly rma: SciMemory;
  private sink: PacketSink | null = null;
  private readonly peerOf: (Peer | null)[];
  private readonly peers: Peer[] = [];
  private readonly ownWords: Int32Array;
  private readonly eagerView: Uint8Array | null;
  private readonly rndv: PoolRendezvous;
  private readonly staticBuffers: number;
  private readonly staticBufferBytes: number;
  /** Scratch for the device's own control messages and for the eager-slice notice. */
  private readonly ctlHdr = new Int32Array(CONTROL_KIND_WORD + 1);
  private readonly notice = new Uint8Array(SLICE_NOTICE_BYTES);
  private readonly noticeWords = new Int32Array(this.notice.buffer);
  private relay: InterruptRelay | null = null;
  /** TSMPI_PROGRESS=thread: every message triggers the receiver's interrupt. */
  private readonly threadMode: boolean;

  private constructor(
    private readonly config: SciConfig,
    private readonly desc: Descriptor,
    private readonly rank: number,
    private readonly size: number,
    private readonly short: Exported,
    private readonly eager: Exported | null,
    private readonly pool: Exported,
    private readonly dma: Dma | null,
    private readonly interrupt: LocalInterrupt,
    doorbell: RankDoorbell,
  ) {
    this.limits = { eagerMax: config.eagerBytes > 0 ? config.eagerMax : config.shortMax, rndvDescWords: 0, shortMax: config.shortMax };
    this.cache = new ResourceCache(desc, config.cache);
    this.rma = new SciMemory(desc, rank, this.name, this.counters);
    this.peerOf = new Array<Peer | null>(size).fill(null);
    this.ownWords = short.map.words;
    this.eagerView = eager !== null ? eager.map.bytes : null;
    this.staticBufferBytes = roundUp(Math.max(1, config.eagerMax));
    this.staticBuffers = Math.min(Math.floor(config.eagerBytes / this.staticBufferBytes), FREE_RING_ENTRIES, 255);
    this.threadMode = config.progress === 'thread';
    this.rndv = new PoolRendezvous(config, this.cache, this.counters, pool.map.bytes, dma,
      { cells: doorbell.cells, index: doorbell.index }, {
        sendControl: (p, kind, a, b, c, d, e, f) => this.sendControl(p, kind, a, b, c, d, e, f),
        pushComplete: (rreqId) => this.sink!.onPushComplete(rreqId),
      });
  }

  /**
   * Step 1 of bootstrap, before the business cards are exchanged: exports our segments and our
   * interrupt (number = world rank, relayed into the rank's doorbell cell, which DMA completion
   * rings too).
   */
  static export(config: SciConfig, desc: Descriptor, rank: number, size: number, doorbell: RankDoorbell): SciDevice {
    const made: LocalSegment[] = [];
    const exportSegment = (kind: number, bytes: number): Exported => {
      const segment = desc.createSegment(segmentIdOf(rank, kind), bytes);
      made.push(segment);
      const map = segment.map();
      if (kind !== SEGMENT_DMA) segment.setAvailable();
      return { segment, map };
    };
    try {
      const short = exportSegment(SEGMENT_SHORT, shortSegmentBytes(config, size));
      const eager = config.eagerBytes > 0 ? exportSegment(SEGMENT_EAGER, config.eagerBytes * size) : null;
      const pool = exportSegment(SEGMENT_POOL, config.rndvBytes * config.poolParts);
      let dma: Dma | null = null;
      if (config.dmaMin > 0) {
        const staging = exportSegment(SEGMENT_DMA, roundUp(config.block, DMA_ALIGN));
        dma = { ...staging, queue: desc.createDmaQueue(1) };
      }
      const interrupt = desc.createInterrupt(rank);
      const dev = new SciDevice(config, desc, rank, size, short, eager, pool, dma, interrupt, doorbell);
      dev.relay = interrupt.relay(doorbell.cells, doorbell.index);
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
      const shortSegment = this.desc.connect(nodeId, segmentIdOf(rank, SEGMENT_SHORT), CONNECT_TIMEOUT_MS);
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
        pendingControls: [],
      };
      (peer as { visit: ShortVisit }).visit = (kind, w, at, bytes, off, len) => this.onMessage(peer, kind, w, at, bytes, off, len);
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
             packed: PackedData | null, hint: SendHint): SendResult {
    const p = this.peerOf[peer]!;
    if (hint === HINT_MAY_BUFFER && len > this.config.shortMax) return this.sendEager(p, hdr, payload, off, len, packed);
    if (!p.out.send(KIND_PACKET, hdr, payload, off, len, packed)) {
      this.counters.ringFull++;
      return NO_ROOM;
    }
    if (hint === HINT_MAY_BUFFER) this.counters.short++;
    this.notify(p);
    return SENT;
  }

  /** Eager (003a §2.3): the data into our slice of the receiver's eager segment, then a notice. */
  private sendEager(p: Peer, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
                    packed: PackedData | null): SendResult {
    const bytes = this.config.eagerBytes;
    if (bytes === 0 || len > this.config.eagerMax) return NO_EAGER_ROOM;
    if (!p.out.canSend(SLICE_NOTICE_BYTES)) {
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
    const r = this.cache.acquire(p.nodeId, segmentIdOf(p.rank, SEGMENT_EAGER), p.rank, 'eager', this.rank * bytes, bytes);
    if (r === null) {
      if (this.config.eager === 'static') p.freeStack[p.freeTop++] = token;
      this.counters.resourceWaits++;
      return NO_EAGER_ROOM;
    }
    try {
      this.counters.dataRetries += writeChecked(r, offset, payload, off, 0, len, packed, MAX_RETRIES);
    } finally {
      this.cache.release(r);
    }
    this.noticeWords[0] = offset;
    this.noticeWords[1] = token;
    this.noticeWords[2] = len;
    p.out.send(KIND_EAGER_SLICE, hdr, this.notice, 0, SLICE_NOTICE_BYTES);
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
   * Device control message (carried words 0..5, see peer.ts); queued when the ring is full and
   * sent by the next poll. The scratch's word after the carried ones holds the kind, so that a
   * queued copy knows it.
   */
  private sendControl(p: Peer, kind: number, a: number, b: number, c: number, d: number, e: number, f: number): void {
    const h = this.ctlHdr;
    h[0] = a;
    h[1] = b;
    h[2] = c;
    h[3] = d;
    h[4] = e;
    h[5] = f;
    h[CONTROL_KIND_WORD] = kind;
    if (p.pendingControls.length === 0 && p.out.send(kind, h, null, 0, 0)) {
      this.notify(p);
      return;
    }
    p.pendingControls.push(h.slice());
  }

  private flushControls(p: Peer): number {
    let n = 0;
    while (p.pendingControls.length > 0) {
      const h = p.pendingControls[0]!;
      if (!p.out.send(h[CONTROL_KIND_WORD]!, h, null, 0, 0)) break;
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

  /**
   * Poll mode: before the rank sleeps, ASLEEP = 1 goes into its one-sided area in every peer's
   * short segment, then a store barrier; a peer reads that word locally after each message it
   * sends and triggers our interrupt (relayed into the doorbell) while it is set. So neither
   * side misses the other, and a busy rank costs its peers nothing but a local load per
   * message. Thread mode: peers trigger on every message, nothing to announce.
   */
  announceSleep(asleep: boolean): void {
    if (this.threadMode) return;
    const peers = this.peers;
    const flag = asleep ? 1 : 0;
    for (let i = 0; i < peers.length; i++) peers[i]!.osMap.words[OS_ASLEEP] = flag;
    if (asleep && peers.length > 0) peers[0]!.ringSequence.storeBarrier();
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
    if (this.rndv.pushing) handled += this.rndv.progress();
    return handled;
  }

  private onMessage(p: Peer, kind: number, w: Int32Array, at: number, bytes: Uint8Array, off: number, len: number): void {
    switch (kind) {
      case KIND_PACKET:
        this.sink!.onPacket(p.rank, w, at, bytes, off, len);
        return;
      case KIND_EAGER_SLICE:
        this.onEagerInSlice(p, w, at, bytes, off);
        return;
      case KIND_BLOCK_READY:
        this.rndv.onBlockReady(p, w, at);
        return;
      case KIND_OK_TO_SEND:
        this.rndv.onRegrant(p, w, at);
        return;
      default:
        throw new Error(`ch_sci: message of unknown kind ${kind} from rank ${p.rank}`);
    }
  }

  private onEagerInSlice(p: Peer, w: Int32Array, at: number, bytes: Uint8Array, off: number): void {
    const offset = readInt(bytes, off);
    const token = readInt(bytes, off + 4);
    const len = readInt(bytes, off + 8);
    this.sink!.onPacket(p.rank, w, at, this.eagerView!, p.rank * this.config.eagerBytes + offset, len);
    // The engine copied what it keeps: free the space with one remote store into the sender's area.
    if (this.config.eager === 'dynamic') {
      p.eagerRead += token;
      p.osMap.words[OS_DYN_READ] = p.eagerRead | 0;
    } else {
      p.osMap.words[OS_FREE_RING + (p.frees % FREE_RING_ENTRIES)] = (((p.frees + 1) & 0xffffff) << 8) | token;
      p.frees++;
    }
  }

  // ---------------------------------------------------------------- rendezvous (rndv.ts)

  describeSource(): object | null {
    return null;
  }

  /** The sender's memory is not exported: the data always come by push, after the grant. */
  pull(): boolean {
    return false;
  }

  expectPush(peer: number, rreqId: number, dest: Uint8Array, packed: PackedData | null, fits: number, total: number): void {
    this.rndv.expect(this.peerOf[peer]!, rreqId, dest, packed, fits, total);
  }

  attachGrant(_peer: number, rreqId: number, grant: Uint8Array): number {
    return this.rndv.grant(rreqId, grant);
  }

  startPush(peer: number, source: Uint8Array, packed: PackedData | null, rreqId: number, grant: Uint8Array, off: number): void {
    this.rndv.startPush(this.peerOf[peer]!, source, packed, rreqId, grant, off);
  }

  // ---------------------------------------------------------------- teardown

  /**
   * Finalize, step 1 (before the last fence): releases every remote resource, static and
   * cached, and stops listening for interrupts. Our own segments stay until step 2, since
   * peers may still be connected to them.
   */
  disconnect(): void {
    this.sink = null;
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
  close(): void {
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
      this.close();
    } catch (e) {
      trace('abandon: %s', (e as Error).message);
    }
  }
}
