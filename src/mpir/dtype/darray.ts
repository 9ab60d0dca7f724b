import type { Datatype } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { checkElements, checkInt, checkInts, checkOrder } from './checks.js';
import { COMBINER_DARRAY, DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC, DISTRIBUTE_DFLT_DARG, DISTRIBUTE_NONE, ORDER_C } from './combiners.js';
import { footprint } from './cursor.js';
import type { Derivation } from './derivation.js';
import { type Node, repeat, seq } from './flatten.js';

/**
 * Datatype.Create_darray: the part of a `gsizes` array of `t` that process `rank` of a `psizes`
 * process grid (row-major ranks) holds under block/cyclic/none distributions (HPF rules, as MPI
 * defines them); its extent is the whole array.
 */
export function darray(t: Datatype, sizeArg: unknown, rankArg: unknown, gsizes: unknown, distribs: unknown, dargs: unknown,
                       psizes: unknown, order: unknown = ORDER_C): Derivation {
  const call = 'Create_darray';
  const size = checkInt(call, 'size', sizeArg);
  if (size < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: size ${size} is out of range (expected >= 1)`);
  const rank = checkInt(call, 'rank', rankArg);
  if (rank < 0 || rank >= size) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: rank ${rank} is out of range (expected 0..${size - 1})`);
  const gs = checkInts(call, 'gsizes', gsizes, -1, checkElements);
  const n = gs.length;
  if (n < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: gsizes must have at least one dimension`);
  const ds = checkInts(call, 'distribs', distribs, n, checkInt);
  const da = checkInts(call, 'dargs', dargs, n, checkInt);
  const ps = checkInts(call, 'psizes', psizes, n, checkInt);
  checkOrder(call, order);
  let procs = 1;
  for (let i = 0; i < n; i++) {
    if (gs[i]! < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: gsizes[${i}] = ${gs[i]} is out of range (expected >= 1)`);
    if (ps[i]! < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: psizes[${i}] = ${ps[i]} is out of range (expected >= 1)`);
    if (ds[i] !== DISTRIBUTE_BLOCK && ds[i] !== DISTRIBUTE_CYCLIC && ds[i] !== DISTRIBUTE_NONE) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: distribs[${i}] = ${ds[i]} is not MPI.DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC or DISTRIBUTE_NONE`);
    }
    if (da[i] !== DISTRIBUTE_DFLT_DARG && da[i]! < 1) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: dargs[${i}] = ${da[i]} is out of range (expected >= 1 or MPI.DISTRIBUTE_DFLT_DARG)`);
    }
    if (ds[i] === DISTRIBUTE_NONE && ps[i] !== 1) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: psizes[${i}] = ${ps[i]} must be 1 for MPI.DISTRIBUTE_NONE`);
    }
    if (ds[i] === DISTRIBUTE_BLOCK && da[i] !== DISTRIBUTE_DFLT_DARG && da[i]! * ps[i]! < gs[i]!) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: dargs[${i}] = ${da[i]} times psizes[${i}] = ${ps[i]} does not cover gsizes[${i}] = ${gs[i]}`);
    }
    procs *= ps[i]!;
  }
  if (procs !== size) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: the product of psizes (${procs}) must equal size (${size})`);
  // Process coordinates: row-major over psizes, whatever the array order.
  const coords: number[] = new Array(n);
  for (let i = n - 1, r = rank; i >= 0; i--) {
    coords[i] = r % ps[i]!;
    r = Math.floor(r / ps[i]!);
  }
  const dims = order === ORDER_C ? [...Array(n).keys()] : [...Array(n).keys()].reverse();
  const strides: number[] = new Array(n);
  let stride = t.extent;
  for (let k = n - 1; k >= 0; k--) {
    strides[dims[k]!] = stride;
    stride *= gs[dims[k]!]!;
  }
  let flat: Node[] = t.flat.slice();
  let dataSize = t.size;
  for (let k = n - 1; k >= 0; k--) {
    const d = dims[k]!;
    const g = gs[d]!;
    const p = ps[d]!;
    const c = coords[d]!;
    const s = strides[d]!;
    let local = 0;
    const parts: Node[][] = [];
    if (ds[d] === DISTRIBUTE_NONE) {
      parts.push(repeat(0, [{ count: g, stride: s }], flat));
      local = g;
    } else if (ds[d] === DISTRIBUTE_BLOCK) {
      const b = da[d] === DISTRIBUTE_DFLT_DARG ? Math.ceil(g / p) : da[d]!;
      const len = Math.max(0, Math.min(b, g - c * b));
      parts.push(repeat(c * b * s, [{ count: len, stride: s }], flat));
      local = len;
    } else {
      const b = da[d] === DISTRIBUTE_DFLT_DARG ? 1 : da[d]!;
      // Whole blocks c, c + p, c + 2p, ... then at most one cut block at the end.
      const full = g - (c + 1) * b >= 0 ? Math.floor((g - (c + 1) * b) / (p * b)) + 1 : 0;
      parts.push(repeat(c * b * s, [{ count: full, stride: p * b * s }, { count: b, stride: s }], flat));
      local = full * b;
      const lastStart = (c + full * p) * b;
      if (lastStart < g) {
        const rest = Math.min(b, g - lastStart);
        parts.push(repeat(lastStart * s, [{ count: rest, stride: s }], flat));
        local += rest;
      }
    }
    flat = seq(parts);
    dataSize *= local;
  }
  const fp = footprint(flat);
  return { combiner: COMBINER_DARRAY, ints: [size, rank, n, ...gs, ...ds, ...da, ...ps, order as number], addrs: [], types: [t],
    flat, size: dataSize, lb: 0, extent: stride, trueLb: fp?.[0] ?? 0, trueUb: fp?.[1] ?? 0 };
}
