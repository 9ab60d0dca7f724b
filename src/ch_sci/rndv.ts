// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { copyBytes } from '../common/copy.js';
import { NO_GRANT, type PackedData } from '../mpid/device.js';
import { DMA_DONE, DMA_ERROR, DMA_POSTED, type DmaQueue, type LocalSegment, type SciMap } from '../sisci/index.js';
import { roundUp, type SciConfig } from './config.js';
import {
  KIND_BLOCK_READY, KIND_OK_TO_SEND, MAX_RETRIES, type Peer, type SciCounters, SEGMENT_POOL, readInt, segmentIdOf,
  writeInt,
} from './peer.js';
import { type Resource, type ResourceCache, writeChecked } from './resources.js';

const TWO_32 = 0x100000000;

/** DMA sizes are multiples of this (SCI_Q_ADAPTER_DMA_SIZE_ALIGNMENT of the emulation). */
export const DMA_ALIGN = 8;

/** Our DMA staging segment and queue (TSMPI_SCI_DMA_MIN > 0). */
export interface Dma {
  readonly segment: LocalSegment;
  readonly map: SciMap;
  readonly queue: DmaQueue;
}

/** What the rendezvous needs of the device: its control messages and the engine's completion. */
export interface RndvHost {
  sendControl(p: Peer, kind: number, a: number, b: number, c: number, d: number, e: number, f: number): void;
  pushComplete(rreqId: number): void;
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
 * ch_sci's rendezvous (003a §2.4): the receiver's pool is TSMPI_SCI_POOL_PARTS parts of S_rdv
 * bytes. A matched receive takes a part and grants it on mpid's clear-to-send (the grant rides
 * in its payload: pool offset, bytes); the sender writes blocks of S_pipe into it by PIO (or by
 * DMA from TSMPI_SCI_DMA_MIN), announcing each with BLOCK_READY; the receiver copies each out at
 * once, and after the last block of a round grants the next with OK_TO_SEND. The engine's
 * FIN follows the last block.
 */
export class PoolRendezvous {
  private readonly expects = new Map<number, Expect>();
  private readonly pushes: Push[] = [];
  private dmaOwner: Push | null = null;
  private readonly freeParts: Int32Array;
  private freePartTop: number;

  constructor(private readonly config: SciConfig, private readonly cache: ResourceCache,
              private readonly counters: SciCounters, private readonly poolView: Uint8Array,
              private readonly dma: Dma | null, private readonly dmaWake: { cells: Int32Array; index: number },
              private readonly host: RndvHost) {
    this.freeParts = Int32Array.from({ length: config.poolParts }, (_, i) => config.poolParts - 1 - i);
    this.freePartTop = config.poolParts;
  }

  /** Sends in progress (poll drives them). */
  get pushing(): boolean {
    return this.pushes.length > 0;
  }

  expect(p: Peer, rreqId: number, dest: Uint8Array, packed: PackedData | null, fits: number, total: number): void {
    this.expects.set(rreqId, { peer: p, dest, packed, fits, total, received: 0, part: -1 });
  }

  /**
   * The first round's grant for receive `rreqId` into `grant` (pool offset, bytes); takes a
   * part of our pool (kept if the clear-to-send must wait), NO_GRANT while every part serves
   * another transfer.
   */
  grant(rreqId: number, grant: Uint8Array): number {
    const x = this.expects.get(rreqId)!;
    if (x.part < 0) {
      if (this.freePartTop === 0) {
        this.counters.poolFull++;
        return NO_GRANT;
      }
      x.part = this.freeParts[--this.freePartTop]!;
    }
    writeInt(grant, 0, x.part * this.config.rndvBytes);
    writeInt(grant, 4, Math.min(x.total - x.received, this.config.rndvBytes));
    return 8;
  }

  startPush(p: Peer, source: Uint8Array, packed: PackedData | null, rreqId: number, grant: Uint8Array, off: number): void {
    const push: Push = {
      peer: p, source, packed, total: packed !== null ? packed.length : source.length, rreqId, sent: 0,
      grantOffset: readInt(grant, off) >>> 0, grantLeft: readInt(grant, off + 4) >>> 0, roundPos: 0, resource: null, dmaBlock: 0,
    };
    this.pushes.push(push);
    this.progressPush(push);
  }

  progress(): number {
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
        push.resource = this.cache.acquire(p.nodeId, segmentIdOf(p.rank, SEGMENT_POOL), p.rank, 'pool', 0, poolBytes);
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
      this.counters.dataRetries += writeChecked(push.resource, at, push.source, 0, push.sent, n, push.packed, MAX_RETRIES);
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
    const high = Math.floor(push.sent / TWO_32);
    this.host.sendControl(push.peer, KIND_BLOCK_READY, push.rreqId, push.sent - high * TWO_32, high, n, at, last);
    push.sent += n;
    push.roundPos += n;
    push.grantLeft -= n;
    this.counters.blocks++;
  }

  /** Receiver: a block is in our pool; copy (or unpack) it out, grant the next round after the last. */
  onBlockReady(p: Peer, w: Int32Array, at: number): void {
    const rreq = w[at]!;
    const from = w[at + 2]! * TWO_32 + (w[at + 1]! >>> 0);
    const n = w[at + 3]!;
    const poolOff = w[at + 4]!;
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
      this.host.pushComplete(rreq);
      return;
    }
    if (w[at + 5] === 1) {
      this.host.sendControl(p, KIND_OK_TO_SEND, rreq, x.part * this.config.rndvBytes,
        Math.min(x.total - x.received, this.config.rndvBytes), 0, 0, 0);
    }
  }

  /** Sender: the next round's grant. */
  onRegrant(p: Peer, w: Int32Array, at: number): void {
    const rreq = w[at]!;
    for (const push of this.pushes) {
      if (push.peer === p && push.rreqId === rreq) {
        push.grantOffset = w[at + 1]!;
        push.grantLeft = w[at + 2]!;
        push.roundPos = 0;
        this.progressPush(push);
        return;
      }
    }
    throw new Error(`ch_sci: OK_TO_SEND from rank ${p.rank} for unknown transfer ${rreq}`);
  }
}
