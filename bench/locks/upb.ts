/**
 * UPB, the Uncontested Performance Benchmark (thesis §4.2.1, after [RH02]): acquire + release
 * of a free lock whose previous owner is chosen. Scenario = previous owner (1 the same
 * process, 2 another process of the acquirer's node, 3 a process of another node) × acquirer
 * (a the main process, rank 0; b another process of the main node; c a process of another
 * node). L locks (--upb-locks, default 100; the thesis uses 1000), each used once per
 * measurement, so every lock is free and has the intended predecessor:
 *   1. every process acquires and releases all locks (warm-up), barrier;
 *   2. the designated off-node process (highest rank of the first non-main node) takes all;
 *   3. the scenarios in the thesis' order 3a, 1a, 2b, 1b, 2a, 3c, 1c, 2c, 3b: the acquirer
 *      times L acquire + release pairs; the previous owner is then the acquirer.
 * Roles [repo]: a = 0; b = lowest rank of the main node but 0; c (3c, 1c) = lowest rank of the
 * other node; 2c = highest rank of the other node. A scenario whose role does not exist or
 * whose predecessor cannot be the intended one (one node; one rank per node) is an "n/a" row.
 * Needs 4 processes on 2 nodes (`-n 4 --sci-nodes 2`) for all nine.
 *
 *   node dist/bin/tsmpiexec.js -n 4 --sci-nodes 2 node dist/bench/locks/upb.js [--locks ...] [--upb-locks 100]
 */
import { MPI } from '../../src/index.js';
import type { Lock } from '../../src/locks/index.js';
import { makeRow, type Sample } from './common.js';
import { baseKey, finish, flush, freshLock, gather, notBuilt, progress, selectLocks, start } from './harness.js';

const env = start('upb');
const { ctx } = env;
const L = env.opts.extra['upb-locks'] ?? (env.opts.smoke ? 8 : 100);
const ORDER = ['3a', '1a', '2b', '1b', '2a', '3c', '1c', '2c', '3b'] as const;

const main = ctx.ranksOf[ctx.nodeOf[0]!]!;
const other = ctx.nodeCount > 1 ? ctx.ranksOf[ctx.nodeOf[0] === 0 ? 1 : 0]! : null;
const role: Record<string, number | undefined> = {
  a: 0,
  b: main.length > 1 ? main[1] : undefined,
  c: other?.[0],
  c2: other?.[other.length - 1],
};
const designated = other !== null ? other[other.length - 1]! : 0;

/** The scenarios run (with acquirer) and those not possible here (with why), in the thesis' order. */
const plan: { name: string; acquirer: number | null; why: string }[] = [];
{
  let prev = designated;
  for (const name of ORDER) {
    const row = Number(name[0]);
    const acq = name === '2c' ? role.c2 : role[name[1]!];
    let why = '';
    if (acq === undefined) why = `no process for role ${name[1]} with ${env.size} processes on ${ctx.nodeCount} node(s)`;
    else {
      const same = prev === acq;
      const sameNode = ctx.nodeOf[prev] === ctx.nodeOf[acq];
      const ok = row === 1 ? same : row === 2 ? !same && sameNode : !sameNode;
      if (!ok) why = `the previous owner (rank ${prev}) cannot be of kind ${row} for rank ${acq} here`;
    }
    if (why === '') prev = acq!;
    plan.push({ name, acquirer: why === '' ? acq! : null, why });
  }
}
const points = ORDER.map((s) => ({ variant: '', param: 'scenario', value: s }));

function takeAll(locks: Lock[]): void {
  for (const l of locks) {
    l.acquire();
    l.release();
  }
}

const { specs, missing } = selectLocks(env.opts.locks);
notBuilt(env, missing, points);
for (const spec of specs) {
  progress(env, spec.name);
  const samples = new Map<string, Sample[]>(ORDER.map((s) => [s, []]));
  for (let rep = 0; rep < env.opts.reps; rep++) {
    const locks: Lock[] = [];
    for (let i = 0; i < L; i++) locks.push(freshLock(env, spec));
    env.comm.Barrier();
    takeAll(locks); // 1. warm-up: every process, all locks
    env.comm.Barrier();
    if (env.rank === designated) takeAll(locks); // 2.
    env.comm.Barrier();
    for (const step of plan) {
      if (step.acquirer === null) continue;
      env.comm.Barrier();
      let seconds = 0;
      if (env.rank === step.acquirer) {
        const t0 = MPI.Wtime();
        takeAll(locks);
        seconds = MPI.Wtime() - t0;
      }
      const s = gather(env, { count: L, seconds }, env.rank === step.acquirer, null, [], (sample) => {
        sample.latencyUs = (sample.duration * 1e6) / L;
      });
      if (s !== null) samples.get(step.name)!.push(s);
    }
    env.comm.Barrier();
    for (const l of locks) l.free();
  }
  if (env.rank === 0) {
    for (const step of plan) {
      const key = { ...baseKey(env, spec.name, spec.family), variant: '', param: 'scenario', value: step.name };
      env.rows.push(step.acquirer === null
        ? makeRow({ ...key, status: 'n/a' }, [], step.why)
        : makeRow({ ...key, status: 'ok' }, samples.get(step.name)!, `acquirer rank ${step.acquirer}, ${L} locks`));
    }
  }
  flush(env);
}
finish(env);
