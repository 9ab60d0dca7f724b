/**
 * Passive target without the target: rank 0 computes for two seconds without calling MPI while
 * every other rank runs Lock / Put / Accumulate / Fetch_and_op / Compare_and_swap / Get / Unlock
 * and Flush cycles on rank 0's part of a window in node memory (Win.Allocate on one node). The
 * others must be done long before rank 0 comes back (they never wait for its JS thread), and
 * the results must be exact: the fetch-and-add tickets distinct, the sums complete.
 * Across SCI nodes (--sci-nodes) the window lies in exported SISCI memory: argument `allocate`
 * (default) makes it with Win.Allocate, `alloc-mem` with Win.Create on MPI.Alloc_mem memory of
 * info type=shared; ranks of other nodes then use remote loads and stores only.
 */
import { MPI, type Win } from '../../../src/index.js';
import { lockEpochs } from '../util/lock-epochs.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const BUSY_MS = 2000;
const cycles = 200;

const how = process.argv[2] ?? 'allocate';
let win: Win;
let allocated: SharedArrayBuffer | null = null;
if (how === 'alloc-mem') {
  const info = MPI.Info.Create();
  info.Set('type', 'shared');
  allocated = MPI.Alloc_mem(64, info);
  t.check(allocated.byteLength >= 64, 'Alloc_mem gives at least the size asked for');
  win = MPI.Win.Create(new Uint8Array(allocated, 0, 64), 8, MPI.INFO_NULL, comm);
} else {
  win = MPI.Win.Allocate(64, 8, MPI.INFO_NULL, comm);
}
const memory = how === 'alloc-mem' ? new Uint8Array(allocated!, 0, 64) : win.tomemory() as Uint8Array;
const words = new BigInt64Array(memory.buffer, memory.byteOffset, 8);
comm.Barrier();
if (rank === 0) {
  const until = Date.now() + BUSY_MS;
  let x = 0;
  while (Date.now() < until) x += Math.sqrt(x + 1); // no MPI call here
  if (x < 0) console.log(x);
} else {
  const started = Date.now();
  const tickets: bigint[] = [];
  lockEpochs(win, rank, cycles, tickets);
  const elapsed = Date.now() - started;
  t.check(elapsed < BUSY_MS / 2, `rank ${rank}: ${cycles} lock epochs on a busy target took ${elapsed} ms ` +
    `(the target computes for ${BUSY_MS} ms and must not be needed)`);
  t.equal(new Set(tickets).size, cycles, `rank ${rank}: distinct fetch-and-add tickets`);
}
comm.Barrier();
if (rank === 0) {
  t.equal(words[0], BigInt(cycles * (size - 1)), 'fetch-and-add total');
  t.equal(words[1], BigInt(cycles * (size * (size - 1)) / 2), 'accumulate total');
  t.check(size === 1 || (words[2]! >= 1n && words[2]! < BigInt(size)), `compare-and-swap winner ${words[2]}`);
  for (let r = 1; r < size; r++) t.equal(words[3 + r], BigInt(r), `put from rank ${r}`);
}
win.Free();
if (allocated !== null) MPI.Free_mem(allocated);
MPI.Finalize();
t.finish(rank);
