/**
 * The small blocking collectives through the node cells allocate nothing per call
 * (coll/small-calls.ts, the reused call record, shm-small.ts's reductions through views made
 * once per element kind): after a warm-up, thousands of calls of each of Barrier, Bcast (every
 * root), Reduce (every root, IN_PLACE at the root), Allreduce (SUM on doubles, MAX on int32,
 * IN_PLACE), Allgather and Alltoall leave V8's young generation where it was, give or take a
 * byte a call (before: 56 B a Barrier, 184 a Bcast, 736 an Allreduce). With more ranks than
 * cores tsmpi leaves V8's tiering budget as it is (TSMPI_V8_FLAGS applies to ranks with a core
 * each), and after the warm-up calls some of the path still runs unoptimized and boxes values:
 * 40-55 B a call at 3 ranks, 0 when the same run gets --interrupt-budget=16384; there a call may
 * grow it by up to 64 B. The results are checked too, so a path that skipped work fails.
 */
import os from 'node:os';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';
import { youngGrowth } from '../util/young-generation.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const CALLS = Number(process.argv[2] ?? 2000);
const WARM = 5000;

const d = new Float64Array(3);
const dOut = new Float64Array(3);
const i32 = new Int32Array(5);
const i32Out = new Int32Array(5);
const bytes = new Uint8Array(13);
const block = new Uint8Array(8);
const gathered = new Uint8Array(8 * size);
const spread = new Uint8Array(8 * size);
const swapped = new Uint8Array(8 * size);
let wrong = 0;

const kinds: Record<string, (k: number) => void> = {
  Barrier: () => comm.Barrier(),
  Bcast: (k) => {
    const root = k % size;
    if (rank === root) bytes.fill(k & 0xff);
    comm.Bcast(bytes, root);
    if (bytes[12] !== (k & 0xff)) wrong++;
  },
  Reduce: (k) => {
    const root = k % size;
    d.fill(rank + 1);
    if (rank === root && (k & 1) === 1) {
      dOut.fill(rank + 1);
      comm.Reduce(MPI.IN_PLACE, dOut, MPI.SUM, root);
    } else comm.Reduce(d, dOut, MPI.SUM, root);
    if (rank === root && dOut[2] !== (size * (size + 1)) / 2) wrong++;
  },
  Allreduce: (k) => {
    d.fill(k + rank);
    comm.Allreduce(d, dOut, MPI.SUM);
    if (dOut[0] !== size * k + (size * (size - 1)) / 2) wrong++;
    i32.fill(rank * 3 - k);
    if ((k & 1) === 0) comm.Allreduce(i32, i32Out, MPI.MAX);
    else {
      i32Out.set(i32);
      comm.Allreduce(MPI.IN_PLACE, i32Out, MPI.MAX);
    }
    if (i32Out[4] !== (size - 1) * 3 - k) wrong++;
  },
  Allgather: (k) => {
    comm.Allgather(block.fill((rank + k) & 0xff), gathered);
    if (gathered[8 * (size - 1)] !== ((size - 1 + k) & 0xff)) wrong++;
  },
  Alltoall: (k) => {
    for (let r = 0; r < size; r++) spread[8 * r] = (rank * 16 + r + k) & 0xff;
    comm.Alltoall(spread, swapped);
    if (swapped[8 * (size - 1)] !== (((size - 1) * 16 + rank + k) & 0xff)) wrong++;
  },
};

// What reading the statistics allocates, counted in every measurement below.
const baseline = youngGrowth(() => {}, CALLS);
const limit = size <= os.availableParallelism() ? 1 : 64;
for (const [name, call] of Object.entries(kinds)) {
  // Warm: until V8 has compiled the reduction loops, it boxes each double they touch.
  for (let k = 0; k < WARM; k++) call(k);
  const perCall = Math.max(0, youngGrowth(call, CALLS) - baseline) / CALLS;
  t.check(perCall <= limit, `${name}: the young generation grew by ${perCall.toFixed(1)} bytes a call over ${CALLS} calls ` +
    `(at most ${limit} with ${size} ranks on ${os.availableParallelism()} cores)`);
}
t.equal(wrong, 0, 'every result as expected');
MPI.Finalize();
t.finish(rank);
