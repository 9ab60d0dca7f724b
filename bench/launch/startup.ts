/**
 * Start-up and shared memory against the number of ranks, beside MPICH: for each count, the
 * time from starting the launcher (tsmpiexec; MPICH's mpiexec) to the last rank returning from
 * Init, and the shared memory a rank has mapped then (RssShmem, the largest of the ranks), the
 * median over -i runs, alternating tsmpi and MPICH. Plain `node`, fresh processes, one node.
 * The column node up is tsmpi's time to the last rank's program starting, before it imports
 * tsmpi: what the launcher and Node's own start take of the whole.
 *
 * Where the environment sets NODE_EXTRA_CA_CERTS, Node 20 reads and parses that file at every
 * process start, TLS or not (nodejs/node#40524; later versions load it off-thread and only with
 * `tls`, nodejs/node#59856): ~55 ms of CPU a process for a system bundle on this project's VM, against
 * an MPICH rank's few. The launcher passes the user's environment on unchanged (a rank may need
 * those certificates), so the main columns include it; the last two columns run the same tsmpi
 * jobs with NODE_EXTRA_CA_CERTS removed, in the same rounds, to show what is Node's and what is
 * tsmpi's.
 *   node dist/bench/launch/startup.js [-i RUNS] [--no-mpich] [--json FILE] [N...]     (default 2 4 8 16 32 64)
 *
 * --json also writes the rows to FILE (bench/compare/small-messages.ts reads them): per count the
 * medians in ms and MB, null where a column was not measured.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..', '..', '..');
const tsmpiexec = path.join(root, 'dist', 'bin', 'tsmpiexec.js');
const rankProgram = path.join(here, 'init-rank.js');
const args = process.argv.slice(2);
let runs = 3;
let withMpich = true;
let jsonFile: string | null = null;
const counts: number[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '-i') runs = Number(args[++i]);
  else if (args[i] === '--no-mpich') withMpich = false;
  else if (args[i] === '--json' && args[i + 1] !== undefined) jsonFile = args[++i]!;
  else if (/^\d+$/.test(args[i]!)) counts.push(Number(args[i]));
  else {
    console.error(`startup: unknown argument ${args[i]}\nusage: node dist/bench/launch/startup.js [-i RUNS] [--no-mpich] [--json FILE] [N...]`);
    process.exit(2);
  }
}
if (counts.length === 0) counts.push(2, 4, 8, 16, 32, 64);

/** A job's figures: the last rank's Init, the largest RssShmem, and the last rank's program start (NaN: not printed). */
interface Sample { readonly ms: number; readonly shmemKib: number; readonly startedMs: number }

/** Runs one job: the last rank's Init time, the largest RssShmem among the ranks, the last program start. */
function runOnce(command: string[], n: number, base: NodeJS.ProcessEnv = process.env): Sample {
  const t0 = Date.now();
  const env = { ...base, TSMPI_BENCH_T0: String(t0) };
  const res = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', env, timeout: 300_000 });
  if (res.status !== 0) throw new Error(`${command.join(' ')} failed (${res.status ?? res.signal}): ${res.stderr}`);
  const rows = [...res.stdout.matchAll(/init-done rank \d+ ms ([\d.]+) shmem-kib (-?\d+)(?: started-ms ([\d.]+))?/g)];
  if (rows.length !== n) throw new Error(`${command.join(' ')}: expected ${n} ranks, got ${rows.length}\n${res.stdout}`);
  return {
    ms: Math.max(...rows.map((m) => Number(m[1]))),
    shmemKib: Math.max(...rows.map((m) => Number(m[2]))),
    startedMs: Math.max(...rows.map((m) => (m[3] === undefined ? NaN : Number(m[3])))),
  };
}

function buildMpich(): string | null {
  const mpicc = spawnSync('sh', ['-c', 'command -v mpicc'], { encoding: 'utf8' }).stdout.trim();
  if (mpicc === '') return null;
  const out = path.join(root, 'bench', 'compare', 'build');
  fs.mkdirSync(out, { recursive: true });
  const exe = path.join(out, 'init_c');
  const r = spawnSync(mpicc, ['-O2', '-o', exe, path.join(root, 'bench', 'launch', 'init_c.c')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mpicc failed: ${r.stderr}`);
  return exe;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const extraCaFile = process.env.NODE_EXTRA_CA_CERTS ?? '';
/** The environment without NODE_EXTRA_CA_CERTS, when it sets one (the last columns' jobs). */
const withoutExtraCa: NodeJS.ProcessEnv | null = extraCaFile === '' ? null : { ...process.env };
if (withoutExtraCa !== null) delete withoutExtraCa.NODE_EXTRA_CA_CERTS;
const mpichExe = withMpich ? buildMpich() : null;
if (withMpich && mpichExe === null) console.log('# MPICH: mpicc not found, tsmpi only (apt-get install mpich libmpich-dev)');
console.log('# tsmpi start-up: launcher start to the last rank returning from Init, and RssShmem per rank then');
console.log(`# ${runs} runs per count, medians; ratio = tsmpi / MPICH`);
console.log('# node up: launcher start to the last rank\'s program starting, before it imports tsmpi (the launcher and Node\'s own start)');
reportNodeStartCost();
reportPageFaults();
if (withoutExtraCa !== null) {
  console.log('# no-CA Init: the same tsmpi job with NODE_EXTRA_CA_CERTS removed from its environment (Node\'s start ' +
    'without the certificate file), run in the same rounds; its ratio is against the same MPICH figure');
}
const noCaHeader = withoutExtraCa === null ? '' : `${'no-CA Init (ms)'.padStart(16)}${'ratio'.padStart(7)}`;
console.log(`# ${'Ranks'.padEnd(6)}${'tsmpi Init (ms)'.padStart(16)}${'MPICH Init (ms)'.padStart(16)}${'ratio'.padStart(7)}` +
  `${'tsmpi shm (MB)'.padStart(16)}${'MPICH shm (MB)'.padStart(16)}${'ratio'.padStart(7)}${'node up (ms)'.padStart(14)}${noCaHeader}`);
/** A row as --json writes it. */
export interface StartupRow {
  readonly ranks: number;
  readonly tsmpiMs: number;
  readonly mpichMs: number | null;
  readonly tsmpiShmMb: number;
  readonly mpichShmMb: number | null;
  readonly nodeUpMs: number;
  /** tsmpi's Init time with NODE_EXTRA_CA_CERTS removed, where the environment sets it. */
  readonly noCaMs: number | null;
}
const jsonRows: StartupRow[] = [];
for (const n of counts) {
  const ours: Sample[] = [];
  const theirs: Sample[] = [];
  const oursNoCa: Sample[] = [];
  const job = [process.execPath, tsmpiexec, '-n', String(n), process.execPath, rankProgram];
  for (let r = 0; r < runs; r++) {
    ours.push(runOnce(job, n));
    if (mpichExe !== null) theirs.push(runOnce(['mpiexec', '-n', String(n), mpichExe], n));
    if (withoutExtraCa !== null) oursNoCa.push(runOnce(job, n, withoutExtraCa));
  }
  const t = median(ours.map((s) => s.ms));
  const m = median(ours.map((s) => s.shmemKib)) / 1024;
  const tc = theirs.length > 0 ? median(theirs.map((s) => s.ms)) : null;
  const mc = theirs.length > 0 ? median(theirs.map((s) => s.shmemKib)) / 1024 : null;
  const tn = oursNoCa.length > 0 ? median(oursNoCa.map((s) => s.ms)) : null;
  const up = median(ours.map((s) => s.startedMs));
  const cells = [`${n}`.padEnd(6), t.toFixed(1).padStart(16)];
  if (tc !== null && mc !== null) {
    cells.push(tc.toFixed(1).padStart(16), (t / tc).toFixed(2).padStart(7), m.toFixed(2).padStart(16), mc.toFixed(2).padStart(16),
      (m / mc).toFixed(2).padStart(7));
  } else {
    cells.push('-'.padStart(16), '-'.padStart(7), m.toFixed(2).padStart(16), '-'.padStart(16), '-'.padStart(7));
  }
  cells.push(up.toFixed(1).padStart(14));
  if (tn !== null) cells.push(tn.toFixed(1).padStart(16), (tc !== null ? (tn / tc).toFixed(2) : '-').padStart(7));
  console.log(`  ${cells.join('')}`);
  jsonRows.push({ ranks: n, tsmpiMs: t, mpichMs: tc, tsmpiShmMb: m, mpichShmMb: mc, nodeUpMs: up, noCaMs: tn });
}
if (jsonFile !== null) fs.writeFileSync(jsonFile, `${JSON.stringify({ rows: jsonRows }, null, 1)}\n`);

/**
 * Node reads and parses the certificates NODE_EXTRA_CA_CERTS names at every process start,
 * whether the program makes a TLS connection or not, and the launcher passes the user's
 * environment on unchanged: where it is set, say what it costs each rank (the CPU
 * Node has used when a program starts, with and without it, medians of 5).
 */
function reportNodeStartCost(): void {
  if (withoutExtraCa === null) return;
  // The CPU the process has used when its program starts: Node's own start.
  const probe = 'const u = process.cpuUsage(); console.log(u.user + u.system)';
  const cpuMs = (env: NodeJS.ProcessEnv): number => medianOfNode(5, ['-e', probe], { env }) / 1000;
  console.log(`# NODE_EXTRA_CA_CERTS is set (${extraCaFile}): Node parses it at every start; Node used ` +
    `${cpuMs(process.env).toFixed(0)} ms of CPU before its program with it and ${cpuMs(withoutExtraCa).toFixed(0)} without ` +
    '(medians of 5), in every rank');
}

/** The median of the number each of `runs` fresh node processes prints, run with `args`. */
function medianOfNode(runs: number, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string }): number {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push(Number(spawnSync(process.execPath, args, { encoding: 'utf8', ...options }).stdout));
  return median(xs);
}

/**
 * A page's first touch costs a fault, and a fault's price depends on the machine: ~0.2 us on
 * bare metal, 12-16 us on this project's 2-vCPU VM. A node rank takes ~4,300 before its Init
 * (Node's start, the import, the heap growing), an MPICH rank ~1,900 from its start to its exit,
 * so on such a machine the figure explains part of the start-up ratio. Prints the price (a
 * fresh 32 MiB buffer touched once per page, in this process) and the faults of Node's start and
 * of importing tsmpi (medians of 3 processes).
 */
function reportPageFaults(): void {
  const PAGE = 4096;
  const bytes = new Uint8Array(32 << 20);
  const before = process.resourceUsage().minorPageFault;
  const t0 = performance.now();
  for (let i = 0; i < bytes.length; i += PAGE) bytes[i] = 1;
  const ms = performance.now() - t0;
  const faults = process.resourceUsage().minorPageFault - before;
  const faultsOf = (code: string): number => medianOfNode(3, ['--input-type=module', '-e', code], { cwd: root });
  const boot = faultsOf('console.log(process.resourceUsage().minorPageFault)');
  const imported = faultsOf("const f = process.resourceUsage().minorPageFault; await import('tsmpi'); " +
    'console.log(process.resourceUsage().minorPageFault - f)');
  const each = faults > 0 ? `${((ms * 1000) / faults).toFixed(1)} us each` : 'none taken';
  console.log(`# page faults: ${faults} in ${ms.toFixed(1)} ms touching a fresh 32 MiB (${each}); Node's start takes ` +
    `${boot.toFixed(0)} before the program, importing tsmpi ${imported.toFixed(0)} more`);
}
