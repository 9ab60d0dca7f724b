/**
 * Workload throughput, the paper's WCSB with a writer fraction (research 001 §6.1): in the
 * critical section a writer increments a counter at rank 0 (Get + Flush, +1, Put + Flush), a
 * reader reads it (Get + Flush); then the holder works for a random U[1, 4] µs. Each iteration
 * is a writer with probability F_W. RW locks take readers shared (variant `rw`); the other
 * locks take every iteration exclusively (variant `exclusive`), so their curve is the cost of
 * mutual exclusion at the same work. The paper's default F_W is 0.2 %.
 *
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/locks/workload.js [--locks ...] [--fw 0.2,2,5,25,100]
 */
import { MPI } from '../../src/index.js';
import { isRWLock, LockWindow, type RWLock } from '../../src/locks/index.js';
import { Rng } from './common.js';
import { benchWaiter, finish, freshLock, gather, runLocks, start, timedLoop, waitFor } from './harness.js';

const env = start('workload');
const fws = env.opts.lists.fw ?? (env.opts.smoke ? [5] : [0.2, 2, 5, 25, 100]);
const pts = (variant: string) => fws.map((fw) => ({ variant, param: 'F_W_pct', value: fw }));
const win = new LockWindow(env.comm, env.rank === 0 ? 64 : 0);
const cell = new Int32Array(1);

runLocks(env, (spec) => pts(spec.rw ? 'rw' : 'exclusive'), (spec, point, rep) => {
  const fw = point.value / 100;
  const rng = new Rng(1000 * rep + env.rank + 11);
  const waiter = benchWaiter(env.comm);
  const lock = freshLock(env, spec);
  const rw = spec.rw && isRWLock(lock);
  const r = timedLoop(env, () => {
    const writer = rng.next() < fw;
    if (writer || !rw) lock.acquire();
    else (lock as RWLock).acquireShared();
    win.win.Get(cell, 0, [0, 1, MPI.INT]);
    win.win.Flush(0);
    if (writer) {
      cell[0]!++;
      win.win.Put(cell, 0, [0, 1, MPI.INT]);
      win.win.Flush(0);
    }
    waitFor(waiter, rng.uniform(1, 4));
    if (writer || !rw) lock.release();
    else (lock as RWLock).releaseShared();
  }, true, () => lock.stats.reset());
  const s = gather(env, r, true, lock.stats.toArray());
  lock.free();
  return s;
}, [...pts('rw'), ...pts('exclusive')].filter((p, i, a) => a.findIndex((q) => q.value === p.value) === i));
env.comm.Barrier();
win.free();
finish(env);
