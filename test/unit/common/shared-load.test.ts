// loadShared (src/common/shared-load.ts) reads memory every time it is called, also from a loop
// V8 has optimized: a spin on a word that another thread sets ends once it is set. Were the read
// hoisted out of the loop (as an optimizing compiler may do with a plain object's field), the
// spin would run to its limit and the test fail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';

import { TOTAL_STORE_ORDER, loadShared } from '../../../src/common/shared-load.js';

/** Iterations until words[at] === want, or -1 after `limit`. */
function spin(words: Int32Array, at: number, want: number, limit: number): number {
  for (let n = 0; n < limit; n++) if (loadShared(words, at) === want) return n;
  return -1;
}

describe('loadShared', () => {
  it('is a plain read where loads keep their order (x86), Atomics.load elsewhere', () => {
    assert.equal(TOTAL_STORE_ORDER, process.arch === 'x64' || process.arch === 'ia32');
  });

  it('sees a store of another thread from inside an optimized spin', { timeout: 60_000 }, async () => {
    const words = new Int32Array(new SharedArrayBuffer(64));
    // Optimize the spin first, on a word that is already set and one that never is.
    words[3] = 7;
    for (let i = 0; i < 200_000; i++) spin(words, 3, 7, 10);
    for (let i = 0; i < 2_000; i++) spin(words, 5, 1, 1_000);
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       setTimeout(() => Atomics.store(new Int32Array(workerData), 5, 1), 100);`,
      { eval: true, workerData: words.buffer });
    try {
      await new Promise((resolve) => worker.once('online', resolve));
      const t0 = performance.now();
      const n = spin(words, 5, 1, 4e9);
      const ms = performance.now() - t0;
      assert.ok(n > 0, `the spin ran to its limit (${ms.toFixed(0)} ms): the store was never seen`);
      assert.ok(ms < 20_000, `the store was seen only after ${ms.toFixed(0)} ms`);
    } finally {
      await worker.terminate();
    }
  });
});
