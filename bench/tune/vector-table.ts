/**
 * The vector-bandwidth table of the README (issue 4; 003b §4.1): osu_vector_bw with direct
 * packing (TSMPI_DIRECT_PACK=1) and with explicit packing (TSMPI_DIRECT_PACK=0), each as a
 * percentage of the contiguous bandwidth measured in the same run. Best of N runs per method,
 * alternating, so both see the same machine. Prints a Markdown table.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/tune/vector-table.js [--repeat N] [-i ITER] [-x WARMUP]
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..', '..');
const TSMPIEXEC = path.join(ROOT, 'dist', 'bin', 'tsmpiexec.js');
const BENCH = path.join(ROOT, 'dist', 'bench', 'osu', 'osu_vector_bw.js');
const args = process.argv.slice(2);
const opt = (flag: string, fallback: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1]! : fallback;
};
const repeat = Number(opt('--repeat', '3'));
const iterations = opt('-i', '20');
const warmup = opt('-x', '2');

interface Row {
  vector: number;
  contiguous: number;
}

/** One run: block size -> (vector MB/s, contiguous MB/s). */
function run(direct: boolean): Map<number, Row> {
  const r = spawnSync(process.execPath, [TSMPIEXEC, '-n', '2', process.execPath, '--single-threaded', BENCH,
    '-i', iterations, '-x', warmup], {
    env: { ...process.env, TSMPI_DIRECT_PACK: direct ? '1' : '0' }, encoding: 'utf8', timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`osu_vector_bw (direct ${direct}) failed:\n${r.stdout}\n${r.stderr}`);
  const rows = new Map<number, Row>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$/.exec(line.trim());
    if (m) rows.set(Number(m[1]), { vector: Number(m[2]), contiguous: Number(m[3]) });
  }
  if (rows.size === 0) throw new Error(`osu_vector_bw printed no rows:\n${r.stdout}`);
  return rows;
}

/** Best vector and best contiguous figure per block size over the runs. */
function merge(into: Map<number, Row>, from: Map<number, Row>): void {
  for (const [block, row] of from) {
    const had = into.get(block);
    if (had === undefined) into.set(block, { ...row });
    else {
      had.vector = Math.max(had.vector, row.vector);
      had.contiguous = Math.max(had.contiguous, row.contiguous);
    }
  }
}

const direct = new Map<number, Row>();
const explicit = new Map<number, Row>();
for (let k = 0; k < repeat; k++) {
  merge(direct, run(true));
  merge(explicit, run(false));
}
const contiguous = (block: number) => Math.max(direct.get(block)!.contiguous, explicit.get(block)?.contiguous ?? 0);
const mbs = (x: number) => x.toFixed(0);
const pct = (x: number, c: number) => `${((100 * x) / c).toFixed(0)} %`;
console.log(`Vector of 1 MiB per message, stride 2 x block, 2 ranks; best of ${repeat} runs per method ` +
  '(`node dist/bench/tune/vector-table.js`).');
console.log('');
console.log('| Block | Contiguous MB/s | Direct MB/s | Direct % of contiguous | Explicit MB/s | Explicit % of contiguous |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (const block of [...direct.keys()].sort((a, b) => a - b)) {
  const c = contiguous(block);
  const d = direct.get(block)!.vector;
  const e = explicit.get(block)?.vector ?? Number.NaN;
  console.log(`| ${block} | ${mbs(c)} | ${mbs(d)} | ${pct(d, c)} | ${mbs(e)} | ${pct(e, c)} |`);
}
