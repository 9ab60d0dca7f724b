/** Below this many bytes a plain loop beats creating a subarray view for TypedArray.set. */
const LOOP_MAX = 64;

/**
 * Copies src[srcOff .. srcOff+len) to dst[dstOff ..). Allocation-free for whole-buffer sources
 * and for short copies (the short protocol's path); larger partial copies create one view.
 */
export function copyBytes(src: Uint8Array, srcOff: number, dst: Uint8Array, dstOff: number, len: number): void {
  if (len <= LOOP_MAX) {
    for (let i = 0; i < len; i++) dst[dstOff + i] = src[srcOff + i]!;
  } else if (srcOff === 0 && len === src.length) {
    dst.set(src, dstOff);
  } else {
    dst.set(src.subarray(srcOff, srcOff + len), dstOff);
  }
}
