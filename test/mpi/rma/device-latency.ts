/**
 * Round trips of device atomics to a target that computes (no MPI calls) and to one that waits
 * in MPI (asleep): rank 1.. time Fetch_and_op on rank 0's word; the sum must be exact.
 * Prints the mean microseconds per operation for both (a measurement, checked only for
 * exactness and for finishing within the target's busy period).
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const N = Number(process.argv[2] ?? 300);
const win = MPI.Win.Allocate(8, 8, MPI.INFO_NULL, comm);
const got = new BigInt64Array(1);
for (const phase of ['busy', 'waiting']) {
  comm.Barrier();
  if (rank === 0) {
    if (phase === 'busy') {
      const until = Date.now() + 1500;
      let x = 0;
      while (Date.now() < until) x += Math.sqrt(x + 1);
      if (x < 0) console.log(x);
    }
  } else {
    const started = process.hrtime.bigint();
    win.Lock_all();
    for (let i = 0; i < N; i++) win.Fetch_and_op(BigInt64Array.of(1n), got, 0, 0, MPI.SUM);
    win.Unlock_all();
    const us = Number(process.hrtime.bigint() - started) / 1000 / N;
    console.log(`# rank ${rank}: ${phase} target: ${us.toFixed(1)} us per Fetch_and_op`);
  }
  comm.Barrier();
}
win.Lock(0, MPI.LOCK_SHARED);
win.Get(got, 0);
win.Unlock(0);
t.equal(got[0], BigInt(2 * N * (size - 1)), 'every fetch-and-add counted');
win.Free();
MPI.Finalize();
t.finish(rank);
