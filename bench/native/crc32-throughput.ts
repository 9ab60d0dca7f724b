/**
 * CRC-32 throughput: the addon's crc32 against a byte-at-a-time table-driven JavaScript CRC and
 * zlib.crc32 (when this Node has it), at 64 B, 4 KiB, 1 MiB and 64 MiB. Each cell runs for at
 * least a quarter of a second after an untimed warm-up; results are checked equal outside the
 * timed loops. MB/s counts 10^6 bytes, as the OSU suite does.
 *
 *   node dist/bench/native/crc32-throughput.js
 */
import { randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';

import { addon } from '../../src/native/addon.js';

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function tableCrc32(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;

const implementations: Array<[string, (b: Uint8Array) => number]> = [
  ['addon', (b) => addon.crc32(b)],
  ['js-table', tableCrc32],
];
if (zlibCrc32) implementations.push(['zlib.crc32', zlibCrc32]);

const SIZES: Array<[string, number]> = [
  ['64', 64],
  ['4096', 4096],
  ['1048576', 1 << 20],
  ['67108864', 64 << 20],
];
const MIN_SECONDS = 0.25;

/** MB/s of fn over buf, running whole batches until MIN_SECONDS have passed. */
function measure(fn: (b: Uint8Array) => number, buf: Uint8Array): number {
  let sink = 0;
  const batch = Math.max(1, Math.floor((1 << 22) / buf.length));
  for (let i = 0; i < Math.min(batch, 8); i++) sink ^= fn(buf); // warm-up, untimed
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < batch; i++) sink ^= fn(buf);
    calls += batch;
    elapsed = (performance.now() - start) / 1000;
  } while (elapsed < MIN_SECONDS);
  if (sink === 0.5) console.log('unreachable'); // keeps the results alive
  return (calls * buf.length) / elapsed / 1e6;
}

const big = new Uint8Array(64 << 20);
randomFillSync(big);

console.log('# tsmpi CRC-32 throughput (MB/s, 1 MB = 10^6 bytes)');
console.log(`# ${process.version}, implementations: ${implementations.map(([n]) => n).join(', ')}`);
console.log(`${'# Size'.padEnd(10)}${implementations.map(([n]) => n.padStart(20)).join('')}`);
for (const [label, size] of SIZES) {
  const buf = big.subarray(0, size);
  const want = tableCrc32(buf);
  for (const [name, fn] of implementations) {
    if (fn(buf) !== want) throw new Error(`${name} disagrees at size ${size}`);
  }
  console.log(`${label.padEnd(10)}${implementations.map(([, fn]) => measure(fn, buf).toFixed(2).padStart(20)).join('')}`);
}
