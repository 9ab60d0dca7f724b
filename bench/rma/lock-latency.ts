/**
 * Lock latency with and without migration, after research 004's figures 6 and 11: the cost of
 * an exclusive Lock + Unlock of rank 0's window lock, from a rank of rank 0's node (intra) and
 * from a rank of another node (inter), alone and taking turns (the case where 004's policy
 * migrates the lock on every change of requester), under each TSMPI_RMA_LOCK_POLICY.
 *
 *   node dist/bench/rma/lock-latency.js [-i ITER]
 *
 * Runs `tsmpiexec -n 3 --sci-nodes 2` (ranks 0 and 1 on one emulated SCI node, rank 2 on the
 * other) once per policy and prints one markdown table: µs per epoch, and the migrations of
 * rank 0's lock during the alternating run.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (flag: string, fallback: number): number => {
  const i = argv.indexOf(flag);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const iterations = option('-i', 2000);

if (!argv.includes('--rank-program')) {
  const here = fileURLToPath(import.meta.url);
  const tsmpiexec = path.resolve(path.dirname(here), '..', '..', 'bin', 'tsmpiexec.js');
  console.log(`# window lock latency, exclusive Lock + Unlock of rank 0's lock (µs per epoch); ${os.availableParallelism()} CPUs, ` +
    `3 ranks on 2 emulated SCI nodes, -i ${iterations}`);
  console.log('| policy | intra alone | inter alone | intra, taking turns | inter, taking turns | migrations (turns) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const policy of ['migrate', 'cpu', 'device']) {
    const r = spawnSync(process.execPath, [tsmpiexec, '-n', '3', '--sci-nodes', '2', '-x', `TSMPI_RMA_LOCK_POLICY=${policy}`,
      '--timeout', '300', process.execPath, here, '--rank-program', '-i', String(iterations)], { encoding: 'utf8', timeout: 320_000 });
    const row = r.stdout.split('\n').find((l) => l.startsWith('| '));
    console.log(row !== undefined ? `| ${policy} ${row}` : `| ${policy} | failed: ${(r.stderr || r.stdout).trim().split('\n').pop()} |`);
  }
  process.exit(0);
}

const { MPI } = await import('../../src/index.js');
MPI.Init();
const comm = MPI.COMM_WORLD;
const rank = comm.rank;
const win = MPI.Win.Create(new Int32Array(1), 4, MPI.INFO_NULL, comm);
const migrations = () => (win as unknown as { lockMigrations: number }).lockMigrations;

/** µs per Lock + Unlock epoch on rank 0 over `n` epochs, when `active`; 0 otherwise. */
function epochs(active: boolean, n: number): number {
  if (!active) return 0;
  const t0 = MPI.Wtime();
  for (let i = 0; i < n; i++) {
    win.Lock(0, MPI.LOCK_EXCLUSIVE);
    win.Unlock(0);
  }
  return ((MPI.Wtime() - t0) * 1e6) / n;
}

const results: number[] = [];
for (const who of [[1], [2], [1, 2]]) {
  // Untimed first (the JIT), then timed; rank 0 only serves (its agent runs inside the barrier).
  comm.Barrier();
  epochs(who.includes(rank), iterations);
  comm.Barrier();
  const before = migrations();
  const mine = epochs(who.includes(rank), iterations);
  comm.Barrier();
  const all = new Float64Array(3);
  comm.Gather(Float64Array.of(mine), all, 0);
  if (rank === 0) {
    for (const r of who) results.push(all[r]!);
    if (who.length === 2) results.push(migrations() - before);
  }
}
if (rank === 0) console.log(`| ${results.slice(0, 4).map((x) => x.toFixed(2)).join(' | ')} | ${results[4]} |`);
win.Free();
MPI.Finalize();
