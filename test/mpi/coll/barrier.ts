/**
 * Barrier semantics under whichever TSMPI_COLL_BARRIER the testlist sets: no rank leaves before
 * every rank entered (ranks enter after staggered delays; each compares its exit time with
 * everyone's entry time), thousands of back-to-back barriers, several Ibarriers in flight on
 * two communicators at once, a barrier on a sub-communicator, and ranks that test an
 * Ibarrier while computing. arg: the number of back-to-back barriers.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const loops = Number(process.argv[2] ?? 2000);

function spin(ms: number): void {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) { /* busy: the barrier must not complete meanwhile */ }
}

// 1. Entry and exit: rank (r + i) % size enters last in round i.
for (let i = 0; i < Math.min(size, 4); i++) {
  spin(((rank + i) % size) * 20);
  const enter = Date.now();
  comm.Barrier();
  const exit = Date.now();
  const all = new Float64Array(2 * size);
  comm.Allgather(Float64Array.of(enter, exit), all);
  for (let r = 0; r < size; r++) t.check(all[2 * r]! <= exit, `round ${i}: rank ${r} entered at ${all[2 * r]} after rank ${rank} left at ${exit}`);
}

// 2. Back to back.
for (let i = 0; i < loops; i++) comm.Barrier();

// 3. Ibarriers in flight: three on COMM_WORLD and two on a duplicate, completed in reverse.
{
  const dup = comm.Dup();
  // Rank 0 (the shm_counter leader) starts one, then falls behind: the later ones can be
  // complete as they start while the first is still waiting, so their steps finish out of order.
  const reqs = [comm.Ibarrier(), dup.Ibarrier()];
  if (rank === 0) spin(30);
  reqs.push(comm.Ibarrier(), dup.Ibarrier(), comm.Ibarrier());
  for (let i = reqs.length - 1; i >= 0; i--) reqs[i]!.Wait();
  // The last rank is late: nobody's Ibarrier may complete before it starts.
  if (rank === size - 1) spin(50);
  const started = Date.now();
  const r = dup.Ibarrier();
  let polls = 0;
  while (!r.Test()) polls++;
  const lateStart = new Float64Array(1);
  if (rank === size - 1) lateStart[0] = started;
  dup.Bcast(lateStart, size - 1);
  t.check(Date.now() >= lateStart[0]!, `Ibarrier completed before the last rank started it`);
  void polls;
  dup.Free();
}

// 4. A barrier on the even ranks only, interleaved with one on COMM_WORLD.
{
  const half = comm.Split(rank % 2, rank);
  for (let i = 0; i < 50; i++) {
    half.Barrier();
    if (i % 10 === 0) comm.Barrier();
  }
  half.Free();
}

MPI.Finalize();
t.finish(rank);
