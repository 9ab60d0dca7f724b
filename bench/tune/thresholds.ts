/**
 * How the protocol limits were chosen: runs osu_latency (and osu_bw) with one protocol forced
 * for every size, side by side, and reports where the next protocol starts to win.
 *   - short vs eager: TSMPI_SHORT_MAX large (everything inside the ring slots) against
 *     TSMPI_SHORT_MAX=0 (everything through the eager ring), sizes 16 B .. 16 KiB;
 *   - eager vs rendezvous: TSMPI_EAGER_MAX large against TSMPI_EAGER_MAX=0, sizes 1 KiB .. 1 MiB.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/tune/thresholds.js [-i ITER] [-x WARMUP]
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..', '..');
const TSMPIEXEC = path.join(ROOT, 'dist', 'bin', 'tsmpiexec.js');
const OSU = path.join(ROOT, 'dist', 'bench', 'osu');
const args = process.argv.slice(2);
const opt = (flag: string, fallback: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1]! : fallback;
};
const iterations = opt('-i', '3000');
const warmup = opt('-x', '1000');

function run(program: string, sizes: string, env: Record<string, string>): Map<number, number> {
  const r = spawnSync(process.execPath, [TSMPIEXEC, '-n', '2', process.execPath, path.join(OSU, `${program}.js`),
    '-m', sizes, '-i', iterations, '-x', warmup], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${program} ${JSON.stringify(env)} failed:\n${r.stdout}\n${r.stderr}`);
  const out = new Map<number, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+)\s+([\d.]+)$/.exec(line.trim());
    if (m) out.set(Number(m[1]), Number(m[2]));
  }
  return out;
}

/** Best of three runs per variant, alternating, to damp the noise of a shared machine. */
function best(program: string, sizes: string, env: Record<string, string>, lowerIsBetter: boolean): Map<number, number> {
  let acc: Map<number, number> | null = null;
  for (let k = 0; k < 3; k++) {
    const m = run(program, sizes, env);
    if (acc === null) acc = m;
    else for (const [s, v] of m) acc.set(s, lowerIsBetter ? Math.min(acc.get(s) ?? v, v) : Math.max(acc.get(s) ?? v, v));
  }
  return acc!;
}

function compare(title: string, program: string, sizes: string, a: [string, Record<string, string>],
                 b: [string, Record<string, string>], lowerIsBetter: boolean): void {
  const ra = best(program, sizes, a[1], lowerIsBetter);
  const rb = best(program, sizes, b[1], lowerIsBetter);
  console.log(`\n### ${title} (${program}, ${lowerIsBetter ? 'µs, lower is better' : 'MB/s, higher is better'})\n`);
  console.log(`| Size | ${a[0]} | ${b[0]} | faster |`);
  console.log('|---:|---:|---:|---|');
  for (const [size, va] of ra) {
    const vb = rb.get(size) ?? NaN;
    const aWins = lowerIsBetter ? va <= vb : va >= vb;
    console.log(`| ${size} | ${va.toFixed(2)} | ${vb.toFixed(2)} | ${aWins ? a[0] : b[0]} |`);
  }
}

const shortAll = { TSMPI_SHORT_MAX: '16384', TSMPI_SHMEM_SLOTS: '512' };
const eagerAll = { TSMPI_SHORT_MAX: '0', TSMPI_SHMEM_SLOTS: '512' };
compare('short vs eager', 'osu_latency', '16:16384', ['short', shortAll], ['eager', eagerAll], true);
const eagerBig = { TSMPI_EAGER_MAX: '1048576', TSMPI_SHMEM_EAGER_BYTES: '4194304' };
const rndvAll = { TSMPI_EAGER_MAX: '0' };
compare('eager vs rendezvous', 'osu_latency', '1024:1048576', ['eager', eagerBig], ['rendezvous', rndvAll], true);
compare('eager vs rendezvous', 'osu_bw', '1024:1048576', ['eager', eagerBig], ['rendezvous', rndvAll], false);
