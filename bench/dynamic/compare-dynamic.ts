/**
 * The cost of dynamic processes, tsmpi beside MPICH in one run: builds bench/dynamic/spawn_bench.c
 * with mpicc (into the temporary directory), runs it under MPICH's mpiexec.hydra -n 1 and
 * bench/dynamic/spawn-bench.js under tsmpiexec -n 1 with the same options, alternating the two
 * sides REPEAT times (fresh processes each), and prints one markdown table: Spawn time of N
 * children, ping-pong latency and osu_bw bandwidth between the parent and its child 0 over the
 * spawned intercommunicator. Each cell is the median over the runs; the ratio is tsmpi/MPICH for
 * times and MPICH/tsmpi for bandwidth, so above 1 means tsmpi is slower in every row.
 *
 * Where MPICH cannot spawn (Debian's mpich 4.0.2 is ch4:ucx, whose MPI_Open_port, and so
 * MPI_Comm_spawn, fails with "not supported with ucx netmod"), the Spawn rows say n/a and the
 * MPICH latency and bandwidth come from ranks 0 and 1 of one job (`--world 1`) with
 * UCX_TLS=tcp,self: MPICH over the transport tsmpi's spawned jobs use (UCX over TCP loopback).
 * The table's footnote says which baseline was measured.
 *
 *   npx tsc -p tsconfig.json && node scripts/bundle.mjs
 *   node dist/bench/dynamic/compare-dynamic.js [--repeat 3] [--spawn 1,2,4] [--spawn-repeat 5]
 *     [--lat-sizes 1,4,...,1048576] [--bw-sizes 1024,65536,1048576] [--iters 1000] [--iters-large 100]
 *     [--bw-iters 100] [--bw-iters-large 20]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configArgs, parseConfig } from './config.js';
import { parseOutput, type Rows, median } from './parse.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const argv = process.argv.slice(2);
function opt(name: string, fallback: string): string {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : fallback;
}
const repeat = Number(opt('--repeat', '3'));
// The benchmark's own options pass through; --spawn-repeat is its --repeat (spawns per N).
const passed: string[] = [];
for (const name of ['--spawn', '--lat-sizes', '--bw-sizes', '--iters', '--iters-large', '--bw-iters', '--bw-iters-large']) {
  if (argv.includes(name)) passed.push(name, opt(name, ''));
}
if (argv.includes('--spawn-repeat')) passed.push('--repeat', opt('--spawn-repeat', ''));
const config = parseConfig(passed);
const benchArgs = configArgs(config);

function which(cmd: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}
const mpicc = which('mpicc');
const hydra = which('mpiexec.hydra');
if (mpicc === null || hydra === null) {
  process.stderr.write('compare-dynamic: needs mpicc and mpiexec.hydra (MPICH)\n');
  process.exit(2);
}
const exe = path.join(os.tmpdir(), `tsmpi-spawn-bench-${process.pid}`);
const built = spawnSync(mpicc, ['-O2', '-o', exe, path.join(ROOT, 'bench', 'dynamic', 'spawn_bench.c')], { encoding: 'utf8' });
if (built.status !== 0) {
  process.stderr.write(`building spawn_bench.c failed:\n${built.stderr}`);
  process.exit(1);
}

interface Side { status: number | null; stdout: string; stderr: string }
function side(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Side {
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env, timeout: 600_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}
function mustParse(who: string, r: Side): Rows {
  if (r.status !== 0) throw new Error(`${who} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return parseOutput(r.stdout);
}

/** Why MPICH cannot spawn here (its error stack's telling line), or null while it can. */
let mpichCannotSpawn: string | null = null;
function mpich(): Rows {
  if (mpichCannotSpawn === null) {
    const r = side(hydra!, ['-n', '1', exe, ...benchArgs]);
    if (r.status === 0) return parseOutput(r.stdout);
    // spawn_bench.c asks MPI_Open_port before spawning and exits 3 with its reason.
    const why = /cannot spawn: (.*)/.exec(r.stderr);
    if (why === null) return mustParse('mpiexec.hydra spawn_bench', r);
    mpichCannotSpawn = why[1]!.trim();
  }
  return mustParse('mpiexec.hydra spawn_bench --world 1',
    side(hydra!, ['-n', '2', exe, ...benchArgs, '--world', '1'], { ...process.env, UCX_TLS: 'tcp,self' }));
}

const runs: { tsmpi: Rows[]; mpich: Rows[] } = { tsmpi: [], mpich: [] };
for (let r = 0; r < repeat; r++) {
  runs.tsmpi.push(mustParse('tsmpiexec spawn-bench', side(process.execPath, [path.join(ROOT, 'dist', 'bin', 'tsmpiexec.js'),
    '--timeout', '500', '-n', '1', process.execPath, path.join(ROOT, 'dist', 'bench', 'dynamic', 'spawn-bench.js'), ...benchArgs])));
  runs.mpich.push(mpich());
}
fs.rmSync(exe, { force: true });

/** The median over runs of one row, NaN where a side has no such row. */
const cell = (sides: Rows[], key: string): number => {
  const xs = sides.map((s) => s.get(key)).filter((x): x is number => x !== undefined);
  return xs.length === 0 ? NaN : median(xs);
};
const fmt = (x: number): string => (Number.isNaN(x) ? 'n/a' : x >= 100 ? x.toFixed(0) : x.toFixed(2));
const label = (b: number): string => (b >= 1 << 20 ? `${b >> 20} MiB` : b >= 1024 ? `${b >> 10} KiB` : `${b} B`);

const lines = [
  `Dynamic processes, one parent on COMM_SELF, ${repeat} alternating runs per side (median over runs); ratio tsmpi/MPICH for times, MPICH/tsmpi for bandwidth (above 1: tsmpi slower)`,
  '',
  '| Measurement | tsmpi | MPICH | ratio |',
  '|---|---:|---:|---:|',
];
const row = (name: string, key: string, bandwidth = false): void => {
  const t = cell(runs.tsmpi, key);
  const m = cell(runs.mpich, key);
  const ratio = bandwidth ? m / t : t / m;
  lines.push(`| ${name} | ${fmt(t)} | ${fmt(m)} | ${Number.isNaN(ratio) ? '–' : ratio.toFixed(2)} |`);
};
for (const n of config.spawn) row(`Spawn ${n} child${n > 1 ? 'ren' : ''} (ms, median of ${config.repeat})`, `spawn ${n}`);
row(`First Spawn of the run, ${config.spawn[0]} (ms)`, `first ${config.spawn[0]}`);
for (const s of config.latSizes) row(`Latency ${label(s)} (us)`, `lat ${s}`);
for (const s of config.bwSizes) row(`Bandwidth ${label(s)} (MB/s)`, `bw ${s}`, true);
lines.push('');
lines.push(mpichCannotSpawn === null
  ? 'MPICH: mpiexec.hydra -n 1, the parent and its spawned child as tsmpi\'s.'
  : `MPICH: this MPICH cannot spawn (\`${mpichCannotSpawn}\`), so no Spawn rows; its latency and bandwidth are ranks 0 and 1 of one job under mpiexec.hydra -n 2 with UCX_TLS=tcp,self (UCX over TCP loopback, the transport of tsmpi's spawned intercommunicator).`);
process.stdout.write(`${lines.join('\n')}\n`);
