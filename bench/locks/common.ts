/**
 * What the lock benchmarks share without MPI (the report and the driver import it too): the
 * options, the paths, a seeded PRNG, the statistics (median with a distribution-free 95 %
 * confidence interval), the metrics of one repetition, and the CSV format of the results.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: this file runs as dist/bench/locks/common.js. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Where results go unless --out says otherwise (the sources' directory, not dist). */
export const RESULTS = path.join(ROOT, 'bench', 'locks', 'results');

// ---------------------------------------------------------------------------------- options

export interface Options {
  /** Lock (or queue) names asked for; 'all' expands to the registry. */
  locks: string[];
  /** Seconds of one measurement (10 % of it warm-up). */
  duration: number;
  reps: number;
  smoke: boolean;
  out: string;
  /** Benchmark-specific numbers (--upb-locks, --dht-locks, ...). */
  extra: Record<string, number>;
  /** Benchmark-specific lists (--ks, --waits, --fw, ...). */
  lists: Record<string, number[]>;
}

export function parseOptions(argv: readonly string[]): Options {
  const o: Options = { locks: ['all'], duration: 0.3, reps: 3, smoke: false, out: RESULTS, extra: {}, lists: {} };
  let durationSet = false;
  let repsSet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`option ${a} needs a value`);
      return v;
    };
    if (a === '--smoke') o.smoke = true;
    else if (a === '--locks' || a === '--queues') o.locks = value().split(',').filter((s) => s !== '');
    else if (a === '--duration') { o.duration = Number(value()); durationSet = true; }
    else if (a === '--reps') { o.reps = Number(value()); repsSet = true; }
    else if (a === '--out') o.out = path.resolve(value());
    else if (a.startsWith('--') && argv[i + 1] !== undefined && /^[-\d.,e]+$/.test(argv[i + 1]!)) {
      const v = value();
      if (v.includes(',')) o.lists[a.slice(2)] = v.split(',').map(Number);
      else { o.extra[a.slice(2)] = Number(v); o.lists[a.slice(2)] = [Number(v)]; }
    } else throw new Error(`unknown option ${a}`);
  }
  if (o.smoke) {
    if (!durationSet) o.duration = 0.05;
    if (!repsSet) o.reps = 2;
  }
  if (!(o.duration > 0) || !Number.isInteger(o.reps) || o.reps < 1) throw new Error('--duration must be > 0 and --reps a positive integer');
  return o;
}

// ------------------------------------------------------------------------------------ random

/** A small seeded PRNG (xorshift32), so runs are repeatable per (rank, repetition). */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = (seed * 2654435761) >>> 0 || 0x9e3779b9;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 4294967296;
  }
  /** Uniform integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  uniform(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }
}

// -------------------------------------------------------------------------------- statistics

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

/** Sample mean and standard deviation with Bessel's correction (n - 1). */
export function meanSd(xs: readonly number[]): { mean: number; sd: number } {
  const n = xs.length;
  if (n === 0) return { mean: NaN, sd: NaN };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, sd: 0 };
  const v = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { mean, sd: Math.sqrt(v) };
}

/** Coefficient of variation in %: sd (Bessel) / mean. */
export function cvPercent(xs: readonly number[]): number {
  const { mean, sd } = meanSd(xs);
  return mean === 0 ? NaN : (100 * sd) / mean;
}

function binomCdf(k: number, n: number): number {
  // P(X <= k) for X ~ Bin(n, 1/2).
  let c = 1;
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) c = (c * (n - i + 1)) / i;
    sum += c;
  }
  return sum / 2 ** n;
}

/**
 * The distribution-free (order-statistic) confidence interval of the median: [x_(j), x_(n+1-j)]
 * with the largest j whose coverage 1 - 2·P(Bin(n, 1/2) <= j - 1) is still >= 95 %. Below 6
 * samples no such j exists; then the interval is [min, max] and `level` is its true coverage
 * (75 % for 3 samples, 87.5 % for 4, 93.75 % for 5), which the CSV and the report state.
 */
export function medianCi(xs: readonly number[]): { median: number; lo: number; hi: number; level: number } {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return { median: NaN, lo: NaN, hi: NaN, level: NaN };
  if (n === 1) return { median: s[0]!, lo: s[0]!, hi: s[0]!, level: 0 };
  let j = 1;
  for (let c = 2; c <= Math.floor(n / 2); c++) if (1 - 2 * binomCdf(c - 1, n) >= 0.95) j = c;
  return { median: median(s), lo: s[j - 1]!, hi: s[n - j]!, level: 1 - 2 * binomCdf(j - 1, n) };
}

// ------------------------------------------------------------------------------- one sample

/** What one repetition of one measurement yields, gathered at rank 0. */
export interface Sample {
  /** Seconds: max over the measuring processes. */
  duration: number;
  /** Per measuring process: its iteration count. */
  counts: number[];
  /** Summed lock statistics (LockStats.toArray order), or null for queues. */
  stats: number[] | null;
  /** µs, where the benchmark has a latency (a mean over processes). */
  latencyUs?: number;
  /** µs: WBAB's optimum iteration duration from the measured waits. */
  optimumUs?: number;
}

/** The metrics of the CSV, in column order: each gets a median, _lo and _hi column. */
export const METRICS = ['iter_us', 'mops', 'latency_us', 'cv_pct', 'contention_pct', 'global_contention_pct',
  'local_contention_pct', 'local_handover_pct', 'overhead_us'] as const;
export type Metric = (typeof METRICS)[number];

export const METRIC_LABEL: Record<Metric, string> = {
  iter_us: 'iteration duration (µs)',
  mops: 'throughput (M/s)',
  latency_us: 'latency (µs)',
  cv_pct: 'fairness CV (%)',
  contention_pct: 'contention (%)',
  global_contention_pct: 'global contention (%)',
  local_contention_pct: 'local contention (%)',
  local_handover_pct: 'local hand-overs (%)',
  overhead_us: 'overhead (µs)',
};

function share(a: number, b: number): number {
  return a + b === 0 ? NaN : (100 * a) / (a + b);
}

/** The metrics of one repetition (NaN where they do not apply). */
export function metricsOf(s: Sample): Record<Metric, number> {
  const iterations = s.counts.reduce((a, b) => a + b, 0);
  const iterUs = iterations === 0 ? NaN : (s.duration * 1e6) / iterations;
  const st = s.stats;
  return {
    iter_us: iterUs,
    mops: s.duration === 0 ? NaN : iterations / s.duration / 1e6,
    latency_us: s.latencyUs ?? NaN,
    cv_pct: s.counts.length >= 2 ? cvPercent(s.counts) : NaN,
    contention_pct: st === null ? NaN : share(st[1]!, st[0]!),
    global_contention_pct: st === null ? NaN : share(st[3]!, st[2]!),
    local_contention_pct: st === null ? NaN : share(st[5]!, st[4]!),
    local_handover_pct: st === null ? NaN : share(st[6]!, st[7]!),
    overhead_us: s.optimumUs === undefined ? NaN : iterUs - s.optimumUs,
  };
}

// ------------------------------------------------------------------------------------- CSV

/** The key columns of a row, then per metric median/lo/hi, then the rest. */
export const KEY_COLUMNS = ['bench', 'lock', 'family', 'status', 'processes', 'nodes', 'variant', 'param', 'value'] as const;
export const COLUMNS: readonly string[] = [
  ...KEY_COLUMNS, 'reps', 'ci', 'ci_level',
  ...METRICS.flatMap((m) => [m, `${m}_lo`, `${m}_hi`]),
  'iterations', 'note',
];

export type Row = Record<string, string>;

/** status: ok | not built | failed | n/a */
export function makeRow(key: Partial<Record<(typeof KEY_COLUMNS)[number], string | number>>, samples: readonly Sample[],
                        note = ''): Row {
  const row: Row = {};
  for (const c of COLUMNS) row[c] = '';
  for (const [k, v] of Object.entries(key)) row[k] = String(v);
  row.note = note;
  if (samples.length === 0) return row;
  const per = samples.map(metricsOf);
  row.reps = String(samples.length);
  row.ci = 'order-statistic';
  for (const m of METRICS) {
    const ci = medianCi(per.map((p) => p[m]));
    if (!Number.isFinite(ci.median)) continue;
    row[m] = fmt(ci.median);
    row[`${m}_lo`] = fmt(ci.lo);
    row[`${m}_hi`] = fmt(ci.hi);
    row.ci_level = ci.level.toFixed(4);
  }
  row.iterations = String(Math.round(median(samples.map((s) => s.counts.reduce((a, b) => a + b, 0)))));
  return row;
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return '';
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(1) : a >= 1 ? x.toFixed(3) : x.toPrecision(4);
}

function csvCell(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows: readonly Row[]): string {
  return [COLUMNS.join(','), ...rows.map((r) => COLUMNS.map((c) => csvCell(r[c] ?? '')).join(','))].join('\n') + '\n';
}

/** Parses what toCsv wrote (quoted cells with doubled quotes; no newlines inside cells). */
export function parseCsv(text: string): Row[] {
  const lines = text.split('\n').filter((l) => l !== '');
  if (lines.length === 0) return [];
  const split = (line: string): string[] => {
    const out: string[] = [];
    let cur = '';
    let q = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (q) {
        if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; }
        else if (ch === '"') q = false;
        else cur += ch;
      } else if (ch === '"') q = true;
      else if (ch === ',') { out.push(cur); cur = ''; }
      else cur += ch;
    }
    out.push(cur);
    return out;
  };
  const head = split(lines[0]!);
  return lines.slice(1).map((l) => {
    const cells = split(l);
    const r: Row = {};
    head.forEach((h, i) => (r[h] = cells[i] ?? ''));
    return r;
  });
}

export function readCsv(file: string): Row[] {
  return fs.existsSync(file) ? parseCsv(fs.readFileSync(file, 'utf8')) : [];
}

const keyOf = (r: Row): string => KEY_COLUMNS.filter((k) => k !== 'family' && k !== 'status').map((k) => r[k] ?? '').join('\u0000');

/** Row order in a file: bench, lock, nodes, processes, variant, param, value (numeric where numbers). */
function compareRows(a: Row, b: Row): number {
  for (const k of ['lock', 'nodes', 'processes', 'variant', 'param', 'value']) {
    const x = a[k] ?? '';
    const y = b[k] ?? '';
    const nx = Number(x);
    const ny = Number(y);
    const c = x !== '' && y !== '' && Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : x < y ? -1 : x > y ? 1 : 0;
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * Merges `rows` into `file`: a row replaces the stored one of the same key (bench, lock,
 * processes, nodes, variant, param, value); the others stay, so runs with 2 and 4 ranks
 * accumulate in one file. Returns all rows now in the file.
 */
export function mergeCsv(file: string, rows: readonly Row[]): Row[] {
  const all = new Map<string, Row>();
  for (const r of readCsv(file)) all.set(keyOf(r), r);
  for (const r of rows) all.set(keyOf(r), r);
  const merged = [...all.values()].sort(compareRows);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, toCsv(merged));
  return merged;
}

/** The benchmarks, in the order the driver runs them and the report lists them. */
export const BENCHES = ['upb', 'ecsb', 'ccwb', 'wbab', 'latency', 'workload', 'warb', 'dht', 'queue'] as const;
export type Bench = (typeof BENCHES)[number];

export const BENCH_TITLE: Record<Bench, string> = {
  upb: 'UPB: uncontested performance (thesis §4.2.1)',
  ecsb: 'ECSB: empty critical section (thesis §4.2.2)',
  ccwb: 'CCWB: changing critical work, k = 0..5 (thesis §4.2.3)',
  wbab: 'WBAB: wait before acquire, with and without progress calls (thesis §4.2.4)',
  latency: 'Single-operation latency: acquire + release (paper LB)',
  workload: 'Workload throughput with writer fraction F_W (paper WCSB)',
  warb: 'Wait-after-release (paper WARB)',
  dht: 'Distributed hashtable, inserts and lookups (paper DHT)',
  queue: 'Queues: 50/50 enqueue/dequeue throughput (research 002)',
};
