import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url)); // dist/bench/sci
const ROOT = path.resolve(HERE, '..', '..', '..');
const TSMPIEXEC = path.join(ROOT, 'dist', 'bin', 'tsmpiexec.js');
const PINGPONG = path.join(HERE, 'pingpong.js');

/**
 * Runs bench/sci/pingpong.js on 2 ranks with the given tsmpiexec arguments (e.g. `-x VAR=value`,
 * `--sci-nodes 2`) and returns its rows: size → half round trip in µs. Throws with the run's
 * output when it fails.
 */
export function pingPongRows(launch: readonly string[], sizes: readonly number[]): Map<number, number> {
  const args = [TSMPIEXEC, '-n', '2', ...launch, '--timeout', '600', process.execPath, PINGPONG, sizes.join(',')];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 700_000 });
  if (r.status !== 0) throw new Error(`ping-pong failed (${args.join(' ')}):\n${r.stdout}\n${r.stderr}`);
  const rows = new Map<number, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+)\s+([\d.]+)$/.exec(line.trim());
    if (m) rows.set(Number(m[1]), Number(m[2]));
  }
  return rows;
}
