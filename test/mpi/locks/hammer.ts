/**
 * Hammers one lock of the library (argument 1: its registry name; 2: iterations per rank,
 * default 150; 3: parameters `k=v,k=v`) from every rank and checks mutual exclusion two ways:
 *  - a non-atomic counter at rank 0 (Get, Flush, Put + 1, Flush inside the critical section):
 *    no increment may be lost. The counter's window is locked with the runtime's own
 *    MPI.Win passive lock (shared mode, so it excludes nothing) inside the library lock's
 *    critical section: both lock mechanisms in one program share no state;
 *  - the critical-section intervals of all ranks, stamped with the machine's monotonic clock,
 *    gathered at rank 0: no two writer intervals (nor a writer and a reader) may overlap.
 * RW locks: every third iteration is a reader that reads the counter twice (a writer slipping
 * in between would change it). Locks with tryAcquire: one rank holds the lock, every other
 * rank's tryAcquire must fail; after release one tryAcquire must succeed.
 * Stats: immediate + delayed acquisitions, when the lock counts them, equal the acquisitions.
 */
import { MPI } from '../../../src/index.js';
import { isRWLock, LockContext, type LockParams, lockSpec } from '../../../src/locks/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const name = process.argv[2] ?? 'mpi-win-lock';
const iterations = Number(process.argv[3] ?? 150);
const params: Record<string, number> = {};
for (const kv of (process.argv[4] ?? '').split(',').filter((s) => s !== '')) {
  const [k, v] = kv.split('=');
  params[k!] = Number(v);
}

const ctx = new LockContext(comm);
const spec = lockSpec(name);
const lock = spec.make(ctx, params as LockParams);
const rw = isRWLock(lock) ? lock : null;

const counterWin = MPI.Win.Allocate(rank === 0 ? 8 : 0, 8, MPI.INFO_NULL, comm);
const value = new Float64Array(1);
const again = new Float64Array(1);
const now = (): number => Number(process.hrtime.bigint());
/** enter, exit, kind (1 writer, 0 reader) per critical section. */
const intervals = new Float64Array(3 * iterations);
let writes = 0;

comm.Barrier();
for (let i = 0; i < iterations; i++) {
  const reader = rw !== null && (i + rank) % 3 === 0;
  if (reader) rw!.acquireShared();
  else lock.acquire();
  const enter = now();
  counterWin.Lock(0, MPI.LOCK_SHARED);
  counterWin.Get(value, 0);
  counterWin.Flush(0);
  if (reader) {
    for (let k = 0; k < 200; k++) Math.sqrt(k); // let a wrongly admitted writer slip in
    counterWin.Get(again, 0);
    counterWin.Flush(0);
    t.equal(again[0], value[0], `${name}: the counter did not change while a reader held the lock`);
  } else {
    counterWin.Put(Float64Array.of(value[0]! + 1), 0);
    counterWin.Flush(0);
    writes++;
  }
  counterWin.Unlock(0);
  const exit = now();
  intervals[3 * i] = enter;
  intervals[3 * i + 1] = exit;
  intervals[3 * i + 2] = reader ? 0 : 1;
  if (reader) rw!.releaseShared();
  else lock.release();
}
comm.Barrier();

// Every interval at rank 0, checked for overlaps.
const all = rank === 0 ? new Float64Array(3 * iterations * size) : null;
comm.Gather(intervals, all, 0);
const totalWrites = new Float64Array(1);
comm.Reduce(Float64Array.of(writes), totalWrites, MPI.SUM, 0);
if (rank === 0) {
  const list: [number, number, number, number][] = [];
  for (let i = 0; i < iterations * size; i++) list.push([all![3 * i]!, all![3 * i + 1]!, all![3 * i + 2]!, Math.floor(i / iterations)]);
  list.sort((a, b) => a[0] - b[0]);
  let overlaps = 0;
  // Sweep: the latest-ending writer and the latest-ending interval so far.
  let lastEnd = -Infinity;
  let lastWriterEnd = -Infinity;
  for (const [enter, exit, kind] of list) {
    if (kind === 1 && enter < lastEnd) overlaps++;
    else if (kind === 0 && enter < lastWriterEnd) overlaps++;
    lastEnd = Math.max(lastEnd, exit);
    if (kind === 1) lastWriterEnd = Math.max(lastWriterEnd, exit);
  }
  t.equal(overlaps, 0, `${name}: overlapping critical sections`);
  t.equal(counterWin.tomemory() instanceof Uint8Array ? new Float64Array((counterWin.tomemory() as Uint8Array).buffer,
    (counterWin.tomemory() as Uint8Array).byteOffset, 1)[0] : NaN, totalWrites[0], `${name}: no increment lost`);
}

// Stats: counted acquisitions add up (locks that count at all).
const counted = lock.stats.immediate + lock.stats.delayed;
if (counted > 0) t.equal(counted, iterations, `${name}: immediate + delayed acquisitions`);

// tryAcquire: fails while another rank holds the lock, succeeds when it is free.
if (lock.tryAcquire !== undefined && size > 1) {
  comm.Barrier();
  if (rank === 0) lock.acquire();
  comm.Barrier();
  if (rank !== 0) t.equal(lock.tryAcquire(), false, `${name}: tryAcquire while rank 0 holds the lock`);
  comm.Barrier();
  if (rank === 0) lock.release();
  comm.Barrier();
  if (rank === size - 1) {
    let got = false;
    // A release may still be on its way (a hand-over flag, a flush): a few attempts.
    for (let k = 0; k < 1000 && !got; k++) got = lock.tryAcquire();
    t.check(got, `${name}: tryAcquire on a free lock`);
    if (got) lock.release();
  }
  comm.Barrier();
}

lock.free();
counterWin.Free();
ctx.free();
MPI.Finalize();
t.finish(rank);
