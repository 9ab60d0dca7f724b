import { addon, type BufferLike } from '../native/addon.js';

/**
 * The native copy kernel the datatype engine (mpir/dtype) packs and unpacks with: the gather
 * and scatter of one vector level in one call, instead of a JavaScript call per block.
 */
export interface PackKernels {
  /**
   * Copies `count` blocks of `blockLen` bytes, block i from src[srcOff + i*srcStride] to
   * dst[dstOff + i*dstStride] (strides may be negative).
   *
   * @throws RangeError (code 'EINVAL') when a block would lie outside either buffer.
   */
  stridedCopy(src: BufferLike, srcOff: number, srcStride: number, dst: BufferLike, dstOff: number, dstStride: number,
              blockLen: number, count: number): void;
}

/**
 * The addon itself, seen through PackKernels: `packKernels.stridedCopy(...)` is the addon's own
 * method call, with nothing wrapped around it (this sits on the packing hot path).
 */
export const packKernels: PackKernels = addon;
