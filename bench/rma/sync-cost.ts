/**
 * The cost of each one-sided synchronisation scheme with no communication in the epoch, in the
 * layout of the thesis's Table 5.2 (003b §4.2): per process count, µs per epoch (the average
 * over ranks of each rank's mean epoch time).
 *
 *   passive 1->1   rank p locks the window at (p+1) mod n (exclusive) and unlocks
 *   passive n->1   every rank locks rank 0 (exclusive) and unlocks
 *   group 1->1     p exposes to (p+n-1) mod n and accesses (p+1) mod n (Post/Start/Complete/Wait)
 *   group n<->n    every rank exposes to and accesses all others
 *   fence          Fence; Fence
 *
 *   node dist/bin/tsmpiexec.js -n N [--sci-nodes K] node dist/bench/rma/sync-cost.js [-i ITER] [-w create|allocate]
 *   node dist/bench/rma/sync-cost.js --table 1:4 [-i ITER]      (runs N = 1..4 and prints one table)
 *
 * A barrier precedes each scheme; the timed loop runs -i epochs (default 2000) after as many
 * untimed ones (for the JIT). Like the thesis's numbers, lock times include waiting for contended locks (n->1 is
 * the contention case). Output: one markdown row per run, or the whole table with --table.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (flag: string, fallback: string): string => {
  const i = argv.indexOf(flag);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : fallback;
};
const iterations = Number(option('-i', '2000'));
const flavor = option('-w', 'allocate');
const SCHEMES = ['passive 1->1', 'passive n->1', 'group 1->1', 'group n<->n', 'fence'] as const;

if (argv.includes('--table')) {
  const [lo, hi] = option('--table', '1:4').split(':').map(Number);
  const here = path.dirname(fileURLToPath(import.meta.url));
  const tsmpiexec = path.resolve(here, '..', '..', 'bin', 'tsmpiexec.js');
  const launch = option('--launch', '').split(/\s+/).filter((x) => x !== '');
  console.log(`# one-sided synchronisation cost, µs per epoch (Table 5.2 layout); ${os.availableParallelism()} CPUs, ` +
    `-i ${iterations} -w ${flavor}${launch.length > 0 ? `, tsmpiexec ${launch.join(' ')}` : ''}`);
  console.log(`| processes | ${SCHEMES.join(' | ')} |`);
  console.log(`|---:|${SCHEMES.map(() => '---:').join('|')}|`);
  for (let n = lo!; n <= hi!; n++) {
    const r = spawnSync(process.execPath, [tsmpiexec, '-n', String(n), ...launch, '--timeout', '300', process.execPath,
      fileURLToPath(import.meta.url), '-i', String(iterations), '-w', flavor], { encoding: 'utf8', timeout: 320_000 });
    const row = r.stdout.split('\n').find((l) => l.startsWith('| '));
    console.log(row ?? `| ${n} | failed: ${(r.stderr || r.stdout).trim().split('\n').pop()} |`);
  }
  process.exit(0);
}

const { MPI } = await import('../../src/index.js');
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const win = flavor === 'create' ? MPI.Win.Create(new Uint8Array(64), 1, MPI.INFO_NULL, comm)
  : MPI.Win.Allocate(64, 1, MPI.INFO_NULL, comm);
const group = comm.Get_group();
const others = group.Excl([rank]);
const next = (rank + 1) % size;
const prev = (rank + size - 1) % size;
const toNext = group.Incl([next]);
const fromPrev = group.Incl([prev]);

const epoch: Record<(typeof SCHEMES)[number], () => void> = {
  'passive 1->1': () => {
    win.Lock(next, MPI.LOCK_EXCLUSIVE);
    win.Unlock(next);
  },
  'passive n->1': () => {
    win.Lock(0, MPI.LOCK_EXCLUSIVE);
    win.Unlock(0);
  },
  'group 1->1': () => {
    win.Post(fromPrev);
    win.Start(toNext);
    win.Complete();
    win.Wait();
  },
  'group n<->n': () => {
    if (size === 1) return;
    win.Post(others);
    win.Start(others);
    win.Complete();
    win.Wait();
  },
  fence: () => {
    win.Fence();
    win.Fence(MPI.MODE_NOSUCCEED);
  },
};

const cells: string[] = [];
for (const scheme of SCHEMES) {
  const run = epoch[scheme];
  comm.Barrier();
  // Untimed first: as many epochs as the timed loop (the JIT needs thousands of calls to settle).
  for (let i = 0; i < iterations; i++) run();
  comm.Barrier();
  const t0 = MPI.Wtime();
  for (let i = 0; i < iterations; i++) run();
  const mine = ((MPI.Wtime() - t0) * 1e6) / iterations;
  const sum = new Float64Array(1);
  comm.Reduce(Float64Array.of(mine), sum, MPI.SUM, 0);
  cells.push((sum[0]! / size).toFixed(1));
  comm.Barrier();
}
if (rank === 0) console.log(`| ${size} | ${cells.join(' | ')} |`);
win.Free();
MPI.Finalize();
