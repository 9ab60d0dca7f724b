/**
 * The cohort property of a cohort lock (argument 1: its name, default cohort-mcs-mcs; 2:
 * iterations per rank, default 100; 3: MAX_LOCAL_PASSES, default 3; 4: µs of work inside the
 * critical section, default 20). Every rank records, for
 * each critical section, its entry time and the holder's pass count (CohortLock.status: 0 after
 * a global acquisition, k after the k-th local hand-over in a row); rank 0 sorts all of them by
 * time and checks the hand-over chains:
 *  - no pass count exceeds MAX_LOCAL_PASSES;
 *  - a pass count k > 0 directly follows a critical section of the same node with count k - 1
 *    (a local pass hands the lock to a node-mate, the global lock never leaves the node);
 *  - with more than one node: some releases were local (localReleases > 0 summed over ranks)
 *    and some global; each rank's local and global releases add up to its acquisitions.
 * The work inside the critical section gives node-mates the time to queue up (local TTS needs
 * more: its successor-exists flag is re-set only after a failed round and a backoff).
 */
import { MPI } from '../../../src/index.js';
import { CohortLock } from '../../../src/locks/cohort/cohort.js';
import { LockContext, lockSpec } from '../../../src/locks/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const name = process.argv[2] ?? 'cohort-mcs-mcs';
const iterations = Number(process.argv[3] ?? 100);
const maxPasses = Number(process.argv[4] ?? 3);
const workNs = 1000 * Number(process.argv[5] ?? 20);

const ctx = new LockContext(comm);
const lock = lockSpec(name).make(ctx, { maxLocalPasses: maxPasses });
t.check(lock instanceof CohortLock, `${name} is a CohortLock`);
const cohort = lock as CohortLock;
t.equal(cohort.maxLocalPasses, maxPasses, `${name}: maxLocalPasses parameter`);

const now = (): number => Number(process.hrtime.bigint());
/** enter time, pass count, node index per critical section. */
const rec = new Float64Array(3 * iterations);
comm.Barrier();
for (let i = 0; i < iterations; i++) {
  if (i % 10 === 0) comm.Barrier(); // rounds: a loaded machine must not let one rank run alone
  lock.acquire();
  rec[3 * i] = now();
  rec[3 * i + 1] = cohort.status;
  rec[3 * i + 2] = ctx.nodeIndex;
  const until = now() + workNs;
  while (now() < until);
  lock.release();
}
comm.Barrier();

const all = rank === 0 ? new Float64Array(3 * iterations * size) : null;
comm.Gather(rec, all, 0);
const sums = new Float64Array(2);
comm.Reduce(Float64Array.of(lock.stats.localReleases, lock.stats.globalReleases), sums, MPI.SUM, 0);
t.equal(lock.stats.localReleases + lock.stats.globalReleases, iterations, `${name}: local + global releases = acquisitions`);

if (rank === 0) {
  const list: [number, number, number][] = [];
  for (let i = 0; i < iterations * size; i++) list.push([all![3 * i]!, all![3 * i + 1]!, all![3 * i + 2]!]);
  list.sort((a, b) => a[0] - b[0]);
  let tooLong = 0;
  let broken = 0;
  let longest = 0;
  for (let i = 0; i < list.length; i++) {
    const [, k, node] = list[i]!;
    longest = Math.max(longest, k);
    if (k > maxPasses) tooLong++;
    if (k > 0) {
      const prev = list[i - 1];
      if (prev === undefined || prev[2] !== node || prev[1] !== k - 1) {
        broken++;
        if (broken <= 3) process.stdout.write(`${name}: entry ${i} has pass count ${k} on node ${node} after ${prev?.[1]} on node ${prev?.[2]}\n`);
      }
    }
  }
  t.equal(list[0]![1], 0, `${name}: the first critical section follows a global acquisition`);
  t.equal(tooLong, 0, `${name}: pass counts above MAX_LOCAL_PASSES = ${maxPasses}`);
  t.equal(broken, 0, `${name}: local passes that do not continue a chain of the same node`);
  if (ctx.nodeCount > 1) {
    t.check(sums[0]! > 0, `${name}: some releases were local (localReleases = ${sums[0]})`);
    t.check(sums[1]! > 0, `${name}: some releases were global (globalReleases = ${sums[1]})`);
  }
  if (process.env.TSMPI_LOCK_VERBOSE) {
    process.stdout.write(`${name}: local ${sums[0]}, global ${sums[1]}, longest chain ${longest}\n`);
  }
}

lock.free();
ctx.free();
MPI.Finalize();
t.finish(rank);
