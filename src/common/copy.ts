import { addon } from '../native/addon.js';

/**
 * Up to this many bytes a plain loop is the fastest copy and allocates nothing. Above it a
 * subarray view plus TypedArray.set wins by far (measured on Node 20: 64 B 41 vs 105 ns,
 * 1 KiB 71 vs 1630 ns), at the price of one short-lived view per copy.
 */
export const LOOP_MAX = 32;

/**
 * From this many bytes a copy into or out of a SharedArrayBuffer goes through the addon's
 * memmove: V8 copies shared memory with a relaxed-atomic memcpy of about 20-23 GB/s, libc's
 * memmove reaches 45-85 GB/s in cache and 50 GB/s from memory on this machine, and the ~0.15 µs
 * of a native call (copyRange: five arguments; stridedCopy's eight took ~0.2) is repaid from
 * about 4 KiB (node dist/bench/native/copy-throughput.js). Between plain ArrayBuffers V8's own
 * copy is memmove: ch_shmem copies payloads through plain views of its segments
 * (addon.shmPlainView), which need no call.
 */
const NATIVE_MIN = 4096;

/**
 * Copies src[srcOff .. srcOff+len) to dst[dstOff ..). Allocation-free for whole-buffer sources,
 * for copies up to LOOP_MAX bytes and from NATIVE_MIN bytes; other partial copies create one view.
 */
export function copyBytes(src: Uint8Array, srcOff: number, dst: Uint8Array, dstOff: number, len: number): void {
  if (len <= LOOP_MAX) {
    // Eight bytes a turn, written out: V8 unrolls no loop, and a turn's counter, test and
    // branch cost as much as its copy. The short protocol's 8- and 16-byte messages took 8-15 %
    // less engine time on each side this way, 32-byte receives 21 % (bench/native/message-path.js
    // against the plain loop, rows alternating).
    let i = 0;
    for (; i + 8 <= len; i += 8) {
      const d = dstOff + i;
      const s = srcOff + i;
      dst[d] = src[s]!;
      dst[d + 1] = src[s + 1]!;
      dst[d + 2] = src[s + 2]!;
      dst[d + 3] = src[s + 3]!;
      dst[d + 4] = src[s + 4]!;
      dst[d + 5] = src[s + 5]!;
      dst[d + 6] = src[s + 6]!;
      dst[d + 7] = src[s + 7]!;
    }
    for (; i < len; i++) dst[dstOff + i] = src[srcOff + i]!;
  } else if (len >= NATIVE_MIN && (src.buffer instanceof SharedArrayBuffer || dst.buffer instanceof SharedArrayBuffer)) {
    addon.copyRange(src, srcOff, dst, dstOff, len);
  } else if (srcOff === 0 && len === src.length) {
    dst.set(src, dstOff);
  } else {
    dst.set(src.subarray(srcOff, srcOff + len), dstOff);
  }
}
