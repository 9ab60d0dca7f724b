/**
 * ECSB, the Empty Critical Section Benchmark (thesis §4.2.2): every process loops
 * `acquire(); release();` for the run time; contention is (nearly) 100 %. Reported: iteration
 * duration (system-wide µs per critical section), throughput, fairness CV, contention.
 *
 *   node dist/bin/tsmpiexec.js -n 4 [--sci-nodes 2] node dist/bench/locks/ecsb.js [--locks a,b|all] [--duration S] [--reps N] [--smoke]
 */
import { finish, freshLock, gather, runLocks, start, timedLoop } from './harness.js';

const env = start('ecsb');
const point = { variant: '', param: '', value: '' };
runLocks(env, () => [point], (spec) => {
  const lock = freshLock(env, spec);
  const r = timedLoop(env, () => {
    lock.acquire();
    lock.release();
  }, true, () => lock.stats.reset());
  const s = gather(env, r, true, lock.stats.toArray());
  lock.free();
  return s;
}, [point]);
finish(env);
