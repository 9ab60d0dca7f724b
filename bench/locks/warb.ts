/**
 * WARB, the paper's wait-after-release benchmark (research 001 §6.1): empty critical section,
 * then a random wait of U[1, 4] µs after release (Waiter pauses with progress) before the next
 * acquire. Throughput, fairness and contention, exclusive acquisitions.
 *
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/locks/warb.js [--locks ...]
 */
import { Rng } from './common.js';
import { benchWaiter, finish, freshLock, gather, runLocks, start, timedLoop, waitFor } from './harness.js';

const env = start('warb');
const point = { variant: 'exclusive', param: 'wait_us', value: '1-4' };
runLocks(env, () => [point], (spec, _point, rep) => {
  const rng = new Rng(1000 * rep + env.rank + 3);
  const waiter = benchWaiter(env.comm);
  const lock = freshLock(env, spec);
  const r = timedLoop(env, () => {
    lock.acquire();
    lock.release();
    waitFor(waiter, rng.uniform(1, 4));
  }, true, () => lock.stats.reset());
  const s = gather(env, r, true, lock.stats.toArray());
  lock.free();
  return s;
}, [point]);
finish(env);
