/**
 * The resource-cache A/B of 003a §4.5 (Fig. 4.20): ping-pong latency of small eager messages
 * over ch_sci with the lru policy (the receiver's eager slice stays connected and mapped between
 * messages) against null (every message connects, maps, unmaps and disconnects it). The thesis
 * measured a factor of 50 on SCI hardware for small eager messages, shrinking with length.
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bench/sci/cache-ab.js [--repeat N] [--out FILE]
 *
 * Both runs force the eager protocol from 1 byte on (TSMPI_SCI_SHORT_MAX=0) and use two ranks
 * on two emulated SCI nodes; best of --repeat runs (default 3) per policy and size. Output: a
 * markdown table Size | lru (µs) | null (µs) | null / lru.
 */
import fs from 'node:fs';
import os from 'node:os';
import { pingPongRows } from './run-pingpong.js';

const SIZES = [1, 8, 64, 500, 1024, 4096, 16384, 32768];

const repeatAt = process.argv.indexOf('--repeat');
const repeat = repeatAt > 0 ? Number(process.argv[repeatAt + 1]) : 3;
const outAt = process.argv.indexOf('--out');
const outFile = outAt > 0 ? process.argv[outAt + 1] : undefined;

function run(policy: 'lru' | 'null'): Map<number, number> {
  return pingPongRows(['--sci-nodes', '2', '-x', 'TSMPI_SCI_SHORT_MAX=0', '-x', `TSMPI_SCI_CACHE=${policy}`], SIZES);
}

const best = { lru: new Map<number, number>(), null: new Map<number, number>() };
for (let k = 0; k < repeat; k++) {
  for (const policy of ['lru', 'null'] as const) {
    for (const [size, us] of run(policy)) best[policy].set(size, Math.min(us, best[policy].get(size) ?? Infinity));
  }
}
const lines = [
  '# ch_sci resource cache A/B: eager ping-pong latency, lru against null',
  '',
  `${new Date().toISOString()}, ${os.hostname()}, ${os.availableParallelism()} CPUs, node ${process.version}; ` +
    `\`node dist/bench/sci/cache-ab.js --repeat ${repeat}\` (2 ranks, --sci-nodes 2, TSMPI_SCI_SHORT_MAX=0; best of ${repeat}).`,
  '',
  '| Size (B) | lru (µs) | null (µs) | null / lru |',
  '|---:|---:|---:|---:|',
];
for (const size of SIZES) {
  const a = best.lru.get(size);
  const b = best.null.get(size);
  lines.push(`| ${size} | ${a?.toFixed(2) ?? '-'} | ${b?.toFixed(2) ?? '-'} | ${a && b ? (b / a).toFixed(1) : '-'} |`);
}
const text = lines.join('\n');
console.log(text);
if (outFile) fs.writeFileSync(outFile, `${text}\n`);
