import { SLOT_BYTES } from './frame.js';
import { HEADER_BYTES } from './rank-segment.js';
import type { ShmemConfig } from './config.js';

/**
 * Where things are in a rank's segment. The receiver owns the segment; each sender s has one
 * pair region in it, written by s (ring slots, eager data, bounce chunks) and by the receiver
 * (its consumer counters, chunk releases). Offsets are in bytes and 128-byte aligned, so the
 * producer's and the consumer's words never share a cache line.
 *
 *   segment:  [rank header 64 B][pad to 128][pair region of sender 0][... sender 1] ...
 *
 *   pair region of sender s:
 *   +0                  consumer line: CONS_SLOTS, CONS_EAGER (written by the receiver only)
 *   +128                bounce chunk table: per chunk FLAG, RREQ, LEN, INDEX (4 words); INDEX
 *                       is the chunk's place in its transfer, whose bytes it holds from INDEX x
 *                       bounceChunk on: a byte offset would pass 2^31 in a 2 GiB message, a
 *                       chunk number only in an 8 TiB one
 *   +256                ring: `slots` x 128 B; a packet starts with its frame (below), stored
 *                       last, and its payload follows inline or lies in the eager ring
 *   +256 + ring         eager ring: `eagerBytes`, written in FIFO order, wraps to 0 when a
 *                       message does not fit before the end; payloads up to 4 KiB start on a
 *                       cell of their size (eagerCellPad below)
 *   + ... eager         bounce chunks: `bounceChunks` x `bounceChunk` bytes
 */
export { F_HEADER, F_INFO, FRAME_BYTES, INFO_IN_EAGER_RING, INFO_LEN_MASK, INFO_SKIP, SLOT_BYTES } from './frame.js';
export const SLOT_WORDS = SLOT_BYTES / 4;
export const CONSUMER_LINE = 0;
export const CONS_SLOTS = 0;
export const CONS_EAGER = 1;
export const CHUNK_TABLE = 128;
export const CHUNK_FLAG = 0;
export const CHUNK_RREQ = 1;
export const CHUNK_LEN = 2;
export const CHUNK_INDEX = 3;
export const CHUNK_ENTRY_WORDS = 4;
const RING = 256;

export class PairLayout {
  readonly ringOffset = RING;
  readonly eagerOffset: number;
  readonly bounceOffset: number;
  readonly bytes: number;

  constructor(readonly config: ShmemConfig) {
    this.eagerOffset = RING + config.slots * SLOT_BYTES;
    this.bounceOffset = this.eagerOffset + config.eagerBytes;
    this.bytes = this.bounceOffset + config.bounceChunks * config.bounceChunk;
  }

  /** Byte offset of sender s's pair region in a segment. */
  pairOffset(sender: number): number {
    return SEGMENT_HEADER + sender * this.bytes;
  }

  segmentBytes(worldSize: number): number {
    return SEGMENT_HEADER + worldSize * this.bytes;
  }
}

const SEGMENT_HEADER = Math.ceil(HEADER_BYTES / SLOT_BYTES) * SLOT_BYTES;

/**
 * Eager payloads up to EAGER_CELL_MAX bytes start at a multiple of their size rounded up to a
 * power of two (at least EAGER_CELL_MIN), so they never wrap and a stream of equal messages
 * lands on the same few hundred ring positions lap after lap: the receiver keeps a view of each
 * (device.ts) and copies out of the ring without making one per message. Both sides skip the same
 * pad, computed from the ring position and the length alone.
 */
export const EAGER_CELL_MIN = 64;
export const EAGER_CELL_MAX = 4096;

/** Bytes the eager ring skips so a payload of `len` bytes at ring position `pos` starts on its cell. */
export function eagerCellPad(pos: number, len: number): number {
  if (len > EAGER_CELL_MAX) return 0;
  const cell = len <= EAGER_CELL_MIN ? EAGER_CELL_MIN : 1 << (32 - Math.clz32(len - 1));
  return -pos & (cell - 1);
}
