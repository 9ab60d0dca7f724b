import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { show } from './common.js';

/**
 * MPI.Compute_dims: a grid of nnodes processes in dims.length (or `dims`, if a number)
 * dimensions. Non-zero entries are kept; zeros are filled so that the free dimensions are as
 * close to each other as possible (smallest largest-minus-smallest, then smallest largest),
 * in non-increasing order. MPI.ERR_DIMS when nnodes is not a multiple of the fixed entries.
 */
/** The largest number of dimensions Compute_dims makes an array for. */
const MAX_NDIMS = 1 << 16;

export function computeDims(nnodes: number, dims: number | ArrayLike<number>): number[] {
  const fail = (message: string): never => {
    throw new MPIException(ErrorClass.ERR_DIMS, `MPI.Compute_dims: ${message}`);
  };
  if (!(Number.isInteger(nnodes) && nnodes > 0 && nnodes <= 0x7fffffff)) {
    fail(`nnodes ${show(nnodes)} is invalid (expected a positive integer of MPI's int range)`);
  }
  if (typeof dims !== 'number' && !Array.isArray(dims) && !ArrayBuffer.isView(dims)) {
    fail(`dims must be a number of dimensions or an array of integers, got ${show(dims)}`);
  }
  const out = typeof dims === 'number' ? new Array<number>(Number.isInteger(dims) && dims >= 0 && dims <= MAX_NDIMS ? dims : fail(
    `ndims ${show(dims)} is invalid (expected an integer in 0..${MAX_NDIMS})`)).fill(0) : Array.from(dims);
  let fixed = 1;
  let free = 0;
  for (let i = 0; i < out.length; i++) {
    const d = out[i]!;
    if (!(Number.isInteger(d) && d >= 0)) fail(`dims[${i}] is ${show(d)} (expected 0 or a positive integer)`);
    if (d > 0) fixed *= d;
    else free++;
  }
  if (nnodes % fixed !== 0) fail(`nnodes ${nnodes} is not a multiple of the product ${fixed} of the non-zero dims`);
  const rest = nnodes / fixed;
  if (free === 0) {
    if (rest !== 1) fail(`the dims multiply to ${fixed}, not nnodes ${nnodes}, and none is free`);
    return out;
  }
  // A safe integer has at most 52 prime factors: past that many free dimensions the best grid
  // only adds 1s, and the search (one level per dimension) stays shallow.
  const factors = balancedFactors(rest, Math.min(free, 64));
  while (factors.length < free) factors.push(1);
  for (let i = 0, j = 0; i < out.length; i++) if (out[i] === 0) out[i] = factors[j++]!;
  return out;
}

/** The k factors of n (non-increasing) with the smallest spread, then the smallest largest factor. */
function balancedFactors(n: number, k: number): number[] {
  let best: number[] | null = null;
  const current: number[] = [];
  // Factors are chosen non-increasing: the next one divides what is left and is at most the last.
  const search = (left: number, slots: number, max: number): void => {
    if (slots === 1) {
      if (left > max) return;
      current.push(left);
      const spread = current[0]! - left;
      if (best === null || spread < best[0]! - best[best.length - 1]! ||
          (spread === best[0]! - best[best.length - 1]! && current[0]! < best[0]!)) best = current.slice();
      current.pop();
      return;
    }
    // The largest remaining factor is at least the slots-th root of what is left.
    const low = Math.max(1, Math.ceil(Math.pow(left, 1 / slots) - 1e-9));
    for (let f = Math.min(max, left); f >= low; f--) {
      if (left % f !== 0) continue;
      current.push(f);
      search(left / f, slots - 1, f);
      current.pop();
    }
  };
  search(n, k, n);
  return best!;
}
