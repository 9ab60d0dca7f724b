import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyBytes, LOOP_MAX } from '../../../src/common/copy.js';

/**
 * copyBytes takes one of four ways by length (the unrolled loop up to LOOP_MAX, TypedArray.set of
 * the whole source or of a view, the addon's memmove from 4 KiB); every one must copy exactly
 * [srcOff, srcOff + len) to dstOff and touch nothing else, between ordinary and shared memory
 * alike, at any offset.
 */
function pattern(n: number, seed: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 37 + seed) & 0xff);
}

function shared(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(new SharedArrayBuffer(n));
  b.set(pattern(n, seed));
  return b;
}

function check(src: Uint8Array, srcOff: number, dst: Uint8Array, dstOff: number, len: number): void {
  const before = Uint8Array.from(dst);
  copyBytes(src, srcOff, dst, dstOff, len);
  for (let i = 0; i < dst.length; i++) {
    const want = i >= dstOff && i < dstOff + len ? src[srcOff + i - dstOff] : before[i];
    if (dst[i] !== want) {
      assert.fail(`len ${len}, srcOff ${srcOff}, dstOff ${dstOff}: byte ${i} is ${dst[i]}, expected ${want}`);
    }
  }
}

describe('copyBytes', () => {
  it('copies every length up to past LOOP_MAX at every offset, heap and shared memory, nothing outside', () => {
    assert.equal(LOOP_MAX, 32, 'the lengths below cover the unrolled loop, its remainder and the view copy');
    const makers = [pattern, shared];
    for (const makeSrc of makers) {
      for (const makeDst of makers) {
        for (let len = 0; len <= 41; len++) {
          for (let srcOff = 0; srcOff <= 9; srcOff++) {
            for (const dstOff of [0, 1, 3, 4, 7, 8]) {
              check(makeSrc(64, 5), srcOff, makeDst(64, 200), dstOff, len);
            }
          }
        }
      }
    }
  });

  it('copies a whole source with set and large ones with the native memmove, exactly', () => {
    for (const len of [33, 100, 4095, 4096, 4097, 70_001]) {
      // Whole source (the set of the whole buffer) and a part of a larger one (a view, or memmove).
      check(pattern(len, 9), 0, shared(len + 16, 1), 5, len);
      check(shared(len + 11, 3), 11, pattern(len + 7, 2), 7, len);
    }
  });
});
