// crc32: the IEEE 802.3 CRC of zlib, checked against known vectors, a plain table-driven
// implementation and zlib.crc32 over many sizes, offsets and buffer kinds; chaining; ranges.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';

import { addon } from '../../../src/native/addon.js';

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The byte-at-a-time reference. */
function referenceCrc32(bytes: Uint8Array, init = 0): number {
  let c = ~init;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** zlib.crc32 exists from Node 20.15 / 22.2. */
const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

describe('crc32', { timeout: 60_000 }, () => {
  test('known vectors', { timeout: 5_000 }, () => {
    assert.equal(addon.crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(addon.crc32(new Uint8Array(0)), 0);
    assert.equal(addon.crc32(Buffer.from('The quick brown fox jumps over the lazy dog')), 0x414fa339);
    assert.equal(addon.crc32(new Uint8Array(32)), 0x190a55ad);
    assert.equal(addon.crc32(new Uint8Array(32).fill(0xff)), 0xff6cab0b);
    const ascending = Uint8Array.from({ length: 32 }, (_, i) => i);
    assert.equal(addon.crc32(ascending), 0x91267e8a);
    assert.equal(addon.crc32(new Uint8Array(1 << 20).fill(0x61)), referenceCrc32(new Uint8Array(1 << 20).fill(0x61)));
  });

  test('equals a table-driven implementation (and zlib.crc32) on random data of many sizes', { timeout: 30_000 }, () => {
    const data = randomBytes((1 << 20) + 300);
    const sizes: number[] = [];
    for (let n = 0; n <= 300; n++) sizes.push(n);
    for (const n of [511, 512, 513, 1023, 1024, 4095, 4096, 4097, 65_535, 65_536, 100_003, 1 << 20]) sizes.push(n);
    for (const n of sizes) {
      for (const offset of n > 4096 ? [0, 13] : [0, 1, 3, 7, 8, 15]) {
        const slice = data.subarray(offset, offset + n);
        const want = referenceCrc32(slice);
        assert.equal(addon.crc32(data, offset, n), want, `size ${n} at offset ${offset}`);
        assert.equal(addon.crc32(slice), want, `size ${n} as its own view`);
        if (zlibCrc32) assert.equal(zlibCrc32(slice), want, `zlib agrees at size ${n}`);
      }
    }
  });

  test('chaining through init equals one pass', { timeout: 10_000 }, () => {
    const data = randomBytes(10_000);
    const whole = addon.crc32(data);
    for (const cut of [0, 1, 63, 64, 65, 4096, 9_999, 10_000]) {
      const first = addon.crc32(data, 0, cut);
      assert.equal(addon.crc32(data, cut, data.length - cut, first), whole, `cut at ${cut}`);
    }
    let running = 0;
    for (let i = 0; i < data.length; i += 777) running = addon.crc32(data, i, Math.min(777, data.length - i), running);
    assert.equal(running, whole);
    assert.equal(addon.crc32(data, 5, 0, 0xdeadbeef), 0xdeadbeef, 'no bytes: init unchanged');
    if (zlibCrc32) assert.equal(addon.crc32(data, 100, 900, 12345), zlibCrc32(data.subarray(100, 1000), 12345));
  });

  test('every buffer kind: SharedArrayBuffer, ArrayBuffer, DataView, wider typed arrays', { timeout: 5_000 }, () => {
    const sab = new SharedArrayBuffer(1000);
    const bytes = new Uint8Array(sab);
    bytes.set(randomBytes(1000));
    const want = referenceCrc32(bytes);
    assert.equal(addon.crc32(sab), want);
    assert.equal(addon.crc32(sab, 10, 500), referenceCrc32(bytes.subarray(10, 510)));
    assert.equal(addon.crc32(bytes.slice().buffer), want);
    assert.equal(addon.crc32(new DataView(sab, 4, 96)), referenceCrc32(bytes.subarray(4, 100)));
    const words = new Uint32Array(sab, 8, 50); // offset and length count bytes, not elements
    assert.equal(addon.crc32(words), referenceCrc32(bytes.subarray(8, 208)));
    assert.equal(addon.crc32(words, 4, 8), referenceCrc32(bytes.subarray(12, 20)));
    assert.ok(Number.isInteger(addon.crc32(bytes)) && addon.crc32(bytes) >= 0, 'unsigned result');
  });

  test('ranges are checked, naming offset, length and byteLength', { timeout: 5_000 }, () => {
    const buf = new Uint8Array(16);
    const rangeError = (pattern: RegExp) => (e: NodeJS.ErrnoException) =>
      e instanceof RangeError && e.code === 'EINVAL' && pattern.test(e.message);
    assert.throws(() => addon.crc32(buf, 17), rangeError(/^crc32: offset 17 must be an integer in \[0, byteLength 16\]$/));
    assert.throws(() => addon.crc32(buf, -1), rangeError(/offset -1/));
    assert.throws(() => addon.crc32(buf, 1.5), rangeError(/offset 1.5/));
    assert.throws(() => addon.crc32(buf, 4, 13), rangeError(/^crc32: length 13 at offset 4 must be an integer in \[0, 12\] \(byteLength 16\)$/));
    assert.throws(() => addon.crc32(buf, 0, -1), rangeError(/length -1/));
    assert.throws(() => addon.crc32(buf, 0, 1, -1), rangeError(/init must be an integer in \[0, 4294967295\]/));
    assert.throws(() => addon.crc32(buf, 0, 1, 2 ** 32), RangeError);
    assert.throws(() => addon.crc32('abc' as unknown as Uint8Array), (e: NodeJS.ErrnoException) =>
      e instanceof TypeError && e.code === 'EINVAL' && /buf must be a TypedArray/.test(e.message));
    assert.equal(addon.crc32(buf, 16), 0, 'offset at the end is an empty range');
    assert.equal(addon.crc32(buf, undefined, 4), referenceCrc32(buf.subarray(0, 4)));
  });
});
