/**
 * The queues' benchmark (research 002 §3.3): every process loops, each iteration an enqueue or
 * a dequeue with probability 1/2 each, for every QUEUES entry (the lock-free queue and its
 * lock-based baselines). Each process first enqueues 4 elements, so dequeues do not start on
 * an empty queue. Throughput = operations per second of all processes (b = n·p/t of the
 * paper, time-based here); fairness CV; the share of empty dequeues and full enqueues is in
 * the note. A queue not registered appears as a "not built" row.
 *
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/locks/queue.js [--queues a,b|all]
 */
import { QUEUES } from '../../src/locks/queue/index.js';
import { makeRow, Rng, type Sample } from './common.js';
import { baseKey, finish, flush, gather, progress, start, timedLoop } from './harness.js';

const env = start('queue');
const point = { variant: '5050', param: 'enqueue_pct', value: 50 };
/** The three queues of research 002, by its names, for "not built" rows while QUEUES is empty. */
const SEED_QUEUES = ['nd (lock-free, research 002)', 'bd (blocking decentralized)', 'bc (blocking centralized)'];
const names = env.opts.locks.flatMap((n) => (n === 'all' ? (QUEUES.length > 0 ? QUEUES.map((q) => q.name) : SEED_QUEUES) : [n]));
for (const name of [...new Set(names)]) {
  const spec = QUEUES.find((q) => q.name === name);
  if (spec === undefined) {
    if (env.rank === 0) env.rows.push(makeRow({ ...baseKey(env, name, 'queue'), status: 'not built', ...point }, [], 'not in QUEUES when this ran'));
    continue;
  }
  progress(env, name);
  const samples: Sample[] = [];
  let empty = 0;
  let full = 0;
  let ops = 0;
  for (let rep = 0; rep < env.opts.reps; rep++) {
    const rng = new Rng(1000 * rep + env.rank + 13);
    const q = spec.make(env.ctx, spec.defaults);
    let value = env.rank * 1e9 + rep * 1e7;
    for (let i = 0; i < 4; i++) q.enqueue(++value);
    let e = 0;
    let f = 0;
    const r = timedLoop(env, () => {
      if (rng.next() < 0.5) { if (!q.enqueue(++value)) f++; }
      else if (q.dequeue() === null) e++;
    }, true, () => { e = 0; f = 0; });
    const s = gather(env, r, true, null, [e, f], (sample, extras) => {
      empty += extras.reduce((a, x) => a + x[0]!, 0);
      full += extras.reduce((a, x) => a + x[1]!, 0);
      ops += sample.counts.reduce((a, b) => a + b, 0);
    });
    env.comm.Barrier();
    q.free();
    if (s !== null) samples.push(s);
  }
  if (env.rank === 0) {
    env.rows.push(makeRow({ ...baseKey(env, name, 'queue'), status: 'ok', ...point }, samples,
      `empty dequeues ${(100 * empty / Math.max(1, ops)).toFixed(1)} %, full enqueues ${(100 * full / Math.max(1, ops)).toFixed(1)} %`));
  }
  flush(env);
}
finish(env);
