/**
 * Start-up time: from starting tsmpiexec to MPI.Init returning on the last rank, for 1, 2 and
 * 8 ranks (or the counts given), median over -i runs.
 *   node dist/bench/launch/startup.js [-i RUNS] [N...]
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsmpiexec = path.join(here, '..', '..', 'bin', 'tsmpiexec.js');
const rankProgram = path.join(here, 'init-rank.js');
const args = process.argv.slice(2);
let runs = 10;
const counts: number[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '-i') runs = Number(args[++i]);
  else counts.push(Number(args[i]));
}
if (counts.length === 0) counts.push(1, 2, 8);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log('# tsmpi start-up: tsmpiexec start to the last rank returning from MPI.Init');
console.log(`# ${'Ranks'.padEnd(8)}${'Median (ms)'.padStart(14)}${'Min (ms)'.padStart(12)}${'Max (ms)'.padStart(12)}`);
for (const n of counts) {
  const samples: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = Date.now();
    const res = spawnSync(process.execPath, [tsmpiexec, '-n', String(n), '-x', `TSMPI_BENCH_T0=${t0}`, process.execPath, rankProgram], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`run failed: ${res.stderr}`);
    const times = [...res.stdout.matchAll(/init-done rank \d+ ms ([\d.]+)/g)].map((m) => Number(m[1]));
    if (times.length !== n) throw new Error(`expected ${n} ranks, got ${times.length}`);
    samples.push(Math.max(...times));
  }
  console.log(`  ${String(n).padEnd(8)}${median(samples).toFixed(1).padStart(14)}${Math.min(...samples).toFixed(1).padStart(12)}${Math.max(...samples).toFixed(1).padStart(12)}`);
}
