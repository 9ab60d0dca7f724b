import type { InPlace } from './in-place.js';
import type { Datatype } from './datatype.js';
import type { Info } from './info.js';

/**
 * The public argument types of tsmpi, one place for all of them (mpi4py's typing module has
 * the same names: BufSpec, BufSpecV, BufSpecW). They describe exactly what the decoders accept:
 * buffer.ts (decodeBuffer) for BufSpec, coll/common.ts (decodeV, decodeW) for the v- and
 * w-forms, rma/win.ts for TargetSpec. Nothing here exists at run time.
 */

/** Every typed array: its element type gives the datatype of a bare buffer (Float64Array → MPI.DOUBLE, ...). */
export type TypedArray =
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/**
 * Memory a buffer argument names: a typed array, a Node Buffer (a Uint8Array), a DataView,
 * an ArrayBuffer or a SharedArrayBuffer (as MPI.Alloc_mem returns). Without a datatype, the
 * element type decides it (bytes for Uint8Array, Buffer, DataView and the ArrayBuffers).
 */
export type BufferLike = TypedArray | DataView | ArrayBuffer | SharedArrayBuffer;

/**
 * A message buffer: the memory alone (count and datatype inferred), `[buf, datatype]` (count =
 * bytes / extent) or `[buf, count, datatype]`. Derived datatypes must be committed.
 */
export type BufSpec =
  | BufferLike
  | readonly [buf: BufferLike, datatype: Datatype]
  | readonly [buf: BufferLike, count: number, datatype: Datatype];

/** Per-rank counts or displacements (in elements of the datatype; in bytes for the w-forms). */
export type IntList = readonly number[] | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;

/**
 * The buffer of a v-variant collective (Gatherv, Scatterv, Allgatherv, Alltoallv, neighbour
 * v-forms): block r holds counts[r] elements at displacement displs[r] (in extents of the
 * datatype). Displacements null or left out: the blocks follow each other in rank order.
 */
export type BufSpecV =
  | readonly [buf: BufferLike, countsDispls: readonly [counts: IntList, displs: IntList | null], datatype: Datatype]
  | readonly [buf: BufferLike, counts: IntList, displs: IntList | null, datatype: Datatype]
  | readonly [buf: BufferLike, counts: IntList, datatype: Datatype];

/**
 * The buffer of a w-variant collective (Alltoallw, Neighbor_alltoallw): one datatype per block,
 * displacements in bytes (MPI's rule for the w-forms).
 */
export type BufSpecW = readonly [buf: BufferLike, countsDispls: readonly [counts: IntList, displs: IntList], datatypes: readonly Datatype[]];

export type { InPlace };

/**
 * Where a one-sided operation lands in the target's window: a displacement (in the target's
 * disp_unit), or `[disp, count, datatype]` with count and datatype defaulting to the origin's.
 */
export type TargetSpec =
  | number
  | readonly [disp: number]
  | readonly [disp: number, count: number]
  | readonly [disp: number, count: number, datatype: Datatype];

/** An info argument: an MPI.Info, MPI.INFO_NULL, or null (no hints). */
export type InfoArg = Info | null;

/**
 * The function of MPI.Op.Create: computes `inoutvec[i] = invec[i] op inoutvec[i]`, invec being
 * the lower-ranked operand. Both are typed views of the operand bytes, of the element type of
 * the datatype (Float64Array for MPI.DOUBLE, BigInt64Array for 64-bit integers, Uint8Array for
 * pair and mixed types); annotate the parameters with the view type the op is used on.
 */
export type UserFunction<V extends TypedArray = TypedArray> = (invec: V, inoutvec: V, datatype: Datatype) => void;

/** A reduction of the object forms (reduce, allreduce, scan, exscan): a and b in rank order, a first. */
export type ReduceFunction<T> = (a: T, b: T) => T;

/**
 * The type of a reduction of T values: literal types widened (the sum of 1s is not 1), other
 * types as they are (MAXLOC pairs, strings joined by SUM, ...).
 */
export type Reduced<T> = T extends number ? number : T extends bigint ? bigint : T extends string ? string :
  T extends boolean ? boolean : T;
