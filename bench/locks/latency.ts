/**
 * Single-operation latency, the paper's LB (research 001 §6.1): the time of one acquire plus
 * one release, the arithmetic mean per process, then the mean over processes.
 *   - `alone`: each process in turn runs the timed loop while the others wait in the barrier
 *     (no contention; duration/p each, so the row's throughput is that of the sequence);
 *   - `contended`: all processes at once (the latency each sees under full contention);
 *   - for RW locks also `alone-shared` and `contended-shared` (acquireShared + releaseShared).
 *
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/locks/latency.js [--locks ...]
 */
import { isRWLock, type Lock, type RWLock } from '../../src/locks/index.js';
import { finish, freshLock, gather, type LoopResult, runLocks, start, timedLoop } from './harness.js';

const env = start('latency');
const base = ['alone', 'contended'];
const all = [...base, 'alone-shared', 'contended-shared'].map((variant) => ({ variant, param: '', value: '' }));

runLocks(env, (spec) => (spec.rw ? all : all.slice(0, 2)), (spec, point) => {
  const lock: Lock = freshLock(env, spec);
  const shared = point.variant.endsWith('-shared');
  if (shared && !isRWLock(lock)) throw new Error(`${spec.name} says rw but has no acquireShared`);
  const body = shared
    ? () => { (lock as RWLock).acquireShared(); (lock as RWLock).releaseShared(); }
    : () => { lock.acquire(); lock.release(); };
  let mine: LoopResult;
  if (point.variant.startsWith('alone')) {
    mine = { count: 0, seconds: 0 };
    for (let q = 0; q < env.size; q++) {
      const r = timedLoop(env, body, env.rank === q, q === 0 ? () => lock.stats.reset() : undefined, env.opts.duration / env.size);
      if (env.rank === q) mine = r;
    }
  } else {
    mine = timedLoop(env, body, true, () => lock.stats.reset());
  }
  const alone = point.variant.startsWith('alone');
  const s = gather(env, mine, true, lock.stats.toArray(), [mine.seconds], (sample, extras) => {
    sample.latencyUs = sample.counts.reduce((acc, n, i) => acc + (1e6 * extras[i]![0]!) / n, 0) / sample.counts.length;
    if (alone) sample.duration = extras.reduce((acc, e) => acc + e[0]!, 0);
  });
  lock.free();
  return s;
}, all);
finish(env);
