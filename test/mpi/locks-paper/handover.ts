/**
 * Checks of the hierarchical paper locks (rma-mcs, rma-rw; argument 1: the name, 2: params
 * `k=v,...`) that the generic hammer does not make:
 *  - a forced local hand-over: rank 0 holds the lock while every other rank queues for it; its
 *    release must pass the lock inside its node (stats.localReleases > 0 at rank 0) when its node
 *    has another rank, and the other nodes must have waited at the machine level
 *    (globalDelayed > 0 somewhere) when there are several nodes;
 *  - RW: all ranks hold the shared lock at once (readers do not exclude readers: a barrier
 *    inside the shared section would hang otherwise); while a writer holds the lock,
 *    tryAcquireShared fails everywhere; after the writer's release every reader gets in. Needs
 *    T_R ≥ the ranks per counter: T_R also caps the readers inside at once on one counter.
 */
import { MPI } from '../../../src/index.js';
import { isRWLock, LockContext, type LockParams, LockStats, lockSpec, STAT_FIELDS } from '../../../src/locks/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const name = process.argv[2] ?? 'rma-mcs';
const params: Record<string, number> = {};
for (const kv of (process.argv[3] ?? '').split(',').filter((s) => s !== '')) {
  const [k, v] = kv.split('=');
  params[k!] = Number(v);
}
const ctx = new LockContext(comm);
const lock = lockSpec(name).make(ctx, params as LockParams);

// 1. Forced hand-over: rank 0 holds while everyone else enqueues.
if (rank === 0) lock.acquire();
comm.Barrier();
if (rank === 0) {
  const until = Date.now() + 1000;
  while (Date.now() < until) comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG); // let the others enqueue
  lock.release();
} else {
  lock.acquire();
  lock.release();
}
comm.Barrier();
const sums = new Float64Array(STAT_FIELDS);
comm.Allreduce(lock.stats.toArray(), sums, MPI.SUM);
const all = LockStats.fromArray(sums);
if (rank === 0 && ctx.nodeSize > 1) t.check(lock.stats.localReleases > 0, `${name}: rank 0 passed the lock inside its node (localReleases ${lock.stats.localReleases})`);
if (ctx.nodeCount > 1) {
  t.check(all.globalDelayed > 0, `${name}: some node waited at the machine level`);
  t.check(all.globalReleases >= ctx.nodeCount - 1, `${name}: the machine level was released`);
}
t.equal(all.immediate + all.delayed, size, `${name}: one acquisition per rank`);

// 2. RW: readers share; a writer excludes them.
if (isRWLock(lock)) {
  lock.acquireShared();
  comm.Barrier(); // every rank holds the shared lock here
  lock.releaseShared();
  comm.Barrier();
  if (rank === 0) lock.acquire();
  comm.Barrier();
  if (rank !== 0 && lock.tryAcquireShared !== undefined) t.equal(lock.tryAcquireShared(), false, `${name}: tryAcquireShared while a writer holds the lock`);
  comm.Barrier();
  if (rank === 0) lock.release();
  lock.acquireShared();
  lock.releaseShared();
  comm.Barrier();
}

lock.free();
ctx.free();
MPI.Finalize();
t.finish(rank);
