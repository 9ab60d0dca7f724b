import type { Datatype } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import {
  checkAddress, checkCount, checkCounts, checkElements, checkInts, checkOrder,
} from './checks.js';
import {
  COMBINER_CONTIGUOUS, COMBINER_DUP, COMBINER_HINDEXED, COMBINER_HINDEXED_BLOCK, COMBINER_HVECTOR, COMBINER_INDEXED,
  COMBINER_INDEXED_BLOCK, COMBINER_RESIZED, COMBINER_STRUCT, COMBINER_SUBARRAY, COMBINER_VECTOR, ORDER_C,
} from './combiners.js';
import { footprint } from './cursor.js';
import { type Derivation, Extent, bounded } from './derivation.js';
import { type Level, type Node, repeat, seq } from './flatten.js';

/**
 * The derived-type constructors of API.md (Datatype.Create_*; darray in darray.ts): each checks
 * its arguments, naming the call in its errors, and computes the new type's derivation from
 * `t`, the type it is made of. `t` is usable (Datatype checked it).
 */

export function dup(t: Datatype): Derivation {
  return { combiner: COMBINER_DUP, ints: [], addrs: [], types: [t], flat: t.flat.slice(), size: t.size, lb: t.lb,
    extent: t.extent, trueLb: t.trueLb, trueUb: t.trueUb };
}

export function contiguous(t: Datatype, count: unknown): Derivation {
  const n = checkCount('Create_contiguous', 'count', count);
  return blocks(t, COMBINER_CONTIGUOUS, [n], [], [0], [n]);
}

/** `count` blocks of `blocklength` instances, `stride` extents of `t` apart. */
export function vector(t: Datatype, count: unknown, blocklength: unknown, stride: unknown): Derivation {
  const call = 'Create_vector';
  const n = checkCount(call, 'count', count);
  const bl = checkCount(call, 'blocklength', blocklength);
  const s = checkElements(call, 'stride', stride);
  return strided(t, COMBINER_VECTOR, [n, bl, s], [], n, bl, s * t.extent);
}

/** As vector, with the stride in bytes. */
export function hvector(t: Datatype, count: unknown, blocklength: unknown, stride: unknown): Derivation {
  const call = 'Create_hvector';
  const n = checkCount(call, 'count', count);
  const bl = checkCount(call, 'blocklength', blocklength);
  const s = checkAddress(call, 'stride', stride);
  return strided(t, COMBINER_HVECTOR, [n, bl], [s], n, bl, s);
}

export function indexed(t: Datatype, blocklengths: unknown, displacements: unknown): Derivation {
  const call = 'Create_indexed';
  const bl = checkCounts(call, 'blocklengths', blocklengths);
  const dp = checkInts(call, 'displacements', displacements, bl.length, checkElements);
  return blocks(t, COMBINER_INDEXED, [bl.length, ...bl, ...dp], [], dp.map((d) => d * t.extent), bl);
}

export function hindexed(t: Datatype, blocklengths: unknown, displacements: unknown): Derivation {
  const call = 'Create_hindexed';
  const bl = checkCounts(call, 'blocklengths', blocklengths);
  const dp = checkInts(call, 'displacements', displacements, bl.length, checkAddress);
  return blocks(t, COMBINER_HINDEXED, [bl.length, ...bl], dp, dp, bl);
}

export function indexedBlock(t: Datatype, blocklength: unknown, displacements: unknown): Derivation {
  const call = 'Create_indexed_block';
  const bl = checkCount(call, 'blocklength', blocklength);
  const dp = checkInts(call, 'displacements', displacements, -1, checkElements);
  return blocks(t, COMBINER_INDEXED_BLOCK, [dp.length, bl, ...dp], [], dp.map((d) => d * t.extent), dp.map(() => bl));
}

export function hindexedBlock(t: Datatype, blocklength: unknown, displacements: unknown): Derivation {
  const call = 'Create_hindexed_block';
  const bl = checkCount(call, 'blocklength', blocklength);
  const dp = checkInts(call, 'displacements', displacements, -1, checkAddress);
  return blocks(t, COMBINER_HINDEXED_BLOCK, [dp.length, bl], dp, dp, dp.map(() => bl));
}

/**
 * `blocklengths[i]` instances of `types[i]` at byte displacements `displacements[i]`.
 * `usableType` says whether an entry of `types` is a datatype a type may be made of (checked
 * after the lists, so errors come in argument order).
 */
export function struct(blocklengths: unknown, displacements: unknown, types: unknown,
                       usableType: (t: unknown, call: string) => t is Datatype): Derivation {
  const call = 'Create_struct';
  const bl = checkCounts(call, 'blocklengths', blocklengths);
  const dp = checkInts(call, 'displacements', displacements, bl.length, checkAddress);
  if (types === null || typeof types !== 'object' || typeof (types as ArrayLike<unknown>).length !== 'number') {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: types must be an array of MPI.Datatype`);
  }
  const list = types as ArrayLike<unknown>;
  if (list.length !== bl.length) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: types has ${list.length} entries, blocklengths has ${bl.length}; they must match`);
  }
  const ts: Datatype[] = [];
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (!usableType(t, call)) {
      throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.${call}: types[${i}] is not an MPI.Datatype (got ${String(t)})`);
    }
    ts.push(t);
  }
  const parts: Node[][] = [];
  const ext = new Extent();
  let size = 0;
  for (let i = 0; i < bl.length; i++) {
    const t = ts[i]!;
    parts.push(repeat(dp[i]!, [{ count: bl[i]!, stride: t.extent }], t.flat));
    ext.block(t, dp[i]!, bl[i]!);
    size += bl[i]! * t.size;
  }
  const flat = seq(parts);
  // As C lays out an array of structs (and MPICH pads): the extent rounds up to the largest
  // alignment inside, unless a component has explicit bounds.
  const padTo = ts.some((t) => t.explicitBounds) ? 1 : Math.max(1, ...ts.map((t) => t.align));
  return bounded(COMBINER_STRUCT, [bl.length, ...bl], dp, ts, flat, size, ext, padTo);
}

/**
 * The subarray `subsizes` at `starts` of an array of `sizes` elements of `t`, in C (row-major)
 * or Fortran (column-major) order; its extent is the whole array.
 */
export function subarray(t: Datatype, sizes: unknown, subsizes: unknown, starts: unknown, order: unknown = ORDER_C): Derivation {
  const call = 'Create_subarray';
  const sz = checkInts(call, 'sizes', sizes, -1, checkElements);
  const n = sz.length;
  if (n < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: sizes must have at least one dimension`);
  const sub = checkInts(call, 'subsizes', subsizes, n, checkElements);
  const st = checkInts(call, 'starts', starts, n, checkElements);
  checkOrder(call, order);
  for (let i = 0; i < n; i++) {
    if (sz[i]! < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: sizes[${i}] = ${sz[i]} is out of range (expected >= 1)`);
    if (sub[i]! < 0 || sub[i]! > sz[i]!) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: subsizes[${i}] = ${sub[i]} is out of range (expected 0..${sz[i]})`);
    }
    if (st[i]! < 0 || st[i]! > sz[i]! - sub[i]!) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: starts[${i}] = ${st[i]} is out of range (expected 0..${sz[i]! - sub[i]!})`);
    }
  }
  const dims = order === ORDER_C ? [...Array(n).keys()] : [...Array(n).keys()].reverse();
  const levels: Level[] = [];
  let off = 0;
  let stride = t.extent;
  const strides: number[] = new Array(n);
  for (let k = n - 1; k >= 0; k--) {
    strides[dims[k]!] = stride;
    stride *= sz[dims[k]!]!;
  }
  let size = t.size;
  for (const d of dims) {
    levels.push({ count: sub[d]!, stride: strides[d]! });
    off += st[d]! * strides[d]!;
    size *= sub[d]!;
  }
  const flat = repeat(off, levels, t.flat);
  const fp = footprint(flat);
  return { combiner: COMBINER_SUBARRAY, ints: [n, ...sz, ...sub, ...st, order as number], addrs: [], types: [t], flat, size,
    lb: 0, extent: stride, trueLb: fp?.[0] ?? 0, trueUb: fp?.[1] ?? 0 };
}

/** The same type map with lower bound `lb` and extent `extent` (bytes). */
export function resized(t: Datatype, lb: unknown, extent: unknown): Derivation {
  const call = 'Create_resized';
  const l = checkAddress(call, 'lb', lb);
  const e = checkAddress(call, 'extent', extent);
  return { combiner: COMBINER_RESIZED, ints: [], addrs: [l, e], types: [t], flat: t.flat.slice(), size: t.size, lb: l,
    extent: e, trueLb: t.trueLb, trueUb: t.trueUb };
}

function strided(t: Datatype, combiner: number, ints: number[], addrs: number[], count: number, blocklength: number,
                 strideBytes: number): Derivation {
  const flat = repeat(0, [{ count, stride: strideBytes }, { count: blocklength, stride: t.extent }], t.flat);
  const ext = new Extent();
  if (count > 0) {
    ext.block(t, 0, blocklength);
    ext.block(t, (count - 1) * strideBytes, blocklength);
  }
  return bounded(combiner, ints, addrs, [t], flat, count * blocklength * t.size, ext);
}

function blocks(t: Datatype, combiner: number, ints: number[], addrs: number[], displs: number[], lengths: number[]): Derivation {
  const parts: Node[][] = [];
  const ext = new Extent();
  let size = 0;
  for (let i = 0; i < displs.length; i++) {
    parts.push(repeat(displs[i]!, [{ count: lengths[i]!, stride: t.extent }], t.flat));
    ext.block(t, displs[i]!, lengths[i]!);
    size += lengths[i]! * t.size;
  }
  return bounded(combiner, ints, addrs, [t], seq(parts), size, ext);
}
