/**
 * The vocabulary between the API face (src/mpir/rma/win.ts) and the window layer: element kinds
 * and op codes instead of mpir's Datatype and Op objects, so that osc needs nothing of mpir.
 * The face turns a target datatype into a block list plus the kind of its basic elements
 * (kindOf there), an Op into its code; they travel in request headers as these numbers.
 */

/** Kinds of basic elements: the scalars, then MPI's pair types, then bytes without arithmetic (MPI.PACKED). */
export const KIND_INT8 = 0;
export const KIND_UINT8 = 1;
export const KIND_INT16 = 2;
export const KIND_UINT16 = 3;
export const KIND_INT32 = 4;
export const KIND_UINT32 = 5;
export const KIND_INT64 = 6;
export const KIND_UINT64 = 7;
export const KIND_FLOAT32 = 8;
export const KIND_FLOAT64 = 9;
export const KIND_BOOL = 10;
export const KIND_FLOAT_INT = 11;
export const KIND_DOUBLE_INT = 12;
export const KIND_LONG_INT = 13;
export const KIND_TWOINT = 14;
export const KIND_SHORT_INT = 15;
export const KIND_PACKED = 16;
export const KIND_COUNT = 17;

/** Bytes of one element of each kind. */
const KIND_BYTES: readonly number[] = [1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1, 8, 16, 16, 8, 8, 1];

export function kindBytes(kind: number): number {
  return KIND_BYTES[kind]!;
}

/** Whether elements of `kind` are scalars CPU atomics can update (one aligned word of 1-8 bytes). */
export function isScalarKind(kind: number): boolean {
  return kind >= KIND_INT8 && kind <= KIND_BOOL;
}

/** Predefined reduction ops (MPI-4 §6.9.2); MAXLOC/MINLOC act on pair kinds only. */
export const OP_SUM = 0;
export const OP_PROD = 1;
export const OP_MAX = 2;
export const OP_MIN = 3;
export const OP_LAND = 4;
export const OP_LOR = 5;
export const OP_LXOR = 6;
export const OP_BAND = 7;
export const OP_BOR = 8;
export const OP_BXOR = 9;
export const OP_MAXLOC = 10;
export const OP_MINLOC = 11;
export const OP_REPLACE = 12;
export const OP_NO_OP = 13;
/** No op (Put, Get, Compare_and_swap). */
export const OP_NONE = -1;

/**
 * What the window layer cannot compute itself: reductions of whole element runs (the face's
 * Op kernels, native ones among them), handed in by the face when it creates a window.
 */
export interface Reducer {
  /** dst[i] = src[i] op dst[i] for `count` elements of `kind` (bytes of both operands). */
  reduce(op: number, kind: number, src: Uint8Array, dst: Uint8Array, count: number): void;
}

/** The lock types of Win.Lock (MPICH's values). */
export const LOCK_EXCLUSIVE = 234;
export const LOCK_SHARED = 235;
