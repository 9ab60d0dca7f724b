// stridedCopy: gathers and scatters of count x blockLen bytes against a plain reference, for
// block sizes around the specialised ones, positive and negative strides, views with a byte
// offset, SharedArrayBuffer memory; every out-of-range block throws before copying anything.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';

import { addon } from '../../../src/native/addon.js';

function reference(src: Uint8Array, so: number, ss: number, dst: Uint8Array, dOff: number, ds: number, len: number, count: number): void {
  for (let i = 0; i < count; i++) for (let b = 0; b < len; b++) dst[dOff + i * ds + b] = src[so + i * ss + b]!;
}

describe('stridedCopy', () => {
  test('gather and scatter match the reference for many shapes', () => {
    for (const len of [1, 3, 4, 7, 8, 9, 16, 17, 100, 256, 4096]) {
      for (const count of [1, 2, 5, 33]) {
        for (const gap of [0, 1, 8]) {
          const stride = len + gap;
          const user = new Uint8Array(randomBytes(stride * count + 5));
          // Gather (pack) with a positive stride.
          const got = new Uint8Array(len * count + 3).fill(0xcc);
          const want = got.slice();
          addon.stridedCopy(user, 2, stride, got, 1, len, len, count);
          reference(user, 2, stride, want, 1, len, len, count);
          assert.deepEqual(got, want, `gather len ${len} count ${count} gap ${gap}`);
          // Scatter (unpack) with a negative stride: block 0 last in memory.
          const into = new Uint8Array(stride * count + 5).fill(0x11);
          const wantInto = into.slice();
          const start = (count - 1) * stride + 1;
          addon.stridedCopy(got, 1, len, into, start, -stride, len, count);
          reference(got, 1, len, wantInto, start, -stride, len, count);
          assert.deepEqual(into, wantInto, `scatter len ${len} count ${count} gap ${gap}`);
        }
      }
    }
  });

  test('views with a byte offset and SharedArrayBuffer memory', () => {
    const shared = new Uint8Array(new SharedArrayBuffer(256)).map((_, i) => i);
    const view = new Uint8Array(shared.buffer, 16, 128);
    const out = new Uint8Array(new ArrayBuffer(64), 8, 32);
    addon.stridedCopy(view, 0, 16, out, 0, 4, 4, 8);
    const want = new Uint8Array(32);
    reference(view, 0, 16, want, 0, 4, 4, 8);
    assert.deepEqual(out, want);
    assert.equal(out[0], 16);
  });

  test('count or length 0 copies nothing; any block outside a buffer throws RangeError, nothing copied', () => {
    const src = new Uint8Array(64).fill(7);
    const dst = new Uint8Array(16);
    addon.stridedCopy(src, 0, 8, dst, 0, 2, 2, 0);
    addon.stridedCopy(src, 0, 8, dst, 0, 2, 0, 5);
    assert.deepEqual(dst, new Uint8Array(16));
    const bad: [number, number, number, number, number, number][] = [
      [0, 8, 0, 2, 2, 9], // source past the end
      [0, 8, 2, 2, 2, 8], // destination past the end
      [8, -8, 0, 2, 2, 3], // negative stride reaching before byte 0
      [0, 8, 15, 2, 2, 1], // one block crossing the end
    ];
    for (const [so, ss, dOff, ds, len, count] of bad) {
      assert.throws(() => addon.stridedCopy(src, so, ss, dst, dOff, ds, len, count), (e: Error & { code?: string }) =>
        e instanceof RangeError && e.code === 'EINVAL' && /stridedCopy: \w+ blocks span bytes/.test(e.message));
    }
    assert.deepEqual(dst, new Uint8Array(16));
    assert.throws(() => addon.stridedCopy(src, -1, 8, dst, 0, 2, 2, 1), RangeError);
    assert.throws(() => addon.stridedCopy(src, 0, 8, 'x' as unknown as Uint8Array, 0, 2, 2, 1), TypeError);
  });
});

describe('copyRange', () => {
  test('copies exactly the range, between heap and shared memory, views with a byte offset, overlapping', () => {
    const shared = new Uint8Array(new SharedArrayBuffer(20_000));
    for (const len of [0, 1, 7, 33, 4095, 4096, 8193]) {
      const src = new Uint8Array(randomBytes(len + 11));
      shared.fill(0x5a);
      addon.copyRange(src, 3, shared, 17, len);
      const want = new Uint8Array(20_000).fill(0x5a);
      want.set(src.subarray(3, 3 + len), 17);
      assert.deepEqual(shared, want, `into shared memory, ${len} bytes`);
      const view = new Uint8Array(new ArrayBuffer(len + 40), 9, len + 20).fill(0xee);
      addon.copyRange(shared, 17, view, 5, len);
      const wantView = new Uint8Array(len + 20).fill(0xee);
      wantView.set(src.subarray(3, 3 + len), 5);
      assert.deepEqual(view, wantView, `out of shared memory into a view at byte offset 9, ${len} bytes`);
    }
    // Overlapping ranges of one buffer behave as memmove.
    const one = Uint8Array.from({ length: 64 }, (_, i) => i);
    addon.copyRange(one, 0, one, 8, 40);
    assert.deepEqual([...one.subarray(8, 48)], Array.from({ length: 40 }, (_, i) => i));
  });

  test('a range outside either buffer throws RangeError before copying', () => {
    const src = new Uint8Array(100).fill(1);
    const dst = new Uint8Array(50);
    assert.throws(() => addon.copyRange(src, 90, dst, 0, 11), (e: Error & { code?: string }) =>
      e instanceof RangeError && e.code === 'EINVAL' && /copyRange: bytes \[90, 101\) of a source of 100/.test(e.message));
    assert.throws(() => addon.copyRange(src, 0, dst, 45, 6), RangeError);
    assert.throws(() => addon.copyRange(src, -1, dst, 0, 1), RangeError);
    assert.deepEqual(dst, new Uint8Array(50), 'nothing was copied');
  });
});
