import { addon, type BufferLike } from '../native/addon.js';

/**
 * The native reduction kernel (native/src/reduce.cc, loops the compiler vectorises: SCI-MPICH's
 * SIMD kernels) that mpir's predefined ops hand long vectors to. The codes below are the
 * kernel's numbering of ops and element types.
 */
export interface ReduceKernels {
  /**
   * inout[i] = in[i] op inout[i] over `count` elements, bit-identical to the JavaScript loops
   * of mpir/op.ts. Operands may be unaligned.
   *
   * @param op a value of REDUCE_OPS.
   * @param element a value of REDUCE_ELEMENTS.
   * @throws RangeError (code 'EINVAL') for an op not defined on the element type or operands too short.
   */
  reduce(op: number, element: number, inBytes: BufferLike, inoutBytes: BufferLike, count: number): void;
}

/** The kernel's op codes. */
export const REDUCE_OPS = {
  SUM: 0, PROD: 1, MAX: 2, MIN: 3, LAND: 4, LOR: 5, LXOR: 6, BAND: 7, BOR: 8, BXOR: 9,
} as const;

/** The kernel's element-type codes (bool: one byte, 0 false, anything else true). */
export const REDUCE_ELEMENTS = {
  int8: 0, uint8: 1, int16: 2, uint16: 3, int32: 4, uint32: 5, int64: 6, uint64: 7, float32: 8, float64: 9, bool: 10,
} as const;

/**
 * The addon itself, seen through ReduceKernels: `reduceKernels.reduce(...)` is the addon's own
 * method call, with nothing wrapped around it (this sits on the reduction hot path).
 */
export const reduceKernels: ReduceKernels = addon;
