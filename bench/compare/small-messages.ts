/**
 * Issue 16's measurements in one run, beside MPICH: point to point on 2 ranks (osu_latency,
 * osu_bw and osu_mbw_mr, 1 B - 64 KiB), the six small collectives at 8 B on 2 and on 4 ranks,
 * Accumulate, Fetch_and_op and Compare_and_swap, how much osu_bw's rows move between fresh
 * jobs (spread.sh), a fresh job's first timed row (first-row.sh), and start-up time and shared
 * memory against the number of ranks (bench/launch/startup.js). Each step is the project's own
 * command, run one after the other; the page (--out) holds the summary, the targets with
 * this run's figures, and every step's own output. --readme replaces the README's marked block
 * with the summary, so the README's figures come from one run, not from several sessions'.
 *
 *   node dist/bench/compare/small-messages.js [--repeat N] [--out FILE] [--readme FILE] [--quick]
 *
 * --quick: small counts and sizes and one run of each (a minute or two; for the tests, not for
 * figures). The full run takes ~20 minutes on this project's 2-vCPU VM.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { JsonBenchmark } from './compare.js';
import type { StartupRow } from '../launch/startup.js';
import { type Measured, parseFirstRow, parseSpread, replaceBlock, summary } from './small-messages-report.js';

const HERE = path.dirname(fileURLToPath(import.meta.url)); // dist/bench/compare
const ROOT = path.resolve(HERE, '..', '..', '..');
const COMPARE = path.join(HERE, 'compare.js');
const STARTUP = path.join(ROOT, 'dist', 'bench', 'launch', 'startup.js');
const COLLECTIVES = 'barrier,bcast,reduce,allreduce,allgather,alltoall';

interface Options { repeat: number; out: string | null; readme: string | null; quick: boolean }

function fail(status: number, message: string): never {
  process.stderr.write(`small-messages: ${message}\n`);
  process.exit(status);
}

const USAGE = 'usage: node dist/bench/compare/small-messages.js [--repeat N] [--out FILE] [--readme FILE] [--quick]';

function parse(argv: readonly string[]): Options {
  const o: Options = { repeat: 3, out: null, readme: null, quick: false };
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]!;
    const next = (): string => argv[++k] ?? fail(2, `${a} needs a value\n${USAGE}`);
    if (a === '--repeat') {
      const v = next();
      o.repeat = Number(v);
      if (!Number.isSafeInteger(o.repeat) || o.repeat < 1) fail(2, `--repeat needs a positive integer, got ${JSON.stringify(v)}`);
    } else if (a === '--out') o.out = next();
    else if (a === '--readme') {
      o.readme = next();
      if (!fs.existsSync(o.readme)) fail(2, `--readme ${o.readme}: no such file`);
    } else if (a === '--quick') o.quick = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else fail(2, `unknown argument ${JSON.stringify(a)}\n${USAGE}`);
  }
  if (o.readme !== null && o.out === null) fail(2, '--readme links the README to the page of the run: give --out FILE too');
  if (o.quick) o.repeat = 1;
  return o;
}

/** One step's command and what it printed. */
interface Step { readonly title: string; readonly shown: string; readonly stdout: string }

/** Runs a step to its end (its progress on our stderr); a failed step ends the run, naming it. */
function runStep(title: string, command: string, args: readonly string[], timeoutS: number): Step {
  const shown = [command === process.execPath ? 'node' : command, ...args.map((a) => (path.isAbsolute(a) ? path.relative(ROOT, a) : a))].join(' ');
  process.stderr.write(`small-messages: ${title}: ${shown}\n`);
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: timeoutS * 1000, maxBuffer: 64 << 20 });
  if (r.error !== undefined || r.status !== 0) {
    const why = r.error !== undefined ? r.error.message : r.signal !== null ? `killed by ${r.signal}` : `exit status ${r.status}`;
    fail(1, `${title} failed (${why}): ${shown}\n${r.stdout ?? ''}`);
  }
  return { title, shown, stdout: r.stdout };
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

function git(args: string[]): string {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

function mpichVersion(): string {
  const r = spawnSync('mpichversion', [], { encoding: 'utf8' });
  const v = r.status === 0 ? /MPICH Version:\s*(\S+)/.exec(r.stdout)?.[1] : undefined;
  return v === undefined ? 'MPICH' : `MPICH ${v}`;
}

function main(): void {
  const o = parse(process.argv.slice(2));
  for (const f of [COMPARE, STARTUP]) if (!fs.existsSync(f)) fail(2, `${f} is missing; run npx tsc -p tsconfig.json first`);
  const started = Date.now();
  // The tree as measured, at the start: changes to markdown (the README this run writes) do not count.
  const commit = git(['rev-parse', '--short', 'HEAD']) || 'an unknown commit';
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', '.', ':!*.md']) !== '';
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-small-messages-'));
  const node = process.execPath;
  const repeat = ['--repeat', String(o.repeat)];
  // Quick: a few iterations of a few sizes, enough for every table to have its rows.
  const counts = (iterations: number, warmup: number): string[] => (o.quick ? ['--iterations', String(iterations), '--warmup', String(warmup)] : []);
  const compare = (title: string, json: string, args: string[]): { step: Step; benchmarks: JsonBenchmark[] } => {
    const file = path.join(scratch, json);
    const step = runStep(title, node, [COMPARE, ...args, ...repeat, '--json', file], 3600);
    return { step, benchmarks: readJson<{ benchmarks: JsonBenchmark[] }>(file).benchmarks };
  };
  const p2p = compare('point to point', 'p2p.json', ['--bench', 'latency,bw,mbw_mr', '--sizes', o.quick ? '1:16' : '1:65536', ...counts(20, 2)]);
  const coll2 = compare('collectives, 2 ranks', 'coll2.json', ['--bench', COLLECTIVES, '-n', '2', '--sizes', '8:8', ...counts(50, 5)]);
  const coll4 = compare('collectives, 4 ranks', 'coll4.json', ['--bench', COLLECTIVES, '-n', '4', '--sizes', '8:8', ...counts(20, 2)]);
  const rma = compare('one-sided', 'rma.json', ['--bench', 'acc_latency,fop_latency,cas_latency', '--sizes', o.quick ? '1:128' : '1:65536', ...counts(50, 5)]);
  const spreadRuns = o.quick ? 2 : 5;
  const spread = runStep('osu_bw across fresh jobs', 'bash', [path.join(ROOT, 'bench', 'compare', 'spread.sh'), String(spreadRuns), 'bw', o.quick ? '1:16' : '1:65536'], 3600);
  const first = runStep('first row', 'bash', [path.join(ROOT, 'bench', 'compare', 'first-row.sh'), String(o.quick ? 1 : 3)], 1800);
  const startupJson = path.join(scratch, 'startup.json');
  const startup = runStep('start-up and memory', node, [STARTUP, '-i', String(o.quick ? 1 : 3), '--json', startupJson,
    ...(o.quick ? ['2'] : ['2', '4', '8', '16', '32', '64'])], 3600);

  const measured: Measured = {
    pointToPoint: p2p.benchmarks, collectives2: coll2.benchmarks, collectives4: coll4.benchmarks, oneSided: rma.benchmarks,
    spread: parseSpread(spread.stdout), spreadRuns, firstRow: parseFirstRow(first.stdout),
    startup: readJson<{ rows: StartupRow[] }>(startupJson).rows,
  };
  if (measured.spread.length === 0) fail(1, `spread.sh printed no table:\n${spread.stdout}`);
  if (measured.firstRow.length === 0) fail(1, `first-row.sh printed no runs:\n${first.stdout}`);
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  // The same block twice: for the README (links from its folder) and for the page (from the page's).
  const linked = (documentDir: string): { page: string; toRoot: string } => ({
    page: o.out === null ? 'the page of this run' : path.relative(documentDir, path.resolve(o.out)),
    toRoot: path.relative(documentDir, ROOT).split(path.sep).map((part) => `${part}/`).join('').replace(/^\/$/, ''),
  });
  const facts = {
    when: new Date(started).toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    commit: `${commit}${dirty ? ' with uncommitted changes' : ''}`,
    machine: `${os.hostname()} (${os.availableParallelism()} CPUs, ${cpu}, node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)} at the end)`,
    mpich: mpichVersion(),
    command: `node dist/bench/compare/small-messages.js ${process.argv.slice(2).join(' ')}`.trim(),
    repeat: o.repeat, minutes: (Date.now() - started) / 60_000,
  };
  const pageDir = o.out === null ? ROOT : path.dirname(path.resolve(o.out));
  const block = summary(measured, { ...facts, ...linked(o.readme === null ? ROOT : path.dirname(path.resolve(o.readme))) });
  const pageBlock = summary(measured, { ...facts, ...linked(pageDir) });
  const steps = [p2p.step, coll2.step, coll4.step, rma.step, spread, first, startup];
  const text = [
    `# Small messages and a node full of ranks, tsmpi beside MPICH: one run`,
    '',
    ...pageBlock,
    '',
    '## Each step\'s own output',
    '',
    ...steps.flatMap((s) => [`### ${s.title}`, '', `\`${s.shown}\``, '', ...(s.stdout.startsWith('#') && s.title !== 'start-up and memory' ?
      [s.stdout.replace(/^# /, '#### ').replace(/^## /gm, '#### ')] : ['```', s.stdout.trimEnd(), '```']), '']),
  ].join('\n');
  process.stdout.write(`${block.join('\n')}\n`);
  if (o.out !== null) {
    fs.mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
    fs.writeFileSync(o.out, `${text}\n`);
    process.stderr.write(`small-messages: wrote ${o.out}\n`);
  }
  if (o.readme !== null) {
    fs.writeFileSync(o.readme, replaceBlock(fs.readFileSync(o.readme, 'utf8'), block));
    process.stderr.write(`small-messages: replaced the figures in ${o.readme}\n`);
  }
  fs.rmSync(scratch, { recursive: true, force: true });
}

main();
