/**
 * CCWB, the Changing Critical Work Benchmark (thesis §4.2.3): k operations inside the critical
 * section, u = ã − k outside it (done before acquire, as the thesis' code does), ã drawn from
 * U[a, 2a] per iteration with a = 2p (the equilibrium, critical work = 1/p of all work, at
 * k = 3). One operation is a non-atomic remote increment of an int at the partner
 * (r + ⌊p/2⌋) % p: Get + Flush, +1, Put + Flush, on a window of 2a ints per process.
 *
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/locks/ccwb.js [--locks ...] [--ks 0,1,2,3,4,5]
 */
import { MPI } from '../../src/index.js';
import { LockWindow } from '../../src/locks/index.js';
import { Rng } from './common.js';
import { finish, freshLock, gather, runLocks, start, timedLoop } from './harness.js';

const env = start('ccwb');
const p = env.size;
const a = 2 * p;
const partner = (env.rank + Math.floor(p / 2)) % p;
const ks = env.opts.lists.ks ?? (env.opts.smoke ? [0, 3] : [0, 1, 2, 3, 4, 5]);
const points = ks.map((k) => ({ variant: '', param: 'k', value: k }));
const win = new LockWindow(env.comm, 4 * 2 * a);
const cell = new Int32Array(1);

function op(index: number): void {
  win.win.Get(cell, partner, [4 * index, 1, MPI.INT]);
  win.win.Flush(partner);
  cell[0]!++;
  win.win.Put(cell, partner, [4 * index, 1, MPI.INT]);
  win.win.Flush(partner);
}

runLocks(env, () => points, (spec, point, rep) => {
  const k = point.value;
  const rng = new Rng(1000 * rep + env.rank + 1);
  const lock = freshLock(env, spec);
  const r = timedLoop(env, () => {
    const u = rng.int(a, 2 * a) - k;
    for (let i = k; i < k + u; i++) op(i);
    lock.acquire();
    for (let i = 0; i < k; i++) op(i);
    lock.release();
  }, true, () => lock.stats.reset());
  const s = gather(env, r, true, lock.stats.toArray());
  lock.free();
  return s;
}, points);
env.comm.Barrier();
win.free();
finish(env);
