import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';
import { computeDims } from '../../../src/mpir/topo/compute-dims.js';

/**
 * The reference: every way to fill the zero entries with factors of what is left (brute force
 * over all tuples), the one with the smallest spread, then the smallest largest factor, sorted
 * non-increasing.
 */
function reference(n: number, dims: number[]): number[] {
  const fixed = dims.filter((d) => d > 0).reduce((a, b) => a * b, 1);
  const rest = n / fixed;
  const k = dims.filter((d) => d === 0).length;
  let best: number[] | null = null;
  const walk = (left: number, acc: number[]): void => {
    if (acc.length === k) {
      if (left !== 1) return;
      const sorted = acc.slice().sort((a, b) => b - a);
      const spread = sorted[0]! - sorted[k - 1]!;
      if (best === null || spread < best[0]! - best[k - 1]! || (spread === best[0]! - best[k - 1]! && sorted[0]! < best[0]!)) {
        best = sorted;
      }
      return;
    }
    for (let f = 1; f <= left; f++) if (left % f === 0) walk(left / f, [...acc, f]);
  };
  walk(rest, []);
  const out = dims.slice();
  let j = 0;
  for (let i = 0; i < out.length; i++) if (out[i] === 0) out[i] = best![j++]!;
  return out;
}

function throwsDims(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof MPIException && e.error_class === ErrorClass.ERR_DIMS && message.test(e.message));
}

describe('MPI.Compute_dims', () => {
  it('gives the values MPICH gives on common cases', () => {
    assert.deepEqual(computeDims(6, [0, 0]), [3, 2]);
    assert.deepEqual(computeDims(7, [0, 0]), [7, 1]);
    assert.deepEqual(computeDims(12, [0, 0, 0]), [3, 2, 2]);
    assert.deepEqual(computeDims(16, [0, 0, 0]), [4, 2, 2]);
    assert.deepEqual(computeDims(18, [0, 3, 0]), [3, 3, 2]);
    assert.deepEqual(computeDims(72, [0, 0]), [9, 8]);
    assert.deepEqual(computeDims(1, [0, 0, 0]), [1, 1, 1]);
    assert.deepEqual(computeDims(4, 2), [2, 2]);
    assert.deepEqual(computeDims(1, 0), []);
    throwsDims(() => computeDims(5, 0), /none is free/);
    assert.deepEqual(computeDims(8, [2, 4]), [2, 4]);
  });

  it('matches the brute-force reference for n up to 64 in 1 to 4 dimensions, with and without fixed entries', () => {
    for (let n = 1; n <= 64; n++) {
      for (let k = 1; k <= 4; k++) {
        const free = new Array<number>(k).fill(0);
        assert.deepEqual(computeDims(n, free), reference(n, free), `n ${n}, ${k} dims`);
        const out = computeDims(n, free);
        for (let i = 1; i < k; i++) assert.ok(out[i - 1]! >= out[i]!, `non-increasing: ${out}`);
        assert.equal(out.reduce((a, b) => a * b, 1), n);
        if (k >= 2 && n % 2 === 0) {
          const withFixed = [0, 2, ...new Array<number>(k - 2).fill(0)];
          assert.deepEqual(computeDims(n, withFixed), reference(n, withFixed), `n ${n}, ${withFixed}`);
        }
      }
    }
  });

  it('raises MPI.ERR_DIMS for impossible requests', () => {
    throwsDims(() => computeDims(16, [0, 3, 0]), /not a multiple of the product 3/);
    throwsDims(() => computeDims(12, [2, 3]), /multiply to 6, not nnodes 12/);
    throwsDims(() => computeDims(0, [0]), /nnodes 0 is invalid/);
    throwsDims(() => computeDims(4, [-1, 0]), /dims\[0\] is -1/);
    throwsDims(() => computeDims(4, -1), /ndims -1/);
  });
});
