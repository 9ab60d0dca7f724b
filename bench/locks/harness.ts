/**
 * The rank side of the lock benchmarks (thesis §3.1 [repo] harness): each benchmark program
 * runs under tsmpiexec, makes one LockContext, and for every lock, parameter point and
 * repetition builds a fresh lock, runs the time-based loop
 *
 *   barrier → warm-up (first 10 % of the run time) → reset stats → barrier → measured loop
 *
 * counting iterations per process, gathers (iterations, seconds, LockStats, extras) at rank 0
 * (duration = max over processes, iterations = sum), and rank 0 turns the repetitions into one
 * CSV row (median with a 95 % order-statistic CI) and redraws the benchmark's SVG.
 */
import path from 'node:path';
import { MPI, type Intracomm } from '../../src/index.js';
import { LockContext, LOCKS, STAT_FIELDS, Waiter, type Lock, type LockSpec } from '../../src/locks/index.js';
import { type Bench, makeRow, mergeCsv, parseOptions, type Options, type Row, type Sample } from './common.js';
import { plotBench } from './svg.js';

export interface Env {
  readonly comm: Intracomm;
  readonly ctx: LockContext;
  readonly rank: number;
  readonly size: number;
  readonly opts: Options;
  readonly bench: Bench;
  /** Rows of this run, written at rank 0 after every lock. */
  readonly rows: Row[];
}

export function start(bench: Bench): Env {
  const opts = parseOptions(process.argv.slice(2));
  MPI.Init();
  const comm = MPI.COMM_WORLD;
  const ctx = new LockContext(comm);
  return { comm, ctx, rank: comm.rank, size: comm.size, opts, bench, rows: [] };
}

/** Rank 0: merges this run's rows into results/<bench>.csv and redraws the SVG. */
export function flush(env: Env): void {
  if (env.rank !== 0 || env.rows.length === 0) return;
  const file = path.join(env.opts.out, `${env.bench}.csv`);
  const all = mergeCsv(file, env.rows);
  plotBench(env.bench, all, path.join(env.opts.out, `${env.bench}.svg`));
  env.rows.length = 0;
}

export function finish(env: Env): void {
  flush(env);
  env.comm.Barrier();
  env.ctx.free();
  MPI.Finalize();
}

/** The lock specs asked for by --locks, and the names that are not (yet) in the registry. */
export function selectLocks(names: readonly string[]): { specs: LockSpec[]; missing: string[] } {
  const specs: LockSpec[] = [];
  const missing: string[] = [];
  for (const n of names) {
    if (n === 'all') {
      for (const s of LOCKS) if (!specs.includes(s)) specs.push(s);
      continue;
    }
    const s = LOCKS.find((x) => x.name === n);
    if (s === undefined) missing.push(n);
    else if (!specs.includes(s)) specs.push(s);
  }
  return { specs, missing };
}

/** The key columns common to every row of this run. */
export function baseKey(env: Env, lock: string, family: string): Record<string, string | number> {
  return { bench: env.bench, lock, family, processes: env.size, nodes: env.ctx.nodeCount };
}

/** "not built" rows, one per (missing lock, parameter point): never numbers. */
export function notBuilt(env: Env, missing: readonly string[], points: readonly { variant: string; param: string; value: number | string }[]): void {
  for (const name of missing) {
    for (const p of points) {
      env.rows.push(makeRow({ ...baseKey(env, name, ''), status: 'not built', variant: p.variant, param: p.param, value: p.value }, [],
        'not in the registry when this ran'));
    }
  }
}

/** A wait of `us` microseconds made of Waiter pauses (progress when probe), naps of at most 20 µs. */
export function waitFor(waiter: Waiter, us: number): number {
  const t0 = MPI.Wtime();
  const end = t0 + us * 1e-6;
  waiter.reset();
  while (MPI.Wtime() < end) waiter.pause();
  return (MPI.Wtime() - t0) * 1e6;
}

export function benchWaiter(comm: Intracomm, probe = true): Waiter {
  return new Waiter(comm, 64, 2, 20, probe);
}

export interface LoopResult {
  /** Iterations of this process in the measured loop. */
  count: number;
  /** Seconds of this process's measured loop. */
  seconds: number;
}

/**
 * The time-based loop of one repetition. `body` is one iteration; only ranks with `active`
 * run it (the others wait in the barriers, serving). `onReset` runs between warm-up and
 * measurement (lock stats are reset by the caller's onReset).
 */
export function timedLoop(env: Env, body: () => void, active = true, onReset?: () => void,
                          duration = env.opts.duration): LoopResult {
  const { comm } = env;
  const warm = 0.1 * duration;
  const measured = duration - warm;
  comm.Barrier();
  if (active) {
    const end = MPI.Wtime() + warm;
    do body(); while (MPI.Wtime() < end);
  }
  onReset?.();
  comm.Barrier();
  let count = 0;
  let seconds = 0;
  if (active) {
    const t0 = MPI.Wtime();
    const end = t0 + measured;
    do {
      body();
      count++;
    } while (MPI.Wtime() < end);
    seconds = MPI.Wtime() - t0;
  }
  return { count, seconds };
}

/**
 * Gathers one repetition at rank 0: per rank [active, count, seconds, stats(8), extra...].
 * Returns the Sample at rank 0 (null elsewhere). `extra` values are summed over active ranks
 * and handed to `finishSample` with the per-rank values.
 */
export function gather(env: Env, r: LoopResult, active: boolean, stats: Float64Array | null, extra: number[] = [],
                       finishSample?: (s: Sample, extras: number[][]) => void): Sample | null {
  const width = 3 + STAT_FIELDS + extra.length;
  const mine = new Float64Array(width);
  mine[0] = active ? 1 : 0;
  mine[1] = r.count;
  mine[2] = r.seconds;
  if (stats !== null) mine.set(stats.subarray(0, STAT_FIELDS), 3);
  mine.set(extra, 3 + STAT_FIELDS);
  const all = new Float64Array(width * env.size);
  env.comm.Gather(mine, all, 0);
  if (env.rank !== 0) return null;
  const counts: number[] = [];
  const extras: number[][] = [];
  let duration = 0;
  const st = new Array<number>(STAT_FIELDS).fill(0);
  for (let q = 0; q < env.size; q++) {
    const row = all.subarray(q * width, (q + 1) * width);
    if (row[0] !== 1) continue;
    counts.push(row[1]!);
    duration = Math.max(duration, row[2]!);
    for (let f = 0; f < STAT_FIELDS; f++) st[f]! += row[3 + f]!;
    extras.push(Array.from(row.subarray(3 + STAT_FIELDS)));
  }
  const s: Sample = { duration, counts, stats: stats === null ? null : st };
  finishSample?.(s, extras);
  return s;
}

/**
 * The common shape of a benchmark: for every selected lock and parameter point, `reps`
 * repetitions of `measure` (which builds its own fresh lock and returns the gathered Sample
 * at rank 0), one row per point, written after every lock. A lock whose make() throws gets a
 * "failed" row (the others go on only when every rank threw alike, which is the usual case
 * of a construction error).
 */
export function runLocks<P extends { variant: string; param: string; value: number | string }>(
  env: Env, points: (spec: LockSpec) => P[], measure: (spec: LockSpec, point: P, rep: number) => Sample | null,
  allPoints: P[],
): void {
  const { specs, missing } = selectLocks(env.opts.locks);
  notBuilt(env, missing, allPoints);
  for (const spec of specs) {
    progress(env, spec.name);
    for (const point of points(spec)) {
      const samples: Sample[] = [];
      for (let rep = 0; rep < env.opts.reps; rep++) {
        const s = measure(spec, point, rep);
        if (s !== null) samples.push(s);
      }
      if (env.rank === 0) {
        env.rows.push(makeRow({ ...baseKey(env, spec.name, spec.family), status: 'ok', variant: point.variant, param: point.param,
          value: point.value }, samples));
      }
    }
    flush(env);
  }
}

/** Rank 0 names the lock it starts on stderr (the driver shows the tail of stderr when a launch fails). */
export function progress(env: Env, name: string): void {
  if (env.rank === 0) process.stderr.write(`# ${env.bench}: ${name}\n`);
}

/** Makes a fresh lock; resets its stats at the reset point of the loop. */
export function freshLock(env: Env, spec: LockSpec): Lock {
  return spec.make(env.ctx, spec.defaults);
}
