/**
 * tsmpi's MPI.File beside MPICH's ROMIO in one run: builds bench/io/io_bench.c with mpicc (into
 * the temporary directory), runs it under MPICH's mpiexec.hydra and bench/io/io-bench.js under
 * tsmpiexec with the same ranks, bytes and blocks, alternating the two sides REPEAT times, and
 * prints one markdown table (MB/s, best run of each side).
 *
 *   npx tsc -p tsconfig.json && node scripts/bundle.mjs
 *   node dist/bench/io/compare-io.js [-n RANKS] [--bytes PER_RANK] [--repeat N] [--runs R] [--blocks 4096,65536,1048576] [--dir DIR]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const args = process.argv.slice(2);
function opt(name: string, fallback: string): string {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
}
const ranks = opt('-n', '4');
const perRank = opt('--bytes', String(8 << 20));
const repeat = opt('--repeat', '3');
const runs = opt('--runs', '2');
const blocks = opt('--blocks', '4096,65536,1048576').split(',');
const dir = opt('--dir', os.tmpdir());

function which(cmd: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}
const mpicc = which('mpicc');
const hydra = which('mpiexec.hydra') ?? which('mpiexec');
if (mpicc === null || hydra === null) {
  process.stderr.write('compare-io: needs mpicc and mpiexec (MPICH)\n');
  process.exit(2);
}
const exe = path.join(os.tmpdir(), `tsmpi-io-bench-${process.pid}`);
const built = spawnSync(mpicc, ['-O2', '-o', exe, path.join(ROOT, 'bench', 'io', 'io_bench.c')], { encoding: 'utf8' });
if (built.status !== 0) {
  process.stderr.write(`building io_bench.c failed:\n${built.stderr}`);
  process.exit(1);
}

/** Runs one side; returns its rows by "op block". */
function side(command: string, argv: string[], file: string): Map<string, number> {
  const r = spawnSync(command, [...argv, file, perRank, repeat, ...blocks], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${command} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  const rows = new Map<string, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\w+) (\d+) ([\d.]+)$/.exec(line.trim());
    if (m) rows.set(`${m[1]} ${m[2]}`, Number(m[3]));
  }
  return rows;
}

const best = { tsmpi: new Map<string, number>(), romio: new Map<string, number>() };
const keep = (into: Map<string, number>, rows: Map<string, number>): void => {
  for (const [k, v] of rows) into.set(k, Math.max(into.get(k) ?? 0, v));
};
for (let r = 0; r < Number(runs); r++) {
  keep(best.tsmpi, side(process.execPath, [path.join(ROOT, 'dist', 'bin', 'tsmpiexec.js'), '--timeout', '300', '-n', ranks,
    process.execPath, path.join(ROOT, 'dist', 'bench', 'io', 'io-bench.js')], path.join(dir, `tsmpi-io-${process.pid}-t`)));
  keep(best.romio, side(hydra, ['-n', ranks, exe], path.join(dir, `tsmpi-io-${process.pid}-m`)));
}
fs.rmSync(exe, { force: true });

const lines = [
  `Strided file I/O, ${ranks} ranks, ${Number(perRank) >> 20} MiB per rank, each rank one block in ${ranks}; MB/s (best of ${runs} runs x ${repeat} timed accesses, after a warm-up), files in ${dir}`,
  '',
  '| Access | Block | tsmpi | MPICH ROMIO | tsmpi/ROMIO |',
  '|---|---:|---:|---:|---:|',
];
for (const op of ['write_all', 'read_all', 'write', 'read']) {
  for (const b of blocks) {
    const t = best.tsmpi.get(`${op} ${b}`) ?? NaN;
    const m = best.romio.get(`${op} ${b}`) ?? NaN;
    const label = { write_all: 'Write_at_all', read_all: 'Read_at_all', write: 'Write_at', read: 'Read_at' }[op];
    lines.push(`| ${label} | ${Number(b) >= 1 << 20 ? `${Number(b) >> 20} MiB` : `${Number(b) >> 10} KiB`} | ${t.toFixed(1)} | ${m.toFixed(1)} | ${(t / m).toFixed(2)} |`);
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
