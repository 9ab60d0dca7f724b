/**
 * Whole words in shared memory. A node's leader allocates words in node-shared memory
 * (Allocate_shared) and exposes them to every rank with Win.Create (the thesis' cohort locks
 * do this). Ranks of the other node store -1 and 2 alternately into word 0 with
 * Accumulate(REPLACE) and into word 1 with Put, 64-bit -1 and 2 into word 2 with
 * Accumulate(REPLACE); the leader's node polls them with Atomics.load (MPI-3.1 §11.7's polling
 * in the unified model) and must never see a mix of the two values (0xffffff02 = -254 was seen:
 * the agent copied byte by byte). Runs with --sci-nodes 2.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank } = comm;
const rounds = Number(process.argv[2] ?? 10000);
const node = comm.Split_type(MPI.COMM_TYPE_SHARED, rank);
const mine = new Int32Array(1);
node.Allreduce(Int32Array.of(rank), mine, MPI.MIN);
const onLeaderNode = mine[0] === 0;
const shared = MPI.Win.Allocate_shared(rank === 0 ? 64 : 0, 1, MPI.INFO_NULL, node);
const [part] = shared.Shared_query(0);
const words = new Int32Array(part.buffer, part.byteOffset, onLeaderNode ? 16 : 0);
const wide = new BigInt64Array(part.buffer, part.byteOffset, onLeaderNode ? 8 : 0);
if (rank === 0) {
  words.fill(-1);
  wide[2] = -1n;
  words[8] = 0;
}
node.Barrier();
const win = MPI.Win.Create(rank === 0 ? new Uint8Array(part.buffer, part.byteOffset, 64) : new Uint8Array(0), 1, MPI.INFO_NULL, comm);
win.Lock_all();
comm.Barrier();
const nWriters = new Int32Array(1);
comm.Allreduce(Int32Array.of(onLeaderNode ? 0 : 1), nWriters, MPI.SUM);
if (!onLeaderNode) {
  const minus = Int32Array.of(-1);
  const two = Int32Array.of(2);
  const minus64 = BigInt64Array.of(-1n);
  const two64 = BigInt64Array.of(2n);
  for (let i = 0; i < rounds; i++) {
    win.Accumulate(i % 2 === 0 ? two : minus, 0, [0, 1, MPI.INT32_T], MPI.REPLACE);
    win.Put(i % 2 === 0 ? two : minus, 0, [4, 1, MPI.INT32_T]);
    win.Accumulate(i % 2 === 0 ? two64 : minus64, 0, [16, 1, MPI.INT64_T], MPI.REPLACE);
    if (i % 16 === 15) win.Flush(0);
  }
  win.Accumulate(Int32Array.of(1), 0, [32, 1, MPI.INT32_T], MPI.SUM);
  win.Flush(0);
} else {
  let torn = 0;
  let seen = 0;
  while (Atomics.load(words, 8) < nWriters[0]!) {
    comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG); // the leader's agent applies the others' operations
    for (let k = 0; k < 64; k++) {
      const a = Atomics.load(words, 0);
      const b = Atomics.load(words, 1);
      const c = Atomics.load(wide, 2);
      if ((a !== -1 && a !== 2) || (b !== -1 && b !== 2) || (c !== -1n && c !== 2n)) torn++;
      seen++;
    }
  }
  t.equal(torn, 0, `rank ${rank}: words seen half written (of ${seen} looks)`);
}
win.Unlock_all();
comm.Barrier();
win.Free();
shared.Free();
node.Free();
MPI.Finalize();
t.finish(rank);
