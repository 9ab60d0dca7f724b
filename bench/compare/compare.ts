/**
 * tsmpi against a C MPI (MPICH), side by side: builds bench/compare/osu_pt2pt.c with mpicc
 * into bench/compare/build/ (git ignores it), runs osu_latency and osu_bw on both in one go
 * with the same sizes and counts, 2 ranks each, and prints one markdown table per benchmark
 * (Size | tsmpi | MPICH | ratio tsmpi/MPICH), also written to --out when given.
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bench/compare/compare.js [--sizes MIN:MAX] [--iterations N] [--warmup N] [--window N]
 *                                       [--bench latency,bw] [--repeat N] [--timeout S] [--out FILE]
 *   node dist/bench/compare/compare.js --sizes 0:65536 --iterations 2000 --out /tmp/p2p.md
 *
 * Defaults: sizes 0:1048576 (OMB's largest point-to-point size; osu_bw starts at 1), OMB's
 * iteration counts (latency 10000 timed/100 warm-up, 1000/10 above 8 KiB; bandwidth 100/10
 * and 20/2 windows of 64) and 3 runs per side, alternating tsmpi and MPICH, the table keeping
 * the best value per size (lowest latency, highest bandwidth): about 15 s on two idle cores.
 * --iterations and --warmup are passed as -i and -x, which OMB applies to every size.
 * TSMPI_* variables in the environment reach the tsmpi ranks. On a shared machine numbers
 * move from run to run; the best of several runs is the steadiest figure of one.
 *
 * The two sides run the same algorithm and print the same format (see osu_pt2pt.c), so the
 * rows are read by one parser. Exits 2 when mpicc or mpiexec is missing (or on a bad option),
 * 1 when a build or a run fails (with its output).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url)); // dist/bench/compare
const ROOT = path.resolve(HERE, '..', '..', '..');
const SOURCE = path.join(ROOT, 'bench', 'compare', 'osu_pt2pt.c');
const BUILD = path.join(ROOT, 'bench', 'compare', 'build');
const TSMPIEXEC = path.join(ROOT, 'dist', 'bin', 'tsmpiexec.js');
/**
 * V8 compiles and collects garbage on helper threads; with as many spinning ranks as cores
 * those threads preempt a rank for a scheduler slice and its peer spins into a futex sleep.
 * `--single-threaded` keeps that work on the rank's own thread, as a C rank has it. (Not
 * `--expose-gc`: osu_latency would then run a full collection before each small size, and the
 * rows after it measured 2-3 x slower on this machine.)
 * (TSMPI_BENCH_NODE_FLAGS overrides; the flags are printed with the command).
 */
const RANK_NODE_FLAGS = (process.env.TSMPI_BENCH_NODE_FLAGS ?? '--single-threaded').split(/\s+/).filter((f) => f !== '');
const OSU_DIST = path.join(ROOT, 'dist', 'bench', 'osu');

interface Settings {
  sizes: string;
  iterations: number | null;
  warmup: number | null;
  window: number | null;
  benches: Bench[];
  timeoutS: number;
  repeat: number;
  out: string | null;
}

type Bench = 'latency' | 'bw';

interface BenchInfo {
  readonly program: string; // osu_latency
  readonly unit: string;
  readonly better: string; // how to read the ratio
  /** Picks the better of two results (lower latency, higher bandwidth). */
  readonly best: (a: number, b: number) => number;
  readonly cFlags: readonly string[];
}

const BENCHES: Record<Bench, BenchInfo> = {
  latency: {
    program: 'osu_latency', unit: 'Latency (us)', cFlags: [], best: Math.min,
    better: 'lower is better; ratio = tsmpi / MPICH, above 1 means tsmpi is slower',
  },
  bw: {
    program: 'osu_bw', unit: 'Bandwidth (MB/s)', cFlags: ['-DOSU_BW'], best: Math.max,
    better: 'higher is better; ratio = tsmpi / MPICH, below 1 means tsmpi is slower',
  },
};

const USAGE = `usage: node dist/bench/compare/compare.js [options]
  --sizes MIN:MAX     message sizes, passed as -m (default 0:1048576)
  --iterations N      timed iterations per size, passed as -i (default: OMB's, fewer above 8 KiB)
  --warmup N          warm-up iterations per size, passed as -x (default: OMB's)
  --window N          osu_bw window, passed as -W (default 64)
  --bench LIST        latency, bw or latency,bw (default latency,bw)
  --repeat N          runs per side, alternating tsmpi and MPICH; the table shows the best
                      value per size (default 3)
  --timeout S         limit per run in seconds (default 300)
  --out FILE          also write the markdown to FILE
  -h, --help          this text
`;

function fail(status: number, message: string): never {
  process.stderr.write(`compare: ${message}\n`);
  process.exit(status);
}

function positive(flag: string, text: string | undefined, zeroOk = false): number {
  const n = Number(text);
  if (text === undefined || !Number.isSafeInteger(n) || n < (zeroOk ? 0 : 1)) {
    fail(2, `${flag} needs ${zeroOk ? 'a non-negative' : 'a positive'} integer, got ${text === undefined ? 'nothing' : JSON.stringify(text)}`);
  }
  return n;
}

function parseArgs(argv: readonly string[]): Settings {
  const s: Settings = {
    sizes: '0:1048576', iterations: null, warmup: null, window: null, benches: ['latency', 'bw'], timeoutS: 300, repeat: 3, out: null,
  };
  for (let k = 0; k < argv.length; k++) {
    const flag = argv[k]!;
    const value = (): string | undefined => argv[++k];
    switch (flag) {
      case '--sizes': {
        const v = value();
        if (v === undefined || !/^(\d+)?(:(\d+)?)?$/.test(v) || v === '' || v === ':') fail(2, `--sizes needs MIN:MAX or MAX, got ${JSON.stringify(v)}`);
        s.sizes = v;
        break;
      }
      case '--iterations': s.iterations = positive(flag, value()); break;
      case '--warmup': s.warmup = positive(flag, value(), true); break;
      case '--window': s.window = positive(flag, value()); break;
      case '--timeout': s.timeoutS = positive(flag, value()); break;
      case '--repeat': s.repeat = positive(flag, value()); break;
      case '--out': {
        const v = value();
        if (v === undefined) fail(2, '--out needs a file name');
        s.out = v;
        break;
      }
      case '--bench': {
        const list = (value() ?? '').split(',').filter((b) => b !== '');
        for (const b of list) if (b !== 'latency' && b !== 'bw') fail(2, `--bench takes latency and/or bw, got ${JSON.stringify(b)}`);
        if (list.length === 0) fail(2, '--bench needs latency, bw or latency,bw');
        s.benches = list as Bench[];
        break;
      }
      case '-h': case '--help':
        process.stdout.write(USAGE);
        process.exit(0);
        break;
      default:
        fail(2, `unknown option ${JSON.stringify(flag)}\n${USAGE}`);
    }
  }
  return s;
}

function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir || '.', command);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

interface RunOutput {
  readonly command: string;
  readonly facts: string[]; // the '#' lines above the column line
  readonly rows: Map<number, number>;
  readonly seconds: number[];
}

const ROW = /^(\d+)\s+(-?\d+\.\d+)(\s+\S+)?\s*$/;

/** Runs one benchmark to its end and reads its '#' facts and rows; fails the comparison on error. */
function runBenchmark(label: string, display: string, command: string, args: readonly string[], timeoutS: number): RunOutput {
  const show = (a: string): string => (a === process.execPath ? 'node' : path.isAbsolute(a) ? path.relative(ROOT, a) : a);
  const shown = [display, ...args.map(show)].join(' ');
  process.stderr.write(`compare: ${label}: ${shown}\n`);
  const t0 = Date.now();
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout: timeoutS * 1000, killSignal: 'SIGKILL', maxBuffer: 16 << 20 });
  const seconds = (Date.now() - t0) / 1000;
  if (r.error !== undefined || r.status !== 0) {
    const why = r.error !== undefined ? r.error.message : r.signal !== null ? `killed by ${r.signal}` : `exit status ${r.status}`;
    fail(1, `${label} failed (${why}) after ${seconds.toFixed(1)} s: ${shown}\n--- stdout\n${r.stdout ?? ''}--- stderr\n${r.stderr ?? ''}`);
  }
  const facts: string[] = [];
  const rows = new Map<number, number>();
  let inTable = false;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('# Size')) inTable = true;
    else if (line.startsWith('#') && !inTable) facts.push(line.slice(1).trim());
    const m = ROW.exec(line);
    if (m) rows.set(Number(m[1]), Number(m[2]));
  }
  if (rows.size === 0) fail(1, `${label} printed no result rows: ${shown}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`);
  return { command: shown, facts, rows, seconds: [seconds] };
}

/** Folds a new run into the best-so-far (per size, the better value of the two). */
function merge(info: BenchInfo, best: RunOutput | null, next: RunOutput): RunOutput {
  if (best === null) return next;
  const rows = new Map(best.rows);
  for (const [size, value] of next.rows) {
    const old = rows.get(size);
    rows.set(size, old === undefined ? value : info.best(old, value));
  }
  return { command: best.command, facts: best.facts, rows, seconds: [...best.seconds, ...next.seconds] };
}

function build(info: BenchInfo, mpicc: string): string {
  const exe = path.join(BUILD, `${info.program}_c`);
  fs.mkdirSync(BUILD, { recursive: true });
  const args = ['-O2', '-Wall', ...info.cFlags, '-o', exe, SOURCE];
  const r = spawnSync(mpicc, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    fail(1, `building ${path.relative(ROOT, exe)} failed: ${mpicc} ${args.join(' ')}\n${r.stderr ?? ''}${r.error?.message ?? ''}`);
  }
  return exe;
}

function runTimes(r: RunOutput): string {
  return `${r.seconds.length} run${r.seconds.length === 1 ? '' : 's'}: ${r.seconds.map((t) => t.toFixed(1)).join(', ')} s`;
}

function cell(x: number | undefined): string {
  return x === undefined ? '—' : x.toFixed(2);
}

function table(info: BenchInfo, tsmpi: RunOutput, mpich: RunOutput, repeat: number): string[] {
  const sizes = [...new Set([...tsmpi.rows.keys(), ...mpich.rows.keys()])].sort((a, b) => a - b);
  const lines = [
    `## ${info.program}: ${info.unit}, ${info.better}`,
    '',
    repeat > 1 ? `Best of ${repeat} runs per side and size (${info.best === Math.min ? 'lowest' : 'highest'} value), runs alternating.` : 'One run per side.',
    '',
    `- tsmpi (${runTimes(tsmpi)}): \`${tsmpi.command}\``,
    ...tsmpi.facts.map((f) => `  - ${f}`),
    `- MPICH (${runTimes(mpich)}): \`${mpich.command}\``,
    ...mpich.facts.map((f) => `  - ${f}`),
    '',
    '| Size | tsmpi | MPICH | ratio |',
    '|---:|---:|---:|---:|',
  ];
  for (const size of sizes) {
    const a = tsmpi.rows.get(size);
    const b = mpich.rows.get(size);
    const ratio = a !== undefined && b !== undefined && b > 0 ? (a / b).toFixed(2) : '—';
    lines.push(`| ${size} | ${cell(a)} | ${cell(b)} | ${ratio} |`);
  }
  lines.push('');
  return lines;
}

function main(): void {
  const s = parseArgs(process.argv.slice(2));
  const mpicc = which('mpicc');
  const mpiexec = which('mpiexec');
  if (mpicc === null || mpiexec === null) {
    const missing = [mpicc === null ? 'mpicc' : null, mpiexec === null ? 'mpiexec' : null].filter((x) => x !== null).join(' and ');
    fail(2, `${missing} not found on PATH; the comparison needs a C MPI (e.g. apt-get install mpich libmpich-dev)`);
  }
  if (!fs.existsSync(SOURCE)) fail(2, `${SOURCE} is missing`);
  if (!fs.existsSync(TSMPIEXEC)) fail(2, `${TSMPIEXEC} is missing; run npx tsc -p tsconfig.json first`);

  const started = Date.now();
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const markdown = [
    '# tsmpi and MPICH, point to point, 2 ranks on one node',
    '',
    `${new Date().toISOString()}, ${os.hostname()}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
      `load average ${load} at start, node ${process.version}. Same algorithm, sizes and iteration counts on both sides ` +
      '(bench/osu/*.ts and bench/compare/osu_pt2pt.c).',
    '',
  ];
  for (const bench of s.benches) {
    const info = BENCHES[bench];
    const exe = build(info, mpicc!);
    const args = ['-m', s.sizes];
    if (s.iterations !== null) args.push('-i', String(s.iterations));
    if (s.warmup !== null) args.push('-x', String(s.warmup));
    if (bench === 'bw' && s.window !== null) args.push('-W', String(s.window));
    const script = path.join(OSU_DIST, `${info.program}.js`);
    if (!fs.existsSync(script)) fail(2, `${script} is missing; run npx tsc -p tsconfig.json first`);
    let tsmpi: RunOutput | null = null;
    let mpich: RunOutput | null = null;
    for (let k = 1; k <= s.repeat; k++) {
      const round = s.repeat > 1 ? ` (run ${k} of ${s.repeat})` : '';
      tsmpi = merge(info, tsmpi, runBenchmark(`tsmpi ${info.program}${round}`, 'node', process.execPath,
        [TSMPIEXEC, '-n', '2', '--timeout', String(s.timeoutS), process.execPath, ...RANK_NODE_FLAGS, script, ...args], s.timeoutS + 10));
      mpich = merge(info, mpich, runBenchmark(`MPICH ${info.program}${round}`, 'mpiexec', mpiexec!,
        ['-n', '2', exe, ...args], s.timeoutS));
    }
    markdown.push(...table(info, tsmpi!, mpich!, s.repeat));
  }
  markdown.push(`Total ${((Date.now() - started) / 1000).toFixed(1)} s.`, '');
  const text = markdown.join('\n');
  process.stdout.write(text);
  if (s.out !== null) {
    fs.mkdirSync(path.dirname(path.resolve(s.out)), { recursive: true });
    fs.writeFileSync(s.out, text);
    process.stderr.write(`compare: wrote ${s.out}\n`);
  }
}

main();
