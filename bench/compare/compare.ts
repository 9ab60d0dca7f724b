/**
 * tsmpi against a C MPI (MPICH), side by side: builds bench/compare/osu_pt2pt.c and
 * osu_coll.c with mpicc into bench/compare/build/ (git ignores it), runs each chosen benchmark
 * on both in one go with the same sizes and counts, and prints one markdown table per benchmark
 * (Size | tsmpi | MPICH | ratio tsmpi/MPICH), then, for several collectives, their ratios in one
 * table (a column per collective), all also written to --out when given.
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bench/compare/compare.js [--sizes MIN:MAX] [--iterations N] [--warmup N] [--window N]
 *                                       [--bench LIST] [-n RANKS] [--repeat N] [--timeout S] [--out FILE] [--json FILE]
 *                                       [--launch "TSMPIEXEC ARGS"]
 *                                       [--netns-hosts K | --hosts H1,H2,... [--launcher-exec CMD]] [--ucx-tls TLS]
 *   node dist/bench/compare/compare.js --sizes 0:65536 --iterations 2000 --out /tmp/p2p.md
 *   node dist/bench/compare/compare.js --bench coll -n 2 --out /tmp/coll-2.md
 *   node dist/bench/compare/compare.js --netns-hosts 2 --bench latency,bw,bibw,coll,rma \
 *        --out bench/compare/results/hosts-2.md
 *
 * Across hosts (--netns-hosts K, or --hosts with --launcher-exec on a real cluster): both sides
 * start under MPICH's hydra, one rank per host (rank k on host k mod K), with the same UCX_TLS
 * (default tcp): see hosts.ts. Point to point uses the first two hosts; the collectives default
 * to one rank per host (-n more places several ranks on a host, where tsmpi's ch_shmem and
 * MPICH's shared memory carry their pairs).
 *
 * --launch passes arguments to tsmpiexec for the tsmpi side, e.g. a ch_sci configuration
 * (`--launch "--sci-nodes 2"` or `--launch "-x TSMPI_DEVICE=sci"`); the report names them.
 * Point to point (latency, bw) runs on 2 ranks; the collectives (barrier, bcast, reduce,
 * allreduce, allgather, alltoall, gather, scatter, or `coll` for all eight; bcast_persistent and
 * allreduce_persistent, MPI-4's persistent collectives, or `persistent` for both: bench/osu/coll.ts
 * against osu_coll.c, OMB's method and average latency across ranks) on -n ranks (default 4).
 * Defaults: sizes 0:1048576 for point to point (OMB's largest; osu_bw starts at 1) and
 * 1:1048576 for collectives (OMB's collective default); OMB's iteration counts (latency and
 * collectives 10000 timed/100 warm-up, 1000/10 above 8 KiB; bandwidth 100/10 and 20/2 windows of
 * 64) and 3 runs per side, alternating tsmpi and MPICH, the table keeping the best value per
 * size (lowest latency, highest bandwidth). --iterations and --warmup are passed as -i and -x,
 * which OMB applies to every size.
 *
 * More ranks than CPUs: MPICH 4.0.2 (Debian's ch4:ucx) waits by polling and never gives the CPU
 * up: libmpich.so imports neither sched_yield nor any sleep call; MPIR_CVAR_POLLS_BEFORE_YIELD belongs
 * to ch3:nemesis and ch4 ignores it; no MPIR_CVAR_CH4_* or POSIX shm setting changes that
 * (measured here with 4 ranks on 2 CPUs: osu_barrier 8 ms per call with the defaults,
 * MPIR_CVAR_POLLS_BEFORE_YIELD=1 or MPIR_CVAR_CH4_SHM=posix; 5 ms with MPIR_CVAR_NOLOCAL=1, i.e.
 * through UCX, which is no shared-memory setting). A waiting MPICH rank then holds its CPU until
 * the scheduler preempts it, so each call costs scheduler slices (milliseconds) instead of
 * microseconds; the report says so above such tables. There is nothing to set, so the MPICH
 * ranks run with MPICH's defaults; MPIR_CVAR_* variables in the environment reach them, as
 * TSMPI_* variables reach the tsmpi ranks. Because every MPICH call then takes milliseconds,
 * collective runs with more ranks than CPUs default to -i 100 -x 10 on both sides (unless
 * --iterations/--warmup say otherwise), which is still minutes per benchmark.
 *
 * On a shared machine numbers move from run to run; the best of several runs is the steadiest
 * figure of one. The two sides run the same algorithm and print the same format (see
 * osu_pt2pt.c, osu_coll.c), so the rows are read by one parser. Exits 2 when mpicc or mpiexec
 * is missing (or on a bad option); when a build or a run fails it prints that run's output,
 * goes on with the other benchmarks, marks the failed one in the report and exits 1.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { checkHosts, emulatedHosts, findHydra, type HostLaunch, hydraCommand, namedHosts } from './hosts.js';
import { ratioText } from './ratio-text.js';

const HERE = path.dirname(fileURLToPath(import.meta.url)); // dist/bench/compare
const ROOT = path.resolve(HERE, '..', '..', '..');
const SOURCES = path.join(ROOT, 'bench', 'compare');
const BUILD = path.join(ROOT, 'bench', 'compare', 'build');
const TSMPIEXEC = path.join(ROOT, 'dist', 'bin', 'tsmpiexec.js');
/**
 * Node flags of the tsmpi ranks: none, as users run them (TSMPI_BENCH_NODE_FLAGS adds some, e.g.
 * `--single-threaded`; the flags are printed with the command). What V8 settings help, MPI.Init
 * sets itself (TSMPI_V8_FLAGS, src/mpir/warmup.ts).
 */
const RANK_NODE_FLAGS = (process.env.TSMPI_BENCH_NODE_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');
const OSU_DIST = path.join(ROOT, 'dist', 'bench', 'osu');

interface Settings {
  sizes: string | null;
  iterations: number | null;
  warmup: number | null;
  window: number | null;
  benches: Bench[];
  ranks: number;
  timeoutS: number;
  repeat: number;
  out: string | null;
  /** Where to write the best rows of each benchmark as JSON (small-messages.ts reads them), or null. */
  json: string | null;
  /** Extra tsmpiexec arguments for the tsmpi side (--launch "--sci-nodes 2", "-x TSMPI_DEVICE=sci"). */
  launch: string[];
  /** Whether -n was given (across hosts the collectives default to one rank per host). */
  ranksGiven: boolean;
  netnsHosts: number | null;
  hostList: string | null;
  launcherExec: string | null;
  /** UCX_TLS for both sides across hosts; 'default' leaves each library's own. */
  ucxTls: string;
  /** Where the ranks run across hosts (from --netns-hosts or --hosts), or null for this host. */
  hosts: HostLaunch | null;
}

const POINT_TO_POINT = ['latency', 'bw', 'bibw', 'mbw_mr'] as const;
const ONE_SIDED = ['put_latency', 'get_latency', 'put_bw', 'get_bw', 'acc_latency', 'fop_latency', 'cas_latency'] as const;
const COLLECTIVES = ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'alltoall', 'gather', 'scatter'] as const;
/** MPI-4's persistent collectives (OMB's collective/persistent): Start + Wait of a request made once per size. */
const PERSISTENT = ['bcast_persistent', 'allreduce_persistent'] as const;
type Bench = (typeof POINT_TO_POINT)[number] | (typeof COLLECTIVES)[number] | (typeof PERSISTENT)[number] |
  (typeof ONE_SIDED)[number];

interface BenchInfo {
  readonly program: string; // osu_latency
  readonly source: string; // in bench/compare
  readonly collective: boolean;
  /** osu_barrier: one row without a size. */
  readonly sizeless: boolean;
  readonly unit: string;
  readonly better: string; // how to read the ratio
  /** Picks the better of two results (lower latency, higher bandwidth). */
  readonly best: (a: number, b: number) => number;
  readonly cFlags: readonly string[];
  /** osu_mbw_mr: the value compared is the row's third column (Messages/s), not its second (MB/s). */
  readonly thirdColumn?: boolean;
}

const LOWER = 'lower is better; ratio = tsmpi / MPICH, above 1 means tsmpi is slower';

function collective(name: (typeof COLLECTIVES)[number] | (typeof PERSISTENT)[number]): BenchInfo {
  return {
    program: `osu_${name}`, source: 'osu_coll.c', collective: true, sizeless: name === 'barrier',
    unit: 'Avg Latency (us)', cFlags: [`-DOSU_${name.toUpperCase()}`], best: Math.min, better: LOWER,
  };
}

function oneSided(name: (typeof ONE_SIDED)[number]): BenchInfo {
  const bw = name.endsWith('_bw');
  return {
    program: `osu_${name}`, source: 'osu_rma.c', collective: false, sizeless: false,
    unit: bw ? 'Bandwidth (MB/s)' : 'Latency (us)', cFlags: [`-DOSU_${name.toUpperCase()}`], best: bw ? Math.max : Math.min,
    better: bw ? 'higher is better; ratio = tsmpi / MPICH, below 1 means tsmpi is slower' : LOWER,
  };
}

const BENCHES: Record<Bench, BenchInfo> = {
  latency: {
    program: 'osu_latency', source: 'osu_pt2pt.c', collective: false, sizeless: false,
    unit: 'Latency (us)', cFlags: [], best: Math.min, better: LOWER,
  },
  bw: {
    program: 'osu_bw', source: 'osu_pt2pt.c', collective: false, sizeless: false,
    unit: 'Bandwidth (MB/s)', cFlags: ['-DOSU_BW'], best: Math.max,
    better: 'higher is better; ratio = tsmpi / MPICH, below 1 means tsmpi is slower',
  },
  bibw: {
    program: 'osu_bibw', source: 'osu_pt2pt.c', collective: false, sizeless: false,
    unit: 'Bandwidth (MB/s)', cFlags: ['-DOSU_BIBW'], best: Math.max,
    better: 'higher is better; ratio = tsmpi / MPICH, below 1 means tsmpi is slower',
  },
  mbw_mr: {
    program: 'osu_mbw_mr', source: 'osu_pt2pt.c', collective: false, sizeless: false,
    unit: 'Messages/s', cFlags: ['-DOSU_MBW_MR'], best: Math.max, thirdColumn: true,
    better: 'higher is better; ratio = tsmpi / MPICH, below 1 means tsmpi is slower',
  },
  barrier: collective('barrier'),
  bcast: collective('bcast'),
  reduce: collective('reduce'),
  allreduce: collective('allreduce'),
  allgather: collective('allgather'),
  alltoall: collective('alltoall'),
  gather: collective('gather'),
  scatter: collective('scatter'),
  bcast_persistent: collective('bcast_persistent'),
  allreduce_persistent: collective('allreduce_persistent'),
  put_latency: oneSided('put_latency'),
  get_latency: oneSided('get_latency'),
  put_bw: oneSided('put_bw'),
  get_bw: oneSided('get_bw'),
  acc_latency: oneSided('acc_latency'),
  fop_latency: oneSided('fop_latency'),
  cas_latency: oneSided('cas_latency'),
};

/** Iterations per size for collectives with more ranks than CPUs (see the file comment). */
const OVERSUBSCRIBED_ITERATIONS = 100;
const OVERSUBSCRIBED_WARMUP = 10;

const USAGE = `usage: node dist/bench/compare/compare.js [options]
  --sizes MIN:MAX     message sizes, passed as -m (default 0:1048576 for latency and bw,
                      1:1048576 for collectives)
  --iterations N      timed iterations per size, passed as -i (default: OMB's, fewer above 8 KiB;
                      ${OVERSUBSCRIBED_ITERATIONS} for collectives on more ranks than CPUs)
  --warmup N          warm-up iterations per size, passed as -x (default: OMB's;
                      ${OVERSUBSCRIBED_WARMUP} for collectives on more ranks than CPUs)
  --window N          osu_bw, osu_bibw and osu_mbw_mr window, passed as -W (default 64)
  --bench LIST        comma-separated: latency, bw, bibw, mbw_mr, ${COLLECTIVES.join(', ')},
                      or coll for all of them, ${PERSISTENT.join(', ')}, or persistent for
                      both, ${ONE_SIDED.join(', ')}, or rma for all one-sided ones
                      (default latency,bw)
  -n, --ranks N       ranks for the collectives (default 4, across hosts one per host; point to
                      point always runs on 2)
  --repeat N          runs per side, alternating tsmpi and MPICH; the table shows the best
                      value per size (default 3)
  --timeout S         limit per run in seconds (default 300)
  --out FILE          also write the markdown to FILE
  --json FILE         also write each benchmark's best rows to FILE as JSON ({ benchmarks: [{ program,
                      ranks, unit, better, oversubscribed, rows: [{ size, tsmpi, mpich }] }] })
  --netns-hosts K     run both sides across K emulated hosts h1..hK under hydra (as root; brings
                      them up with ../shared/tools/netns-hosts.sh)
  --hosts H1,H2,...   run both sides across these hosts under hydra (mpiexec.hydra -hosts)
  --launcher-exec CMD with --hosts: hydra's -bootstrap-exec (default ssh)
  --ucx-tls TLS       UCX_TLS of both sides across hosts (default tcp; 'default' leaves each
                      library's own: MPICH's UCX picks, tsmpi's ch_ucx uses ^sm)
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
    sizes: null, iterations: null, warmup: null, window: null, benches: ['latency', 'bw'], ranks: 4, timeoutS: 300, repeat: 3,
    out: null, json: null, launch: [], ranksGiven: false, netnsHosts: null, hostList: null, launcherExec: null, ucxTls: 'tcp',
    hosts: null,
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
      case '-n': case '--ranks': {
        const n = positive(flag, value());
        if (n < 2) fail(2, `${flag} needs at least 2 ranks (OMB's collectives refuse one), got ${n}`);
        s.ranks = n;
        s.ranksGiven = true;
        break;
      }
      case '--netns-hosts': {
        const k = positive(flag, value());
        if (k < 2) fail(2, `${flag} needs at least 2 hosts, got ${k}`);
        s.netnsHosts = k;
        break;
      }
      case '--hosts': {
        const v = value();
        if (v === undefined || v.split(',').filter((h) => h.trim() !== '').length < 2) {
          fail(2, `--hosts needs two or more host names separated by commas, got ${JSON.stringify(v)}`);
        }
        s.hostList = v;
        break;
      }
      case '--launcher-exec': {
        const v = value();
        if (v === undefined || v === '') fail(2, '--launcher-exec needs an ssh-compatible command, e.g. /usr/bin/ssh');
        s.launcherExec = v;
        break;
      }
      case '--ucx-tls': {
        const v = value();
        if (v === undefined || v === '') fail(2, '--ucx-tls needs a UCX_TLS value such as tcp, or default');
        s.ucxTls = v;
        break;
      }
      case '--launch': {
        const v = value();
        if (v === undefined) fail(2, '--launch needs tsmpiexec arguments, e.g. "--sci-nodes 2"');
        s.launch.push(...v.split(/\s+/).filter((x) => x !== ''));
        break;
      }
      case '--out': {
        const v = value();
        if (v === undefined) fail(2, '--out needs a file name');
        s.out = v;
        break;
      }
      case '--json': {
        const v = value();
        if (v === undefined) fail(2, '--json needs a file name');
        s.json = v;
        break;
      }
      case '--bench': {
        const list: Bench[] = [];
        for (const b of (value() ?? '').split(',').filter((x) => x !== '')) {
          const names: readonly string[] = b === 'coll' ? COLLECTIVES : b === 'persistent' ? PERSISTENT : b === 'rma' ? ONE_SIDED : [b];
          for (const name of names) {
            if (!Object.hasOwn(BENCHES, name)) {
              fail(2, `--bench takes latency, bw, ${COLLECTIVES.join(', ')}, coll, ${PERSISTENT.join(', ')}, persistent, ` +
                `${ONE_SIDED.join(', ')} or rma, got ${JSON.stringify(b)}`);
            }
            if (!list.includes(name as Bench)) list.push(name as Bench);
          }
        }
        if (list.length === 0) fail(2, `--bench needs a list such as latency,bw or allreduce,bcast or coll`);
        s.benches = list;
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
  if (s.netnsHosts !== null && s.hostList !== null) fail(2, '--netns-hosts and --hosts exclude each other');
  if (s.launcherExec !== null && s.hostList === null) fail(2, '--launcher-exec goes with --hosts');
  if ((s.netnsHosts !== null || s.hostList !== null) && s.launch.length > 0) {
    fail(2, '--launch passes tsmpiexec arguments, but across hosts both sides start under hydra; set TSMPI_* variables instead');
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

/** Why a side's run failed, with enough of its output to act on. */
class RunFailure extends Error {}

/** `%-10d%20.2f` rows; osu_barrier's rows have no size (read as size 0). */
const ROW = /^(\d+)\s+(-?\d+\.\d+)(\s+\S+)?\s*$/;
const SIZELESS_ROW = /^\s+(-?\d+\.\d+)\s*$/;

/** Runs one benchmark to its end and reads its '#' facts and rows; throws RunFailure on error. */
function runBenchmark(info: BenchInfo, label: string, display: string, command: string, args: readonly string[],
                      timeoutS: number, env: NodeJS.ProcessEnv = process.env): RunOutput {
  // Paths of the project and its neighbours (../shared/tools) relative to it, others as they are.
  const show = (a: string): string => {
    if (a === process.execPath) return 'node';
    const rel = path.isAbsolute(a) ? path.relative(ROOT, a) : a;
    return rel.startsWith('../..') ? a : rel;
  };
  const shown = [display, ...args.map(show)].join(' ');
  process.stderr.write(`compare: ${label}: ${shown}\n`);
  const t0 = Date.now();
  const r = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', timeout: timeoutS * 1000, killSignal: 'SIGKILL', maxBuffer: 16 << 20 });
  const seconds = (Date.now() - t0) / 1000;
  if (r.error !== undefined || r.status !== 0) {
    const why = r.error !== undefined ? r.error.message : r.signal !== null ? `killed by ${r.signal}` : `exit status ${r.status}`;
    throw new RunFailure(`${label} failed (${why}) after ${seconds.toFixed(1)} s: ${shown}\n--- stdout\n${r.stdout ?? ''}--- stderr\n${r.stderr ?? ''}`);
  }
  const facts: string[] = [];
  const rows = new Map<number, number>();
  let inTable = false;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('# Size') || (info.sizeless && line.trim() === 'Avg Latency(us)')) inTable = true;
    else if (line.startsWith('#') && !inTable) facts.push(line.slice(1).trim());
    const m = inTable ? (info.sizeless ? SIZELESS_ROW.exec(line) : ROW.exec(line)) : null;
    if (m) rows.set(info.sizeless ? 0 : Number(m[1]), Number(info.thirdColumn === true ? m[3]?.trim() : m[info.sizeless ? 1 : 2]));
  }
  if (rows.size === 0) throw new RunFailure(`${label} printed no result rows: ${shown}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`);
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
  const source = path.join(SOURCES, info.source);
  if (!fs.existsSync(source)) fail(2, `${source} is missing`);
  fs.mkdirSync(BUILD, { recursive: true });
  const args = ['-O2', '-Wall', ...info.cFlags, '-o', exe, source];
  const r = spawnSync(mpicc, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new RunFailure(`building ${path.relative(ROOT, exe)} failed: ${mpicc} ${args.join(' ')}\n${r.stderr ?? ''}${r.error?.message ?? ''}`);
  }
  return exe;
}

function runTimes(r: RunOutput): string {
  return `${r.seconds.length} run${r.seconds.length === 1 ? '' : 's'}: ${r.seconds.map((t) => t.toFixed(1)).join(', ')} s`;
}

function cell(x: number | undefined): string {
  return x === undefined ? '—' : x.toFixed(2);
}

/** a / b as bench/compare prints ratios (ratio-text.ts), a dash without both figures. */
function ratioOfFigures(a: number | undefined, b: number | undefined): string {
  return ratioText(a === undefined || b === undefined || !(b > 0) ? null : a / b);
}

/** What one benchmark is run with: ranks and the OMB options, the same for both sides. */
interface Plan {
  readonly ranks: number;
  readonly args: readonly string[];
  /** Set when the ranks outnumber the CPUs and MPICH's figures measure the scheduler. */
  readonly oversubscribed: boolean;
}

function plan(info: BenchInfo, s: Settings): Plan {
  const ranks = info.collective ? s.ranks : 2;
  // Emulated hosts share this machine's CPUs; real hosts each have their own.
  const perMachine = s.hosts === null || s.netnsHosts !== null ? ranks : Math.ceil(ranks / s.hosts.hosts.length);
  const oversubscribed = perMachine > os.availableParallelism();
  const args: string[] = [];
  if (!info.sizeless) args.push('-m', s.sizes ?? (info.collective ? '1:1048576' : '0:1048576'));
  const slow = info.collective && oversubscribed;
  const iterations = s.iterations ?? (slow ? OVERSUBSCRIBED_ITERATIONS : null);
  const warmup = s.warmup ?? (slow ? OVERSUBSCRIBED_WARMUP : null);
  if (iterations !== null) args.push('-i', String(iterations));
  if (warmup !== null) args.push('-x', String(warmup));
  if ((info.program === 'osu_bw' || info.program === 'osu_bibw' || info.program === 'osu_mbw_mr') && s.window !== null) args.push('-W', String(s.window));
  return { ranks, args, oversubscribed };
}

function title(info: BenchInfo, p: Plan): string {
  return `## ${info.program}, ${p.ranks} ranks: ${info.unit}, ${info.better}`;
}

/** The sizes either side printed a row for, in order. */
function sizesOf(tsmpi: RunOutput, mpich: RunOutput): number[] {
  return [...new Set([...tsmpi.rows.keys(), ...mpich.rows.keys()])].sort((a, b) => a - b);
}

function table(info: BenchInfo, p: Plan, tsmpi: RunOutput, mpich: RunOutput, repeat: number): string[] {
  const sizes = sizesOf(tsmpi, mpich);
  const unit = info.unit.startsWith('Bandwidth') ? 'MB/s' : info.unit === 'Messages/s' ? 'messages/s' : 'µs';
  const lines = [
    title(info, p),
    '',
    repeat > 1 ? `Best of ${repeat} runs per side and size (${info.best === Math.min ? 'lowest' : 'highest'} value), runs alternating.` : 'One run per side.',
    ...(p.oversubscribed ? [
      '',
      `${p.ranks} ranks on ${os.availableParallelism()} CPUs: MPICH's ranks poll without yielding the CPU (no MPICH setting ` +
        'changes that, see bench/compare/compare.ts), so an MPICH call that waits for a rank that is not running takes ' +
        'scheduler slices (milliseconds), while tsmpi\'s waits back off to a futex sleep; calls whose data arrived during ' +
        'the untimed Barrier before them (small bcast and scatter) wait for nobody. The ratio mostly compares how the two ' +
        'wait, not their algorithms.',
    ] : []),
    '',
    `- tsmpi (${runTimes(tsmpi)}): \`${tsmpi.command}\``,
    ...tsmpi.facts.map((f) => `  - ${f}`),
    `- MPICH (${runTimes(mpich)}): \`${mpich.command}\``,
    ...mpich.facts.map((f) => `  - ${f}`),
    '',
    `| Size (B) | tsmpi (${unit}) | MPICH (${unit}) | ratio tsmpi/MPICH |`,
    '|---:|---:|---:|---:|',
  ];
  for (const size of sizes) {
    const a = tsmpi.rows.get(size);
    const b = mpich.rows.get(size);
    lines.push(`| ${info.sizeless ? '—' : size} | ${cell(a)} | ${cell(b)} | ${ratioOfFigures(a, b)} |`);
  }
  lines.push('');
  return lines;
}

/** The section of a benchmark that could not be compared, with the failing run's output. */
function failure(info: BenchInfo, p: Plan, error: RunFailure): string[] {
  return [title(info, p), '', '**Failed**, no comparison:', '', '```', error.message.trimEnd(), '```', ''];
}

/** One compared benchmark: the best rows of each side. */
interface Result {
  readonly info: BenchInfo;
  readonly tsmpi: RunOutput;
  readonly mpich: RunOutput;
}

function ratioOf(r: Result, size: number): string {
  return ratioOfFigures(r.tsmpi.rows.get(size), r.mpich.rows.get(size));
}

/** A benchmark's best rows as --json writes them (a size's value is null where a side printed no row). */
export interface JsonBenchmark {
  readonly program: string;
  readonly ranks: number;
  readonly unit: string;
  /** 'lower' for latencies, 'higher' for bandwidths and rates. */
  readonly better: 'lower' | 'higher';
  readonly oversubscribed: boolean;
  readonly rows: readonly { size: number; tsmpi: number | null; mpich: number | null }[];
}

function jsonOf(r: Result, p: Plan): JsonBenchmark {
  return {
    program: r.info.program, ranks: p.ranks, unit: r.info.unit, better: r.info.best === Math.min ? 'lower' : 'higher',
    oversubscribed: p.oversubscribed,
    rows: sizesOf(r.tsmpi, r.mpich).map((size) => ({ size, tsmpi: r.tsmpi.rows.get(size) ?? null, mpich: r.mpich.rows.get(size) ?? null })),
  };
}

/** The ratios of several collectives in one table, a column per benchmark (barrier has one row of its own). */
function summary(results: readonly Result[], ranks: number): string[] {
  const sized = results.filter((r) => !r.info.sizeless);
  const sizeless = results.filter((r) => r.info.sizeless);
  const sizes = [...new Set(sized.flatMap((r) => [...r.tsmpi.rows.keys(), ...r.mpich.rows.keys()]))].sort((a, b) => a - b);
  const lines = [`## Collectives, ${ranks} ranks: ratio tsmpi / MPICH of the average latency (above 1: tsmpi is slower)`, ''];
  for (const r of sizeless) lines.push(`${r.info.program}: ${ratioOf(r, 0)}`, '');
  if (sized.length > 0) {
    lines.push(`| Size (B) | ${sized.map((r) => r.info.program.slice('osu_'.length)).join(' | ')} |`);
    lines.push(`|---:|${sized.map(() => '---:|').join('')}`);
    for (const size of sizes) lines.push(`| ${size} | ${sized.map((r) => ratioOf(r, size)).join(' | ')} |`);
    lines.push('');
  }
  return lines;
}

/**
 * Both sides of one benchmark, `repeat` times alternating. A run that fails when the same side
 * has other runs is noted under that side's command (a loaded machine can push one run past
 * its limit) and the others make the table; a side none of whose runs succeeded throws its
 * first RunFailure.
 */
function compareOne(info: BenchInfo, p: Plan, s: Settings, mpicc: string, mpiexec: string): Result {
  const exe = build(info, mpicc);
  const script = path.join(OSU_DIST, `${info.program}.js`);
  if (!fs.existsSync(script)) fail(2, `${script} is missing; run npx tsc -p tsconfig.json first`);
  let tsmpi: RunOutput | null = null;
  let mpich: RunOutput | null = null;
  const failures: { tsmpi: RunFailure[]; mpich: RunFailure[] } = { tsmpi: [], mpich: [] };
  const attempt = (side: 'tsmpi' | 'mpich', best: RunOutput | null, once: () => RunOutput): RunOutput | null => {
    try {
      return merge(info, best, once());
    } catch (e) {
      if (!(e instanceof RunFailure) || s.repeat === 1) throw e;
      process.stderr.write(`compare: ${e.message}\n`);
      failures[side].push(e);
      return best;
    }
  };
  const n = String(p.ranks);
  for (let k = 1; k <= s.repeat; k++) {
    const round = s.repeat > 1 ? ` (run ${k} of ${s.repeat})` : '';
    if (s.hosts !== null) {
      // Both under hydra across the hosts; hydra's own limit ends every rank, the outer one is a net.
      const t = hydraCommand(s.hosts, mpiexec, p.ranks, [process.execPath, ...RANK_NODE_FLAGS, script, ...p.args], s.timeoutS);
      tsmpi = attempt('tsmpi', tsmpi, () => runBenchmark(info, `tsmpi ${info.program}${round}`, t.command, t.command, t.args, s.timeoutS + 30, t.env));
      const m = hydraCommand(s.hosts, mpiexec, p.ranks, [exe, ...p.args], s.timeoutS);
      mpich = attempt('mpich', mpich, () => runBenchmark(info, `MPICH ${info.program}${round}`, m.command, m.command, m.args, s.timeoutS + 30, m.env));
      continue;
    }
    tsmpi = attempt('tsmpi', tsmpi, () => runBenchmark(info, `tsmpi ${info.program}${round}`, 'node', process.execPath,
      [TSMPIEXEC, '-n', n, ...s.launch, '--timeout', String(s.timeoutS), process.execPath, ...RANK_NODE_FLAGS, script, ...p.args], s.timeoutS + 10));
    mpich = attempt('mpich', mpich, () => runBenchmark(info, `MPICH ${info.program}${round}`, path.basename(mpiexec), mpiexec,
      ['-n', n, exe, ...p.args], s.timeoutS));
  }
  for (const [side, best] of [['tsmpi', tsmpi], ['mpich', mpich]] as const) {
    if (best === null) throw failures[side][0]!;
    for (const f of failures[side]) best.facts.push(`not counted: ${f.message.split('\n')[0]!.slice(0, 200)}`);
  }
  return { info, tsmpi: tsmpi!, mpich: mpich! };
}

function main(): void {
  const s = parseArgs(process.argv.slice(2));
  const mpicc = which('mpicc');
  // Hydra by its own name where installed (Debian's `mpiexec` is an alternatives link to it).
  const hydra = findHydra(which);
  const mpiexec = hydra ?? which('mpiexec');
  if (mpicc === null || mpiexec === null) {
    const missing = [mpicc === null ? 'mpicc' : null, mpiexec === null ? 'mpiexec' : null].filter((x) => x !== null).join(' and ');
    fail(2, `${missing} not found on PATH; the comparison needs a C MPI (e.g. apt-get install mpich libmpich-dev)`);
  }
  if (!fs.existsSync(TSMPIEXEC)) fail(2, `${TSMPIEXEC} is missing; run npx tsc -p tsconfig.json first`);
  if (s.netnsHosts !== null || s.hostList !== null) {
    if (hydra === null) fail(2, 'across hosts both sides start under MPICH\'s hydra, and mpiexec.hydra is not installed (apt-get install mpich)');
    const tls = s.ucxTls === 'default' ? null : s.ucxTls;
    try {
      s.hosts = s.netnsHosts !== null ? emulatedHosts(s.netnsHosts, tls) : namedHosts(s.hostList!, s.launcherExec, tls);
    } catch (e) {
      fail(2, (e as Error).message);
    }
    const why = checkHosts(s.hosts, hydra);
    if (why !== null) fail(2, why);
    if (!s.ranksGiven) s.ranks = s.hosts.hosts.length;
  }

  const started = Date.now();
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const kinds = [
    s.benches.some((b) => !BENCHES[b].collective) ? 'point to point (2 ranks)' : null,
    s.benches.some((b) => BENCHES[b].collective) ? `collectives (${s.ranks} ranks)` : null,
  ].filter((x) => x !== null).join(' and ');
  const where = s.hosts === null ? 'on one node' : `across ${s.hosts.hosts.length} hosts`;
  const markdown = [
    `# tsmpi and MPICH, ${kinds} ${where}`,
    '',
    `${new Date().toISOString()}, ${os.hostname()}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
      `load average ${load} at start, node ${process.version}. Same algorithm, sizes and iteration counts on both sides ` +
      '(bench/osu/*.ts and bench/compare/osu_pt2pt.c, osu_coll.c).' +
      (s.launch.length > 0 ? ` tsmpi launched with \`tsmpiexec ${s.launch.join(' ')}\`; MPICH over its shared memory.` : ''),
    '',
    ...(s.hosts === null ? [] : [
      `Across hosts: ${s.hosts.description}. Both sides started by hydra (${hydra}), rank k on host k mod ` +
        `${s.hosts.hosts.length} (point to point: ranks 0 and 1 on ${s.hosts.hosts[0]} and ${s.hosts.hosts[1]}), ` +
        (s.hosts.ucxTls !== null ? `UCX_TLS=${s.hosts.ucxTls} for both (tsmpi's ch_ucx and MPICH's ch4:ucx).` :
          'UCX_TLS left to each library (tsmpi\'s ch_ucx sets ^sm when it is unset).') +
        ` Command line: \`node dist/bench/compare/compare.js ${process.argv.slice(2).join(' ')}\`.`,
      '',
    ]),
  ];
  const failed: string[] = [];
  const collectives: Result[] = [];
  const compared: JsonBenchmark[] = [];
  for (const bench of s.benches) {
    const info = BENCHES[bench];
    const p = plan(info, s);
    try {
      const result = compareOne(info, p, s, mpicc!, mpiexec!);
      markdown.push(...table(info, p, result.tsmpi, result.mpich, s.repeat));
      compared.push(jsonOf(result, p));
      if (info.collective) collectives.push(result);
    } catch (e) {
      if (!(e instanceof RunFailure)) throw e;
      process.stderr.write(`compare: ${e.message}\n`);
      failed.push(info.program);
      markdown.push(...failure(info, p, e));
    }
  }
  if (collectives.length > 1) markdown.push(...summary(collectives, s.ranks));
  if (failed.length > 0) markdown.push(`Failed: ${failed.join(', ')}.`, '');
  markdown.push(`Total ${((Date.now() - started) / 1000).toFixed(1)} s.`, '');
  const text = markdown.join('\n');
  process.stdout.write(text);
  if (s.out !== null) {
    fs.mkdirSync(path.dirname(path.resolve(s.out)), { recursive: true });
    fs.writeFileSync(s.out, text);
    process.stderr.write(`compare: wrote ${s.out}\n`);
  }
  if (s.json !== null) {
    fs.mkdirSync(path.dirname(path.resolve(s.json)), { recursive: true });
    fs.writeFileSync(s.json, `${JSON.stringify({ failed, benchmarks: compared }, null, 1)}\n`);
  }
  if (failed.length > 0) process.exit(1);
}

main();
