import { HEADER_WORDS } from '../mpid/device.js';

/** One slot of a pair's ring (layout.ts): a packet's frame and the start of its payload. */
export const SLOT_BYTES = 128;
/**
 * A packet's frame at the start of its first slot: two words of ch_shmem, then mpid's opaque
 * header (device.ts), unread; an inline payload follows at FRAME_BYTES and runs on into the
 * next slots.
 *
 *   word  meaning
 *   0     sequence number: slots written before this packet + 1, stored last with Atomics
 *   1     INFO: bits 0-29 payload length (of a SKIP: slots skipped), bit 30 SKIP (the rest of
 *         the ring up to its end is unused), bit 31 IN_EAGER_RING (the payload lies in the
 *         pair's eager ring, the packet takes one slot)
 *   2..7  the opaque header
 *
 * 32 bytes: a message of up to 32 bytes stays within one cache line, and the payload is 8-byte
 * aligned as the senders' and receivers' buffers are (V8 copies SharedArrayBuffer memory a
 * word at a time only between equally aligned addresses, else byte by byte).
 */
export const F_INFO = 1;
export const F_HEADER = 2;
export const FRAME_BYTES = Math.ceil((F_HEADER + HEADER_WORDS) / 2) * 8;
export const INFO_LEN_MASK = (1 << 30) - 1;
export const INFO_SKIP = 1 << 30;
export const INFO_IN_EAGER_RING = 1 << 31;
