/**
 * Options and printing shared by the point-to-point OSU benchmarks (osu_latency, osu_bw,
 * osu_bibw, osu_multi_lat): tsmpi's counterpart of OMB's c/util/osu_util.c and osu_util_mpi.c.
 *
 * Output matches the C suite line by line, so the two compare with a plain diff or one parser:
 *
 *   # OSU MPI Latency Test v7.0        title, as `# <BENCHMARK> v<version>`
 *   # tsmpi device: ch_shmem (...)     tsmpi facts: extra `#` lines (ours, not OMB's)
 *   # tsmpi limits: TSMPI_SHORT_MAX=1024 ...
 *   # Size            Latency (us)     `# Size` left in 10, the unit right in 20
 *   0                         0.25     size left in 10, value right in 20, 2 decimals
 *
 * The version is OMB 7.0's: these are the 7.0 formats (7.1 and later add a `# Datatype:` line).
 * Options follow OMB's: -m [MIN:]MAX, -i, -x, -W (bandwidth tests), -c, -h, -v, with the
 * long forms. Defaults are OMB's (c/util/osu_util.h) and the help text is generated from them,
 * so it cannot drift as OMB's has ("default 1000 for small messages" against 10000 in use).
 * An explicit -i or -x applies to every size, as in OMB; only the defaults shrink above
 * LARGE_MESSAGE_SIZE.
 *
 * Timing: each size runs its warm-up loop, then one MPI.Wtime() pair around the whole timed
 * loop (as OMB up to 5.x; OMB 7.0 sums a Wtime pair per iteration, which in JavaScript would
 * add the clock's own cost to every round trip). bench/compare/osu_pt2pt.c times the same way.
 *
 * Validation (-c) is a strategy each benchmark runs after the timed loop of a size, never
 * inside it: fill the send buffers with a pattern of (size, round), move the data once the
 * benchmark's way, count mismatching bytes on the receivers, and report Pass or Fail in the
 * Validation column.
 */
import v8 from 'node:v8';
import '../../src/config-all.js';
import { declaredTunables } from '../../src/common/config.js';
import { MPI } from '../../src/index.js';
import { runtime } from '../../src/mpir/runtime.js';
import { passScavenges, youngGeneration } from '../../src/mpir/young-generation.js';

/** The OMB release whose output format these benchmarks reproduce. */
export const OMB_VERSION = '7.0';
/** Above this size the default iteration and warm-up counts drop (OMB's LARGE_MESSAGE_SIZE). */
export const LARGE_MESSAGE_SIZE = 8192;
/** Default largest message (OMB's MAX_MESSAGE_SIZE, 4 MiB). */
export const MAX_MESSAGE_SIZE = 1 << 22;
/** Largest message this suite accepts with -m (one send and one receive buffer of this size). */
export const MESSAGE_SIZE_LIMIT = 1 << 30;
export const FIELD_WIDTH = 20;
export const FLOAT_PRECISION = 2;
/** Window of the bandwidth tests (OMB's WINDOW_SIZE_LARGE). */
export const WINDOW_SIZE = 64;

/** OMB's latency and bandwidth defaults (LAT_* and BW_* in c/util/osu_util.h). */
export const DEFAULTS = {
  latency: { iterations: 10_000, skip: 100, iterationsLarge: 1_000, skipLarge: 10, minSize: 0 },
  bandwidth: { iterations: 100, skip: 10, iterationsLarge: 20, skipLarge: 2, minSize: 1 },
} as const;

export type Kind = keyof typeof DEFAULTS;

/** What a benchmark is: its name, title, kind of measurement and process-count rule. */
export interface BenchmarkSpec {
  /** Program name, as in `Usage: osu_latency [options]`. */
  readonly name: string;
  /** Title without version, e.g. `OSU MPI Latency Test`. */
  readonly title: string;
  readonly kind: Kind;
  /** The OMB message for an unsupported process count, or null when `size` is fine. */
  processCountError(size: number): string | null;
}

export interface Options {
  minSize: number;
  maxSize: number;
  iterations: number;
  skip: number;
  iterationsLarge: number;
  skipLarge: number;
  window: number;
  validate: boolean;
}

export type Parsed =
  | { readonly kind: 'ok'; readonly options: Options }
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'bad'; readonly message: string; readonly opt: string; readonly optarg: string | null };

const LONG: Record<string, string> = {
  '--help': 'h', '--version': 'v', '--message-size': 'm', '--iterations': 'i', '--warmup': 'x',
  '--window-size': 'W', '--validation': 'c',
};

function takesArgument(opt: string): boolean {
  return opt === 'm' || opt === 'i' || opt === 'x' || opt === 'W';
}

/** A non-negative decimal integer, or null. */
function integer(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** `-m MAX`, `-m MIN:MAX`, `-m MIN:`, `-m :MAX`; a MIN of 0 keeps the default minimum. */
function setMessageSize(text: string, o: Options, floor: number): boolean {
  const parts = text.split(':');
  if (parts.length > 2) return false;
  const [minText, maxText] = parts.length === 1 ? ['', parts[0]!] : [parts[0]!, parts[1]!];
  if (minText === '' && maxText === '') return false;
  if (minText !== '') {
    const min = integer(minText);
    if (min === null || min > MESSAGE_SIZE_LIMIT) return false;
    o.minSize = Math.max(min, floor);
  }
  if (maxText !== '') {
    const max = integer(maxText);
    if (max === null || max > MESSAGE_SIZE_LIMIT) return false;
    o.maxSize = max;
  }
  return true;
}

/** Parses OMB's options getopt-style: `-i 10`, `-i10`, `-cv`, `--iterations 10`, `--iterations=10`. */
export function parseOptions(spec: BenchmarkSpec, argv: readonly string[]): Parsed {
  const d = DEFAULTS[spec.kind];
  const o: Options = {
    minSize: d.minSize, maxSize: MAX_MESSAGE_SIZE,
    iterations: d.iterations, skip: d.skip, iterationsLarge: d.iterationsLarge, skipLarge: d.skipLarge,
    window: WINDOW_SIZE, validate: false,
  };
  for (let k = 0; k < argv.length; k++) {
    const word = argv[k]!;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq < 0 ? word : word.slice(0, eq);
      const opt = LONG[name];
      if (opt === undefined) return bad('Invalid option', name.slice(2));
      let arg: string | null = null;
      if (takesArgument(opt)) {
        arg = eq >= 0 ? word.slice(eq + 1) : argv[++k] ?? null;
        if (arg === null) return bad('Option Missing Required Argument', opt);
      } else if (eq >= 0) {
        return bad('Invalid option', opt);
      }
      const r = apply(spec, o, opt, arg);
      if (r !== null) return r;
      continue;
    }
    if (!word.startsWith('-') || word.length < 2) return bad('Invalid option', word);
    for (let c = 1; c < word.length; c++) {
      const opt = word[c]!;
      let arg: string | null = null;
      if (takesArgument(opt)) {
        arg = c + 1 < word.length ? word.slice(c + 1) : argv[++k] ?? null;
        if (arg === null) return bad('Option Missing Required Argument', opt);
        c = word.length;
      }
      const r = apply(spec, o, opt, arg);
      if (r !== null) return r;
    }
  }
  return { kind: 'ok', options: o };
}

function bad(message: string, opt: string, optarg: string | null = null): Parsed {
  return { kind: 'bad', message, opt, optarg };
}

/** Applies one option to `o`; returns the parse result that ends parsing, or null to go on. */
function apply(spec: BenchmarkSpec, o: Options, opt: string, arg: string | null): Parsed | null {
  switch (opt) {
    case 'h': return { kind: 'help' };
    case 'v': return { kind: 'version' };
    case 'c':
      o.validate = true;
      return null;
    case 'm':
      return setMessageSize(arg!, o, DEFAULTS[spec.kind].minSize) ? null : bad('Invalid Message Size', opt, arg);
    case 'i': {
      const n = integer(arg!);
      if (n === null || n < 1) return bad('Invalid Number of Iterations', opt, arg);
      o.iterations = o.iterationsLarge = n;
      return null;
    }
    case 'x': {
      const n = integer(arg!);
      if (n === null) return bad('Invalid Number of Warmup Iterations', opt, arg);
      o.skip = o.skipLarge = n;
      return null;
    }
    case 'W': {
      if (spec.kind !== 'bandwidth') return bad('Invalid option', opt);
      const n = integer(arg!);
      if (n === null || n < 1) return bad('Invalid Window Size', opt, arg);
      o.window = n;
      return null;
    }
    default:
      return bad('Invalid option', opt);
  }
}

/** The message sizes of a run: 0, 1, 2, 4 ... for latency; from 1 (or MIN), doubling, for bandwidth. */
export function messageSizes(spec: BenchmarkSpec, o: Options): number[] {
  const sizes: number[] = [];
  for (let size = o.minSize; size <= o.maxSize; size = size === 0 ? 1 : size * 2) sizes.push(size);
  return spec.kind === 'bandwidth' ? sizes.filter((s) => s > 0) : sizes;
}

/**
 * Every Isend and Irecv makes a Request (48 bytes), so a stream of small messages fills V8's young
 * generation (two semispaces of 4 MiB after Init) every ~85,000 messages, and its scavenge stops
 * the rank for ~0.2 ms (more when it promotes what the untimed pass left). A row of small
 * messages lasts 1-3 ms: the row a scavenge falls into lost 15-50 % of its rate, the same row in
 * every run of one table (128 B of osu_bw 1 B - 64 KiB: 266-320 MB/s against 479-516), another
 * row in a table of other sizes. So the tables' loops take their sizes from here, and a rank
 * whose young generation is more than half full collects it before the row (untimed, before the
 * row's Barrier): no row of up to ~40,000 messages meets a scavenge. What the rows leave out is
 * ~1 % of a long stream's time (a 0.2 ms scavenge every ~18 ms of 8-byte osu_bw windows).
 */
const FRESH_YOUNG = process.env.TSMPI_BENCH_FRESH_YOUNG !== '0';

export function* tableSizes(spec: BenchmarkSpec, o: Options): Generator<number> {
  for (const size of messageSizes(spec, o)) {
    if (FRESH_YOUNG) {
      const young = youngGeneration();
      // space_size is both semispaces together: more than a quarter of it is more than half of one.
      if (young.space_used_size > young.space_size / 4) passScavenges(1);
    }
    yield size;
  }
}

export function iterationsFor(o: Options, size: number): number {
  return size > LARGE_MESSAGE_SIZE ? o.iterationsLarge : o.iterations;
}

export function warmupFor(o: Options, size: number): number {
  return size > LARGE_MESSAGE_SIZE ? o.skipLarge : o.skip;
}

export function headerLine(spec: BenchmarkSpec): string {
  return `# ${spec.title} v${OMB_VERSION}`;
}

export function helpText(spec: BenchmarkSpec): string {
  const d = DEFAULTS[spec.kind];
  const lines = [
    `Usage: ${spec.name} [options]`,
    'Options:',
    '  -m, --message-size          [MIN:]MAX  set the minimum and/or the maximum message size to MIN and/or MAX',
    `                              bytes respectively (default ${d.minSize}:${MAX_MESSAGE_SIZE}). Examples:`,
    '                              -m 128      // min = default, max = 128',
    '                              -m 2:128    // min = 2, max = 128',
    '                              -m 2:       // min = 2, max = default',
    `  -i, --iterations ITER       set iterations per message size to ITER (default ${d.iterations} for small`,
    `                              messages, ${d.iterationsLarge} for messages larger than ${LARGE_MESSAGE_SIZE} bytes)`,
    `  -x, --warmup ITER           set number of warmup iterations to skip before timing (default ${d.skip} for`,
    `                              small messages, ${d.skipLarge} for messages larger than ${LARGE_MESSAGE_SIZE} bytes)`,
  ];
  if (spec.kind === 'bandwidth') {
    lines.push(`  -W, --window-size SIZE      set number of messages to send before synchronization (default ${WINDOW_SIZE})`);
  }
  lines.push(
    '  -c, --validation            Enable or disable validation. Disabled by default. Data is checked after',
    '                              the timed loop of each size, outside the timed region.',
    '  -h, --help                  print this help',
    '  -v, --version               print version info',
    '',
  );
  return lines.join('\n') + '\n';
}

// ------------------------------------------------------------------------------- printing

/** `%-10d` then `%20.2f`, and `%20s` for the Validation column when asked. */
export function formatRow(size: number, value: number, validation: string | null = null): string {
  let row = String(size).padEnd(10) + value.toFixed(FLOAT_PRECISION).padStart(FIELD_WIDTH);
  if (validation !== null) row += validation.padStart(FIELD_WIDTH);
  return row;
}

export function columnLine(spec: BenchmarkSpec, o: Options): string {
  const unit = spec.kind === 'bandwidth' ? 'Bandwidth (MB/s)' : 'Latency (us)';
  let line = '# Size'.padEnd(10) + unit.padStart(FIELD_WIDTH);
  if (o.validate) line += 'Validation'.padStart(FIELD_WIDTH);
  return line;
}

/** Writes whole lines to stdout (synchronous for files, pipes and terminals on Linux). */
export function out(line: string): void {
  process.stdout.write(line + '\n');
}

/** The TSMPI_* limits that decide the protocol per size, as this run sees them. */
const REPORTED_TUNABLES = ['TSMPI_SHORT_MAX', 'TSMPI_EAGER_MAX', 'TSMPI_SHMEM_SINGLE_COPY', 'TSMPI_SPIN_POLLS'];
const REPORTED_SCI_TUNABLES = ['TSMPI_SCI_SHORT_MAX', 'TSMPI_SCI_EAGER', 'TSMPI_SCI_EAGER_MAX', 'TSMPI_SCI_BLOCK',
  'TSMPI_SCI_DMA_MIN', 'TSMPI_SCI_CACHE', 'TSMPI_PROGRESS'];

function tunablesFact(sci: boolean): string {
  const parts: string[] = [];
  for (const name of sci ? [...REPORTED_TUNABLES, ...REPORTED_SCI_TUNABLES] : REPORTED_TUNABLES) {
    const t = declaredTunables().find((x) => x.name === name);
    if (t === undefined) continue;
    const fromEnv = (process.env[name] ?? '').trim() !== '';
    let value: unknown;
    try {
      value = t.read(process.env);
    } catch {
      value = process.env[name];
    }
    const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    parts.push(`${name}=${text}${fromEnv ? ' (env)' : ''}`);
  }
  return parts.length > 0 ? parts.join(' ') : '(no TSMPI_* limits declared)';
}

/**
 * Collective over `comm`: the number of distinct nodes, from every rank's processor name
 * (sent to rank 0 with the object point-to-point calls; there are no collectives yet).
 * Meaningful on rank 0 only.
 */
function countNodes(comm: typeof MPI.COMM_WORLD): number {
  const TAG_NODES = 0x7f00;
  if (comm.rank !== 0) {
    comm.send(MPI.Get_processor_name(), 0, TAG_NODES);
    return 0;
  }
  const names = new Set([MPI.Get_processor_name()]);
  for (let r = 1; r < comm.size; r++) names.add(comm.recv(r, TAG_NODES) as string);
  return names.size;
}

/**
 * Collective: prints, on rank 0, the title, the tsmpi facts and the column line. The device
 * is the one rank 0 reaches the others with (self for one rank, ch_shmem within a node, ch_sci
 * across SCI nodes or with TSMPI_DEVICE=sci, ch_ucx across hosts or with TSMPI_DEVICE=ucx).
 */
export function printHeader(spec: BenchmarkSpec, o: Options, comm: typeof MPI.COMM_WORLD, facts: readonly string[] = [],
                            column: string = columnLine(spec, o)): void {
  const nodes = countNodes(comm);
  if (comm.rank !== 0) return;
  // The devices rank 0 reaches the others with (its view is the benchmark's: it times the loop).
  const world = runtime.requireRunning('benchmark');
  const used = new Set<string>();
  for (let r = 1; r < comm.size; r++) used.add(world.deviceNameOf(r));
  const device = comm.size === 1 ? 'self' : [...used].join(' + ');
  out(headerLine(spec));
  out(`# tsmpi device: ${device} (${comm.size} ranks, ${nodes} node${nodes === 1 ? '' : 's'}, node ${process.version})`);
  out(`# tsmpi limits: ${tunablesFact(used.has('ch_sci'))}`);
  for (const fact of facts) out(`# ${fact}`);
  out(column);
}

/**
 * A JIT runtime runs interpreted code first and compiles hot code in the background: OMB's
 * few warm-up iterations of the first size end long before that settles, so the first rows
 * would time the compiler. `jitWarmup` prints the header (with a fact line saying so) and then
 * runs `once(size, iterations)` untimed for every size of the table (warm-up and timed counts),
 * so each row starts from optimized code. TSMPI_BENCH_JIT_WARMUP=0 skips it.
 */
const JIT_WARMUP_CALLS = 4;

export function printHeaderWithJitWarmup(spec: BenchmarkSpec, o: Options, comm: typeof MPI.COMM_WORLD,
                                         once: (size: number, iterations: number) => void, facts: readonly string[] = [],
                                         column: string = columnLine(spec, o)): void {
  const jit = process.env.TSMPI_BENCH_JIT_WARMUP !== '0';
  const rows = FRESH_YOUNG ? [...facts, 'tsmpi rows: each starts with the young generation at most half full (a scavenge, ~0.2 ms ' +
    'every ~85,000 Isends, is taken between rows; TSMPI_BENCH_FRESH_YOUNG=0 leaves it where it falls)'] : [...facts];
  printHeader(spec, o, comm, jit ? [...rows, 'tsmpi warmup: the whole table is run once untimed before it is measured ' +
    '(TSMPI_BENCH_JIT_WARMUP=0 skips it)'] : rows, column);
  if (!jit) return;
  for (const size of messageSizes(spec, o)) {
    comm.Barrier();
    // In several calls: V8 compiles a function whole only after enough calls (a long loop alone
    // gets an on-stack replacement), and a whole compile inside a timed row costs it ~3 ms.
    const n = warmupFor(o, size) + iterationsFor(o, size);
    for (let part = 0; part < JIT_WARMUP_CALLS; part++) once(size, Math.ceil(n / JIT_WARMUP_CALLS));
  }
  // A compile the last calls asked for happens at the next call: let that be one of these.
  const first = messageSizes(spec, o)[0];
  if (first !== undefined) for (let part = 0; part < JIT_WARMUP_CALLS; part++) once(first, 1);
  comm.Barrier();
}

// ------------------------------------------------------------------------------ start, end

/**
 * MPI.Init, then OMB's order of business: options are parsed before Init and reported by rank
 * 0 after it (help, version, bad usage), then the process count is checked. Returns the
 * options when the benchmark should run; otherwise finalizes and exits (0 for help and
 * version, 1 for bad usage or a wrong process count, with OMB's messages).
 */
export function start(spec: BenchmarkSpec, argv: readonly string[] = process.argv.slice(2)): Options {
  const parsed = parseOptions(spec, argv);
  MPI.Init();
  const comm = MPI.COMM_WORLD;
  const root = comm.rank === 0;
  switch (parsed.kind) {
    case 'help':
      if (root) process.stdout.write(helpText(spec));
      return finish(0);
    case 'version':
      if (root) out(headerLine(spec));
      return finish(0);
    case 'bad':
      if (root) {
        const what = parsed.optarg === null ? `-${parsed.opt}` : `-${parsed.opt} ${parsed.optarg}`;
        process.stderr.write(`${parsed.message} [${what}]\n\n`);
        process.stdout.write(helpText(spec));
      }
      return finish(1);
    case 'ok':
      break;
  }
  const wrong = spec.processCountError(comm.size);
  if (wrong !== null) {
    if (root) process.stderr.write(`${wrong}\n`);
    return finish(1);
  }
  return parsed.options;
}

/** MPI.Finalize and exit with `status`. */
export function finish(status: number): never {
  MPI.Finalize();
  process.exit(status);
}

/** OMB's last word when validation failed; then the program exits with status 1. */
export function validationFailure(size: number): never {
  if (MPI.COMM_WORLD.rank === 0) {
    out(`DATA VALIDATION ERROR: ${process.argv[1] ?? 'benchmark'} exited with status 1 on message size ${size}.`);
  }
  return finish(1);
}

// ------------------------------------------------------------------------------ buffers

/** Fills the first `size` bytes (OMB's set_buffer_pt2pt: 'a' for send, 'b' for receive buffers). */
export function fill(buf: Uint8Array, size: number, byte: number): void {
  buf.fill(byte, 0, size);
}

/** The validation pattern of byte i for a message of `size` bytes in validation round `round`. */
function patternByte(i: number, size: number, round: number): number {
  return (i * 31 + size * 7 + round * 13 + 1) & 0xff;
}

export function fillPattern(buf: Uint8Array, size: number, round: number): void {
  for (let i = 0; i < size; i++) buf[i] = patternByte(i, size, round);
}

/** Bytes of buf[0 .. size) that differ from the pattern of (size, round). */
export function countMismatches(buf: Uint8Array, size: number, round: number): number {
  let bad = 0;
  for (let i = 0; i < size; i++) if (buf[i] !== patternByte(i, size, round)) bad++;
  return bad;
}

// ------------------------------------------------------- reductions over point-to-point

const TAG_SUM = 0x7f01;
const TAG_SHARE = 0x7f02;
const scratch = new Float64Array(1);

/** Collective: the sum of every rank's `value`, on rank 0 (others get their own value back). */
export function sumToRoot(comm: typeof MPI.COMM_WORLD, value: number): number {
  if (comm.rank !== 0) {
    scratch[0] = value;
    comm.Send(scratch, 0, TAG_SUM);
    return value;
  }
  let sum = value;
  for (let r = 1; r < comm.size; r++) {
    comm.Recv(scratch, r, TAG_SUM);
    sum += scratch[0]!;
  }
  return sum;
}

/** Collective: rank 0's `value` on every rank. */
export function shareFromRoot(comm: typeof MPI.COMM_WORLD, value: number): number {
  if (comm.rank === 0) {
    scratch[0] = value;
    for (let r = 1; r < comm.size; r++) comm.Send(scratch, r, TAG_SHARE);
    return value;
  }
  comm.Recv(scratch, 0, TAG_SHARE);
  return scratch[0]!;
}

/** Collective: every rank's `value`, indexed by rank, on rank 0 (empty elsewhere). */
export function gatherToRoot(comm: typeof MPI.COMM_WORLD, value: number): number[] {
  if (comm.rank !== 0) {
    scratch[0] = value;
    comm.Send(scratch, 0, TAG_SUM);
    return [];
  }
  const all = [value];
  for (let r = 1; r < comm.size; r++) {
    comm.Recv(scratch, r, TAG_SUM);
    all.push(scratch[0]!);
  }
  return all;
}

// ------------------------------------------------------------------------------ V8 heap

const maybeGc = (globalThis as { gc?: () => void }).gc;

/** A full collection when node runs with --expose-gc; nothing otherwise. */
export function collectGarbage(): void {
  if (maybeGc !== undefined) maybeGc();
}

export function hasGc(): boolean {
  return maybeGc !== undefined;
}

/** V8's used heap (every space, compiled code included) and its young generation (new_space). */
function readUsed(): number {
  return v8.getHeapStatistics().used_heap_size;
}

function readYoung(): number {
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_used_size;
  return 0;
}

/**
 * Heap growth over chosen timed loops, summed. `used` is what v8.getHeapStatistics() reports
 * and includes code that the JIT compiles meanwhile (old and code space); `young` is the young
 * generation alone, where the objects of a message path would land. Reading the statistics
 * allocates their result objects: the cost of one reading is measured once and subtracted.
 * A collection during a loop would hide allocations, so collections are counted too (over the
 * loop's warm-up as well).
 */
export class HeapWatch {
  used = 0;
  young = 0;
  collections = 0;
  loops = 0;
  /** Young-generation growth of the latest loop alone (the JIT has settled by then). */
  lastYoung = 0;
  private usedBefore = 0;
  private youngBefore = 0;
  private readonly probeUsed: number;
  private readonly probeYoung: number;
  private readonly profiler = new v8.GCProfiler();

  constructor() {
    let pu = Infinity;
    let py = Infinity;
    for (let k = 0; k < 5; k++) {
      collectGarbage();
      const u0 = readUsed();
      const y0 = readYoung();
      const u1 = readUsed();
      const y1 = readYoung();
      pu = Math.min(pu, u1 - u0);
      py = Math.min(py, y1 - y0);
    }
    this.probeUsed = Math.max(0, pu);
    this.probeYoung = Math.max(0, py);
    // One pass through watch/begin/end, then zeroed: every field has held a value of each kind it
    // will hold (statistics come as doubles) before a loop that calls begin() is compiled; a field
    // that changed kind later changed the object's map and threw that compiled loop away.
    this.watch();
    this.begin();
    this.end();
    this.used = 0;
    this.young = 0;
    this.collections = 0;
    this.loops = 0;
    this.lastYoung = 0;
  }

  /**
   * Call before the loop (warm-up included): collections are counted from here. Apart from
   * begin(), so that begin() takes one path every call: a loop V8 compiles after begin()'s first
   * call (at round trip 0) and that then reaches a part of begin() it never ran throws the
   * compiled loop away, inside the timed part (GCProfiler.stop() when started is such a part).
   */
  watch(): void {
    this.profiler.start();
  }

  /** Call right before the timed loop (after its warm-up); a later call starts over. */
  begin(): void {
    this.usedBefore = readUsed();
    this.youngBefore = readYoung();
  }

  /** Call right after the timed loop. */
  end(): void {
    const usedAfter = readUsed();
    const youngAfter = readYoung();
    const report = this.profiler.stop();
    if (report === undefined) throw new Error('HeapWatch.end() without watch()');
    this.used += usedAfter - this.usedBefore - this.probeUsed;
    this.lastYoung = youngAfter - this.youngBefore - this.probeYoung;
    this.young += this.lastYoung;
    this.collections += report.statistics.length;
    this.loops++;
  }
}
