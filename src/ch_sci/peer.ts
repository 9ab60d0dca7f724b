import type { RemoteInterrupt, RemoteSegment, SciMap, Sequence } from '../sisci/index.js';
import type { ShortRingReceiver, ShortRingSender, ShortVisit } from './short-ring.js';

/**
 * Kinds of the messages on a short ring (its word 0, see short-ring.ts): mpid's packets, and
 * ch_sci's own. Carried words of ch_sci's own messages:
 *   KIND_PACKET       mpid's opaque header; payload inline
 *   KIND_EAGER_SLICE  mpid's opaque header; the payload lies in our slice of the receiver's eager
 *                     segment: the ring payload names where (offset, token, length; 3 words)
 *   KIND_BLOCK_READY  sender → receiver  words 0..5: rreq, stream offset (low 32 bits, high bits:
 *                     a message passes 4 GiB), bytes, pool offset, last of round
 *   KIND_OK_TO_SEND   receiver → sender  words 0..2: rreq, pool offset, bytes granted (rounds after
 *                     the first, whose grant rides on mpid's clear-to-send: attachGrant)
 */
export const KIND_PACKET = 0;
export const KIND_EAGER_SLICE = 1;
export const KIND_BLOCK_READY = 2;
export const KIND_OK_TO_SEND = 3;

/** Segment ids: unique per SCI node because world ranks are unique. */
export const SEGMENT_SHORT = 0;
export const SEGMENT_EAGER = 1;
export const SEGMENT_POOL = 2;
export const SEGMENT_DMA = 3;
export function segmentIdOf(worldRank: number, kind: number): number {
  return worldRank * 4 + kind + 1;
}

/** How long a connect may wait for a segment its owner published at Init (it is there already). */
export const CONNECT_TIMEOUT_MS = 30_000;
/** Rewrites of one data transfer before its error counts as permanent. */
export const MAX_RETRIES = 64;

/** A ch_sci peer: the static short-protocol connection and the per-pair protocol state. */
export interface Peer {
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
  /** Device control messages that found the ring full, in order. */
  readonly pendingControls: Int32Array[];
}

/** Counters read through MPI.T and the sci tests. */
export interface SciCounters {
  short: number;
  eager: number;
  eagerFull: number;
  ringFull: number;
  poolFull: number;
  blocks: number;
  dmaBlocks: number;
  dataRetries: number;
  dmaRetries: number;
  interrupts: number;
  resourceWaits: number;
}

/** Little-endian 32-bit words in byte buffers (a grant, an eager-slice notice), without a view per message. */
export function readInt(b: Uint8Array, off: number): number {
  return b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16) | (b[off + 3]! << 24);
}

export function writeInt(b: Uint8Array, off: number, v: number): void {
  b[off] = v;
  b[off + 1] = v >>> 8;
  b[off + 2] = v >>> 16;
  b[off + 3] = v >>> 24;
}
