/**
 * What the hammer cannot see: whether a NUMA-aware spin-family lock hands over inside a node.
 * Arguments: lock name, iterations per rank, expectation, parameters `k=v,k=v`.
 * Expectations: `local`: some release handed the lock to a waiter of the same node
 * (sum of stats.localReleases > 0) and the lock crossed nodes (global acquisitions or
 * hand-overs > 0); `global`: no release was local (rh with fairness=1 always releases
 * globally). Run under --sci-nodes 2 with two ranks per node. Every rank also checks that
 * its own immediate + delayed equals its acquisitions.
 */
import { MPI } from '../../../src/index.js';
import { LockContext, type LockParams, LockStats, lockSpec, STAT_FIELDS } from '../../../src/locks/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const rank = comm.rank;
const name = process.argv[2] ?? 'rh';
const iterations = Number(process.argv[3] ?? 100);
const expect = process.argv[4] ?? 'local';
const params: Record<string, number> = {};
for (const kv of (process.argv[5] ?? '').split(',').filter((s) => s !== '')) {
  const [k, v] = kv.split('=');
  params[k!] = Number(v);
}
const ctx = new LockContext(comm);
t.check(ctx.nodeCount >= 2, `${name}: run me with --sci-nodes 2 (nodeCount ${ctx.nodeCount})`);
const lock = lockSpec(name).make(ctx, params as LockParams);
const nap = new Int32Array(new SharedArrayBuffer(4));
comm.Barrier();
for (let i = 0; i < iterations; i++) {
  lock.acquire();
  // A critical section long enough for the others to queue up, that drives MPI progress as
  // real ones do (the node word's RMA is served by its leader's agent).
  const end = performance.now() + 0.5;
  while (performance.now() < end) {
    comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG);
    Atomics.wait(nap, 0, 0, 0.02);
  }
  lock.release();
  Atomics.wait(nap, 0, 0, 0.1);
}
comm.Barrier();
t.equal(lock.stats.immediate + lock.stats.delayed, iterations, `${name}: immediate + delayed`);
const sum = new Float64Array(STAT_FIELDS);
comm.Reduce(lock.stats.toArray(), sum, MPI.SUM, 0);
if (rank === 0) {
  const s = LockStats.fromArray(sum);
  process.stderr.write(`${name}: ${JSON.stringify(s)} local share ${s.localHandoverShare.toFixed(2)}\n`);
  if (expect === 'local') {
    t.check(s.localReleases > 0, `${name}: some release handed over inside a node`);
    t.check(s.globalReleases + s.globalImmediate + s.globalDelayed > 0, `${name}: the lock crossed nodes`);
  } else {
    t.equal(s.localReleases, 0, `${name}: no local hand-over`);
  }
}
lock.free();
ctx.free();
MPI.Finalize();
t.finish(rank);
