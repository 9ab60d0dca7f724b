/**
 * WBAB, the Wait Before Acquire Benchmark (thesis §4.2.4): before each acquire a process waits
 * a random time drawn from U[2/3·m·p, 4/3·m·p] µs (mean m·p), then takes and releases the lock
 * with an empty critical section. m is the "average wait per process" of the thesis' plots;
 * the optimum iteration duration is m (here computed from the waits each process really made:
 * 1 / Σ_r (n_r / W_r)), and overhead = iteration duration − optimum. The wait is made of
 * Waiter pauses: variant `iprobe` probes (MPI_Iprobe) in every pause, the thesis' corrected
 * WBAB; `no-iprobe` does not (its Bench. 4.6, the progress problem).
 *
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/locks/wbab.js [--locks ...] [--waits 0,0.25,0.5,1,2,4,8]
 */
import { Rng } from './common.js';
import { benchWaiter, finish, freshLock, gather, runLocks, start, timedLoop, waitFor } from './harness.js';

const env = start('wbab');
const p = env.size;
const waits = env.opts.lists.waits ?? (env.opts.smoke ? [0, 1] : [0, 0.25, 0.5, 1, 2, 4, 8]);
const points = ['iprobe', 'no-iprobe'].flatMap((variant) => waits.map((m) => ({ variant, param: 'm_us', value: m })));

runLocks(env, () => points, (spec, point, rep) => {
  const m = point.value;
  const rng = new Rng(1000 * rep + env.rank + 7);
  const waiter = benchWaiter(env.comm, point.variant === 'iprobe');
  const lock = freshLock(env, spec);
  let waited = 0;
  const r = timedLoop(env, () => {
    if (m > 0) waited += waitFor(waiter, rng.uniform((2 / 3) * m * p, (4 / 3) * m * p));
    lock.acquire();
    lock.release();
  }, true, () => {
    lock.stats.reset();
    waited = 0;
  });
  const s = gather(env, r, true, lock.stats.toArray(), [waited], (sample, extras) => {
    if (m === 0) { sample.optimumUs = 0; return; }
    let rate = 0;
    sample.counts.forEach((n, i) => { if (extras[i]![0]! > 0) rate += n / extras[i]![0]!; });
    sample.optimumUs = rate > 0 ? 1 / rate : 0;
  });
  lock.free();
  return s;
}, points);
finish(env);
