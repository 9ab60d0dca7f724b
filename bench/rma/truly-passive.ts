/**
 * Truly passive put, after IMB-RMA's Truly_passive_put: rank 0 times Lock / Put / Unlock epochs
 * to rank 1 twice, once while rank 1 waits in MPI (a Barrier) and once while it computes
 * without calling MPI; a truly passive implementation gives the same time both ways.
 *
 *   node dist/bin/tsmpiexec.js -n 2 [--sci-nodes 2] node dist/bench/rma/truly-passive.js [-i ITER] [-m MAX]
 *
 * Output, OSU-like: "# Size", then per size the epoch latency (µs) with the target idle in MPI,
 * computing, and their ratio. Window by Win.Allocate (a node segment when both ranks share a
 * node; on two SCI nodes exported SISCI memory reached by remote stores, locks by Lamport's
 * mutex in the target's lock area: neither needs the target).
 */
import { MPI } from '../../src/index.js';

const argv = process.argv.slice(2);
const option = (flag: string, fallback: number): number => {
  const i = argv.indexOf(flag);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const iterations = option('-i', 200);
const max = option('-m', 65536);

MPI.Init();
const comm = MPI.COMM_WORLD;
if (comm.size !== 2) {
  if (comm.rank === 0) console.error('truly-passive needs exactly two ranks');
  MPI.Finalize();
  process.exit(1);
}
const win = MPI.Win.Allocate(max, 1, MPI.INFO_NULL, comm);
const origin = new Uint8Array(max).fill(7);
const flag = new Int32Array(1);

/** Rank 0: `iterations` epochs of a Put of `size` bytes; µs per epoch. */
function epochs(size: number): number {
  const t0 = MPI.Wtime();
  for (let i = 0; i < iterations; i++) {
    win.Lock(1, MPI.LOCK_EXCLUSIVE);
    win.Put([origin.subarray(0, size), size, MPI.BYTE], 1, [0, size, MPI.BYTE]);
    win.Unlock(1);
  }
  return ((MPI.Wtime() - t0) * 1e6) / iterations;
}

if (comm.rank === 0) {
  console.log('# tsmpi truly passive put (IMB-RMA Truly_passive_put method)');
  console.log(`# ${'Size'.padEnd(8)}${'idle target (us)'.padStart(20)}${'busy target (us)'.padStart(20)}${'busy / idle'.padStart(14)}`);
}
for (let size = 1; size <= max; size *= 4) {
  // Target idle in MPI.
  let idle = 0;
  comm.Barrier();
  if (comm.rank === 0) {
    epochs(size); // warm-up
    idle = epochs(size);
  }
  comm.Barrier();
  // Target busy: it computes until rank 0 says it is done (a message it only looks at after computing).
  let busy = 0;
  if (comm.rank === 0) {
    busy = epochs(size);
    comm.Send(flag, 1, 9);
    console.log(`${String(size).padEnd(10)}${idle.toFixed(2).padStart(20)}${busy.toFixed(2).padStart(20)}${(busy / idle).toFixed(2).padStart(14)}`);
  } else {
    // Compute for 50 ms without any MPI call, then take the message (the busy epochs overlap this).
    const until = Date.now() + 50;
    let x = 0;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    comm.Recv(flag, 0, 9);
    if (x < 0) console.log(x);
  }
}
win.Free();
MPI.Finalize();
