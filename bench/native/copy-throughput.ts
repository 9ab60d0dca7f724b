/**
 * Copy throughput into and out of shared memory: TypedArray.set (V8 copies SharedArrayBuffer
 * memory with a relaxed-atomic memcpy) against the addon's memmove (copyRange),
 * from 256 B to 1 MiB, heap to shared segment and back. This is the measurement behind
 * NATIVE_MIN in src/common/copy.ts. Each cell runs at least 0.2 s after a warm-up. MB/s counts
 * 10^6 bytes.
 *
 *   node dist/bench/native/copy-throughput.js
 */
import { performance } from 'node:perf_hooks';

import { addon } from '../../src/native/addon.js';

const SIZES = [256, 1024, 4096, 16384, 65536, 1 << 20];
const shared = new Uint8Array(new SharedArrayBuffer(2 << 20));
const heap = new Uint8Array(2 << 20).fill(7);

/** MB/s of `copy` moving `len` bytes per call. */
function rate(len: number, copy: () => void): number {
  for (let i = 0; i < 200; i++) copy();
  let calls = 0;
  const t0 = performance.now();
  let t1 = t0;
  while (t1 - t0 < 200) {
    for (let i = 0; i < 100; i++) copy();
    calls += 100;
    t1 = performance.now();
  }
  return (len * calls) / ((t1 - t0) * 1e3);
}

const col = (s: string) => s.padStart(18);
console.log('# Copy throughput (MB/s), heap <-> SharedArrayBuffer');
console.log('# Size'.padEnd(10) + col('set heap->shm') + col('native heap->shm') + col('set shm->heap') + col('native shm->heap'));
for (const len of SIZES) {
  const src = heap.subarray(0, len);
  const back = shared.subarray(64, 64 + len);
  const cells = [
    rate(len, () => shared.set(src, 64)),
    rate(len, () => addon.copyRange(heap, 0, shared, 64, len)),
    rate(len, () => heap.set(back, 0)),
    rate(len, () => addon.copyRange(shared, 64, heap, 0, len)),
  ];
  console.log(String(len).padEnd(10) + cells.map((c) => col(c.toFixed(0))).join(''));
}
