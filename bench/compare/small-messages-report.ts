/**
 * The page small-messages.ts writes from one run of issue 16's measurements: what each step
 * measured, read back (compare.js --json, spread.sh's table, first-row.sh's lines, startup.js
 * --json), turned into the README's tables and a list of the issue's targets with this run's
 * figures beside them. Pure functions of the parsed data, so the verdicts can be tested on
 * made-up figures (test/bench/small-messages-report.test.ts).
 */
import type { JsonBenchmark } from './compare.js';
import type { StartupRow } from '../launch/startup.js';
import { ratioText } from './ratio-text.js';

/** spread.sh's table rows: | size | tsmpi median | tsmpi spread % | MPICH median | MPICH spread % | ratio |. */
export function parseSpread(stdout: string): SpreadRow[] {
  const rows: SpreadRow[] = [];
  for (const m of stdout.matchAll(/^\| (\d+) \| ([\d.]+) \| (\d+) % \| ([\d.]+) \| (\d+) % \| [\d.]+ \|$/gm)) {
    rows.push({ size: Number(m[1]), tsmpi: Number(m[2]), tsmpiSpread: Number(m[3]) / 100, mpich: Number(m[4]), mpichSpread: Number(m[5]) / 100 });
  }
  return rows;
}

/**
 * first-row.sh's lines: run N: tsmpi first X | before Y | tsmpi warm (...) Z | MPICH first W
 * | a program's loop: first A, warm B (since bench/launch/first-row.js) | osu_latency's loop in one job:
 * first C, warm D (since first-row.js --omb).
 */
export function parseFirstRow(stdout: string): FirstRowRun[] {
  const runs: FirstRowRun[] = [];
  const line = /^run \d+: tsmpi first ([\d.]+) \| before ([\d.]+) \| tsmpi warm [^|]*?([\d.]+) \| MPICH first ([\d.]+)(?: \| a program's loop: first ([\d.]+), warm ([\d.]+))?(?: \| osu_latency's loop in one job: first ([\d.]+), warm ([\d.]+))?$/gm;
  for (const m of stdout.matchAll(line)) {
    runs.push({
      first: Number(m[1]), before: Number(m[2]), warm: Number(m[3]), mpichFirst: Number(m[4]),
      loopFirst: m[5] === undefined ? null : Number(m[5]), loopWarm: m[6] === undefined ? null : Number(m[6]),
      ombFirst: m[7] === undefined ? null : Number(m[7]), ombWarm: m[8] === undefined ? null : Number(m[8]),
    });
  }
  return runs;
}

/** One size of spread.sh's table: the medians of RUNS fresh jobs a side and the spread of each side's runs. */
export interface SpreadRow {
  readonly size: number;
  readonly tsmpi: number;
  /** Fastest run over slowest, minus one (0.2: 20 %). */
  readonly tsmpiSpread: number;
  readonly mpich: number;
  readonly mpichSpread: number;
}

/** One run of first-row.sh: µs of the first timed 8-byte row of a fresh job, and the warm figure. */
export interface FirstRowRun {
  readonly first: number;
  /** The same without Init's warm-up and the V8 and node flags: what a fresh job got before them. */
  readonly before: number;
  readonly warm: number;
  readonly mpichFirst: number;
  /** A ping-pong timed as a program usually times it (bench/launch/first-row.js): its first row and the same job's warm row. */
  readonly loopFirst: number | null;
  readonly loopWarm: number | null;
  /** osu_latency's loop (the clock read as OMB reads it, first-row.js --omb): its first row and the same job's warm row. */
  readonly ombFirst: number | null;
  readonly ombWarm: number | null;
}

export interface Measured {
  /** osu_latency, osu_bw, osu_mbw_mr on 2 ranks. */
  readonly pointToPoint: readonly JsonBenchmark[];
  readonly collectives2: readonly JsonBenchmark[];
  readonly collectives4: readonly JsonBenchmark[];
  /** osu_acc_latency, osu_fop_latency, osu_cas_latency. */
  readonly oneSided: readonly JsonBenchmark[];
  readonly spread: readonly SpreadRow[];
  readonly spreadRuns: number;
  readonly firstRow: readonly FirstRowRun[];
  readonly startup: readonly StartupRow[];
}

/** Where and how the run was made, for the page's head. */
export interface RunFacts {
  readonly when: string;
  readonly commit: string;
  readonly machine: string;
  readonly mpich: string;
  readonly command: string;
  readonly repeat: number;
  /** The page's path relative to the document the block goes into (the README, or the page itself). */
  readonly page: string;
  /** The path from that document's folder to the repository's root ('' for the README, '../../../' for the page). */
  readonly toRoot: string;
  readonly minutes: number;
}

const COLLECTIVE_NAMES = ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'alltoall'] as const;

function find(list: readonly JsonBenchmark[], program: string): JsonBenchmark | null {
  return list.find((b) => b.program === program) ?? null;
}

function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || !(b > 0) ? null : a / b;
}


function value(x: number | null, digits = 2): string {
  return x === null ? '—' : x.toFixed(digits);
}

function size(bytes: number): string {
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

/** Messages per second in millions, or MB/s, at a width that keeps 3 significant digits. */
function rate(x: number | null, perMillion: boolean): string {
  if (x === null) return '—';
  const v = perMillion ? x / 1e6 : x;
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** "lo-hi" of `xs` (one figure when both print alike), each printed by `show` (2 decimals by default). */
function range(xs: readonly number[], show: (x: number) => string = (x) => x.toFixed(2)): string {
  if (xs.length === 0) return '—';
  const lo = show(Math.min(...xs));
  const hi = show(Math.max(...xs));
  return lo === hi ? lo : `${lo}-${hi}`;
}

/** A range of ratios, each as ratioText prints one. */
function ratioRange(xs: readonly number[]): string {
  return range(xs, ratioText);
}

/** The ratios of a benchmark's rows within [from, to] bytes, with their sizes. */
function ratios(b: JsonBenchmark | null, from: number, to: number): { size: number; r: number }[] {
  if (b === null) return [];
  const out: { size: number; r: number }[] = [];
  for (const row of b.rows) {
    const r = ratio(row.tsmpi, row.mpich);
    if (row.size >= from && row.size <= to && r !== null) out.push({ size: row.size, r });
  }
  return out;
}

/** A target: what this run shows, what the issue asks, and whether this run meets it. */
export interface Target {
  readonly what: string;
  readonly figure: string;
  readonly target: string;
  readonly met: boolean | null;
}

/** "0.59-1.22; below: 1 B, 2 B" for ratios that must stay at or above `floor` (or at or below `ceiling`). */
function bounded(rs: readonly { size: number; r: number }[], ok: (r: number) => boolean): { figure: string; met: boolean | null } {
  if (rs.length === 0) return { figure: 'not measured', met: null };
  const off = rs.filter((x) => !ok(x.r)).map((x) => size(x.size));
  const shown = off.length > 6 ? [...off.slice(0, 6), `${off.length - 6} more`] : off;
  return { figure: `${ratioRange(rs.map((x) => x.r))}${off.length > 0 ? `; not at: ${shown.join(', ')}` : ''}`, met: off.length === 0 };
}

export function targets(m: Measured): Target[] {
  const out: Target[] = [];
  const bw = bounded(ratios(find(m.pointToPoint, 'osu_bw'), 1, 65536), (r) => r >= 1);
  out.push({ what: '1. osu_bw 1 B - 64 KiB, best of the runs, tsmpi / MPICH', ...bw, target: '≥ 1 at every size' });
  if (m.spread.length > 0) {
    const worst = m.spread.reduce((a, b) => (b.tsmpiSpread > a.tsmpiSpread ? b : a));
    const over = m.spread.filter((s) => s.tsmpiSpread > 0.2).length;
    out.push({
      what: `1. osu_bw, spread of ${m.spreadRuns} fresh jobs (fastest / slowest - 1)`,
      figure: `tsmpi ${pct(Math.min(...m.spread.map((s) => s.tsmpiSpread)))}-${pct(worst.tsmpiSpread)} (over 20 % at ${over} of ` +
        `${m.spread.length} sizes), MPICH ${pct(Math.min(...m.spread.map((s) => s.mpichSpread)))}-` +
        `${pct(Math.max(...m.spread.map((s) => s.mpichSpread)))}`,
      target: '≤ 20 %', met: over === 0,
    });
  }
  const mr = bounded(ratios(find(m.pointToPoint, 'osu_mbw_mr'), 1, 65536), (r) => r >= 1);
  out.push({ what: '1. osu_mbw_mr 1 B - 64 KiB', ...mr, target: '≥ 1 at every size' });
  for (const [list, ranks, goal] of [[m.collectives2, 2, '≤ 1 each'], [m.collectives4, 4, 'not slower: ≤ 1 each']] as const) {
    const rs = COLLECTIVE_NAMES.map((name) => {
      const b = find(list, `osu_${name}`);
      const row = b?.rows.find((x) => name === 'barrier' || x.size === 8) ?? null;
      return { name, r: row === null ? null : ratio(row.tsmpi, row.mpich) };
    });
    const known = rs.filter((x): x is { name: (typeof COLLECTIVE_NAMES)[number]; r: number } => x.r !== null);
    const off = known.filter((x) => x.r > 1).map((x) => x.name);
    out.push({
      what: `2. Barrier, Bcast, Reduce, Allreduce, Allgather, Alltoall at 8 B, ${ranks} ranks`,
      figure: known.length === 0 ? 'not measured' : `${known.map((x) => ratioText(x.r)).join(' / ')}${off.length > 0 ? `; over: ${off.join(', ')}` : ''}`,
      target: goal, met: known.length === 0 ? null : off.length === 0 && known.length === COLLECTIVE_NAMES.length,
    });
  }
  const acc = bounded(ratios(find(m.oneSided, 'osu_acc_latency'), 128, 65536), (r) => r <= 1.5);
  out.push({ what: '3. osu_acc_latency 128 B - 64 KiB', ...acc, target: '≤ 1.5' });
  const atomics = ['osu_fop_latency', 'osu_cas_latency'].flatMap((p) => ratios(find(m.oneSided, p), 0, Infinity));
  out.push({ what: '3. Fetch_and_op, Compare_and_swap', ...bounded(atomics, (r) => r <= 1), target: '≤ 1' });
  if (m.firstRow.length > 0) {
    const jobs = m.firstRow.map((f) => f.first / f.warm);
    const loop = m.firstRow.flatMap((f) => (f.loopFirst === null || f.loopWarm === null ? [] : [f.loopFirst / f.loopWarm]));
    const omb = m.firstRow.flatMap((f) => (f.ombFirst === null || f.ombWarm === null ? [] : [f.ombFirst / f.ombWarm]));
    // Rows of one job decide when there are any: the first and warm rows of two fresh jobs also
    // carry the VM's job-to-job speed levels (docs/measuring.md), which MPICH's rows show as much.
    const judged = omb.length > 0 ? [...omb, ...loop] : [...jobs, ...loop];
    out.push({
      what: '4. first timed 8-byte row of a fresh job / warm: osu_latency, first and warm rows of two fresh jobs; ' +
        'osu_latency\'s loop and a program\'s loop, each in one job (bench/launch/first-row.js)',
      figure: [jobs, omb, loop].filter((x) => x.length > 0).map(ratioRange).join('; '), target: '≤ 1.3',
      met: Math.max(...judged) <= 1.3,
    });
  }
  const at32 = m.startup.find((s) => s.ranks === 32) ?? null;
  const shm = at32 === null ? null : ratio(at32.tsmpiShmMb, at32.mpichShmMb);
  out.push({ what: '6. shared memory per rank after Init, 32 ranks', figure: shm === null ? 'not measured' : ratioText(shm), target: '≤ 4', met: shm === null ? null : shm <= 4 });
  const launch = at32 === null ? null : ratio(at32.tsmpiMs, at32.mpichMs);
  const noCa = at32 === null ? null : ratio(at32.noCaMs, at32.mpichMs);
  out.push({
    what: '6. launch to the last Init, 32 ranks',
    figure: launch === null ? 'not measured' : `${ratioText(launch)}${noCa !== null ? ` (${ratioText(noCa)} without NODE_EXTRA_CA_CERTS)` : ''}`,
    target: '≤ 1.2', met: launch === null ? null : launch <= 1.2,
  });
  return out;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(0)} %`;
}

function verdict(met: boolean | null): string {
  return met === null ? '—' : met ? 'yes' : 'no';
}

function pointToPointTable(m: Measured): string[] {
  const lat = find(m.pointToPoint, 'osu_latency');
  const bw = find(m.pointToPoint, 'osu_bw');
  const mr = find(m.pointToPoint, 'osu_mbw_mr');
  const spread = new Map(m.spread.map((s) => [s.size, s]));
  const sizes = [...new Set([lat, bw, mr].flatMap((b) => b?.rows.map((r) => r.size) ?? []))].sort((a, b) => a - b);
  const cellOf = (b: JsonBenchmark | null, at: number, show: (x: number | null) => string): string => {
    const row = b?.rows.find((r) => r.size === at);
    if (row === undefined) return '—';
    return `${show(row.tsmpi)} / ${show(row.mpich)} (**${ratioText(ratio(row.tsmpi, row.mpich))}**)`;
  };
  const lines = [
    '| Size | osu_latency, µs: tsmpi / MPICH (ratio) | osu_bw, MB/s | osu_bw, medians of fresh jobs | osu_mbw_mr, M messages/s |',
    '|---:|---:|---:|---:|---:|',
  ];
  for (const at of sizes) {
    const s = spread.get(at);
    const medians = s === undefined ? '—' :
      `${rate(s.tsmpi, false)} / ${rate(s.mpich, false)} (**${ratioText(ratio(s.tsmpi, s.mpich))}**), spread ${pct(s.tsmpiSpread)} / ${pct(s.mpichSpread)}`;
    lines.push(`| ${size(at)} | ${cellOf(lat, at, (x) => value(x))} | ${cellOf(bw, at, (x) => rate(x, false))} | ${medians} | ` +
      `${cellOf(mr, at, (x) => rate(x, true))} |`);
  }
  return lines;
}

function collectivesTable(m: Measured): string[] {
  const lines = [
    '| 8 B, average latency | 2 ranks: tsmpi / MPICH, µs | ratio | 4 ranks on 2 cores: tsmpi / MPICH, µs | ratio |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const name of COLLECTIVE_NAMES) {
    const cells = [m.collectives2, m.collectives4].flatMap((list) => {
      const row = find(list, `osu_${name}`)?.rows.find((x) => name === 'barrier' || x.size === 8);
      if (row === undefined) return ['—', '—'];
      const digits = Math.max(row.tsmpi ?? 0, row.mpich ?? 0) >= 100 ? 0 : 2;
      return [`${value(row.tsmpi, digits)} / ${value(row.mpich, digits)}`, `**${ratioText(ratio(row.tsmpi, row.mpich))}**`];
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  return lines;
}

function oneSidedTable(m: Measured): string[] {
  const lines = ['| One-sided, 2 ranks | tsmpi, µs | MPICH, µs | ratio |', '|---|---:|---:|---:|'];
  const acc = find(m.oneSided, 'osu_acc_latency');
  for (const row of acc?.rows ?? []) {
    if (![1, 8, 128, 1024, 4096, 16384, 65536].includes(row.size)) continue;
    lines.push(`| Accumulate (SUM) ${size(row.size)} | ${value(row.tsmpi)} | ${value(row.mpich)} | **${ratioText(ratio(row.tsmpi, row.mpich))}** |`);
  }
  for (const [program, label] of [['osu_fop_latency', 'Fetch_and_op 8 B'], ['osu_cas_latency', 'Compare_and_swap 8 B']] as const) {
    const row = find(m.oneSided, program)?.rows[0];
    if (row !== undefined) lines.push(`| ${label} | ${value(row.tsmpi)} | ${value(row.mpich)} | **${ratioText(ratio(row.tsmpi, row.mpich))}** |`);
  }
  return lines;
}

function firstRowTable(m: Measured): string[] {
  if (m.firstRow.length === 0) return [];
  const f = m.firstRow;
  const loop = f.flatMap((x) => (x.loopFirst === null || x.loopWarm === null ? [] : [{ first: x.loopFirst, warm: x.loopWarm }]));
  const omb = f.flatMap((x) => (x.ombFirst === null || x.ombWarm === null ? [] : [{ first: x.ombFirst, warm: x.ombWarm }]));
  return [
    `| A fresh job's first timed 8-byte row (osu_latency -x 2000 -i 10000), ${plural(f.length, 'run')} | tsmpi, µs | MPICH, µs | ratio |`,
    '|---|---:|---:|---:|',
    `| first row | ${range(f.map((x) => x.first))} | ${range(f.map((x) => x.mpichFirst))} | **${ratioRange(f.map((x) => x.first / x.mpichFirst))}** |`,
    `| warm (the row after a pass over 0-64 B) | ${range(f.map((x) => x.warm))} | | first / warm **${ratioRange(f.map((x) => x.first / x.warm))}** |`,
    `| first row without Init's warm-up and the V8 and node flags | ${range(f.map((x) => x.before))} | | |`,
    ...(omb.length === 0 ? [] : [
      `| osu_latency's loop, clock read as OMB reads it, in one job (bench/launch/first-row.js --omb): first row, warm row ` +
        `of the same job | ${range(omb.map((x) => x.first))}, ${range(omb.map((x) => x.warm))} | | first / warm ` +
        `**${ratioRange(omb.map((x) => x.first / x.warm))}** |`,
    ]),
    ...(loop.length === 0 ? [] : [
      `| a program's own ping-pong loop, clock started after its untimed round trips (bench/launch/first-row.js): first row, ` +
        `warm row of the same job | ${range(loop.map((x) => x.first))}, ${range(loop.map((x) => x.warm))} | | first / warm ` +
        `**${ratioRange(loop.map((x) => x.first / x.warm))}** |`,
    ]),
  ];
}

function startupTable(m: Measured): string[] {
  if (m.startup.length === 0) return [];
  const withoutCa = m.startup.some((s) => s.noCaMs !== null);
  const lines = [
    `| Ranks on one node | launch to the last Init: tsmpi / MPICH, ms | ratio |${withoutCa ? ' without NODE_EXTRA_CA_CERTS: ms, ratio |' : ''} ` +
      'shared memory per rank after Init: tsmpi / MPICH, MB | ratio |',
    `|---:|---:|---:|${withoutCa ? '---:|' : ''}---:|---:|`,
  ];
  for (const s of m.startup) {
    const noCa = withoutCa ? ` ${value(s.noCaMs, 0)}, **${ratioText(ratio(s.noCaMs, s.mpichMs))}** |` : '';
    lines.push(`| ${s.ranks} | ${value(s.tsmpiMs, 0)} / ${value(s.mpichMs, 0)} | **${ratioText(ratio(s.tsmpiMs, s.mpichMs))}** |${noCa} ` +
      `${value(s.tsmpiShmMb)} / ${value(s.mpichShmMb)} | **${ratioText(ratio(s.tsmpiShmMb, s.mpichShmMb))}** |`);
  }
  return lines;
}

/**
 * The block the README carries between its small-messages markers, and the head of the page:
 * where the figures come from, the targets, and the five tables. Ratios are tsmpi / MPICH.
 */
export function summary(m: Measured, facts: RunFacts): string[] {
  const rows = targets(m);
  return [
    `From one run of \`${facts.command}\` (${plural(Math.max(1, Math.round(facts.minutes)), 'minute')}) at ${facts.commit}, ${facts.when}, ` +
      `on ${facts.machine}, beside ${facts.mpich} in the same run, each benchmark alternating tsmpi and MPICH ` +
      `(${facts.repeat === 1 ? 'one run a side' : `best of ${facts.repeat} runs a side`}, except where a column says medians); ` +
      `every figure and the commands behind them: [${facts.page.split('/').pop()}](${facts.page}). ` +
      'Ratios are tsmpi / MPICH: above 1 tsmpi takes longer (latency) or moves more (bandwidth, messages/s), ' +
      'as the column says. This VM runs the same job at speed levels up to ~2 x apart from one job to the next, for ' +
      `MPICH as for tsmpi ([measuring.md](${facts.toRoot}docs/measuring.md)), so a second run gives other digits.`,
    '',
    '| Issue 16\'s target | this run | asked | met |',
    '|---|---|---|---|',
    ...rows.map((t) => `| ${t.what} | ${t.figure} | ${t.target} | ${verdict(t.met)} |`),
    '',
    ...pointToPointTable(m),
    '',
    ...collectivesTable(m),
    '',
    ...oneSidedTable(m),
    '',
    ...firstRowTable(m),
    '',
    ...startupTable(m),
  ];
}

export const README_BEGIN = '<!-- small-messages:begin (written by node dist/bench/compare/small-messages.js --readme README.md) -->';
export const README_END = '<!-- small-messages:end -->';

/** `text` with the part between the markers replaced by `block`; throws when a marker is missing. */
export function replaceBlock(text: string, block: readonly string[]): string {
  const begin = text.indexOf(README_BEGIN);
  const end = text.indexOf(README_END);
  if (begin < 0 || end < begin) throw new Error(`the file has no ${README_BEGIN} ... ${README_END} block to replace`);
  return `${text.slice(0, begin + README_BEGIN.length)}\n${block.join('\n')}\n${text.slice(end)}`;
}
