/**
 * Runs the whole lock benchmark suite and writes the report: every benchmark under tsmpiexec
 * with 2 ranks, 4 ranks, and 4 ranks on 2 emulated nodes (--sci-nodes 2), then report.js.
 *
 *   node dist/bench/locks/run-all.js [--duration S] [--reps N] [--locks a,b|all] [--benches upb,ecsb,...]
 *                                    [--configs 2,4,4x2,3h3,6h3] [--smoke] [--keep] [--out DIR]
 *                                    [--hosts H1,H2,... [--launcher-exec CMD]]
 *                                    [--ks 0,1,2,3,4,5] [--waits 0,0.25,...] [--fw 0.2,2,...] [--upb-locks N] [--dht-locks N]
 *
 * Configurations: N (N ranks on this host), NxK (N ranks on K emulated SCI nodes, tsmpiexec
 * --sci-nodes K), NhK (N ranks on K hosts, started by MPICH's hydra, rank r on host r mod K:
 * ch_ucx between hosts, ch_shmem within one). Hosts are h1..hK emulated in network namespaces
 * (../shared/tools/netns-hosts.sh, brought up here, as root), or the first K of --hosts reached
 * by --launcher-exec (default ssh) on a real cluster; UCX_TLS is tcp unless set. Across hosts:
 *   node dist/bench/locks/run-all.js --configs 3h3,6h3 --out bench/locks/results/hosts
 *
 * A launch that fails is retried one lock at a time; a lock that fails alone gets a "failed"
 * row (with the last line of its error) instead of numbers, and the suite goes on.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCKS } from '../../src/locks/index.js';
import { QUEUES } from '../../src/locks/queue/index.js';
import { emulatedHosts, findHydra, type HostLaunch, hydraCommand, namedHosts } from '../compare/hosts.js';
import { type Bench, BENCHES, makeRow, mergeCsv, RESULTS } from './common.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsmpiexec = path.resolve(here, '..', '..', 'bin', 'tsmpiexec.js');
const argv = process.argv.slice(2);
const opt = (flag: string): string | undefined => {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
};
const duration = opt('--duration') ?? '0.3';
const reps = opt('--reps') ?? '3';
const smoke = argv.includes('--smoke');
const out = path.resolve(opt('--out') ?? RESULTS);
const locks = opt('--locks') ?? 'all';
const benches = (opt('--benches')?.split(',') ?? [...BENCHES]) as Bench[];
/** One launch shape: n ranks on `nodes` SCI nodes of this host, or across `hosts` hosts. */
interface Config { n: number; nodes: number; hosts: number }
const configs: Config[] = (opt('--configs') ?? '2,4,4x2').split(',').map((c) => {
  const m = /^(\d+)(?:x(\d+)|h(\d+))?$/.exec(c);
  if (m === null || Number(m[1]) < 1) throw new Error(`--configs takes N, NxK (K SCI nodes) or NhK (K hosts), got ${JSON.stringify(c)}`);
  const hosts = m[3] === undefined ? 1 : Number(m[3]);
  if (m[3] !== undefined && hosts < 2) throw new Error(`${c}: across hosts means two or more (NhK with K >= 2)`);
  return { n: Number(m[1]), nodes: m[2] === undefined ? 1 : Number(m[2]), hosts };
});
const label = (c: Config): string => `-n ${c.n}${c.nodes > 1 ? ` --sci-nodes ${c.nodes}` : ''}${c.hosts > 1 ? ` on ${c.hosts} hosts` : ''}`;

/** hydra and the hosts for NhK configurations (the emulated ones are brought up once, here). */
const hydra = findHydra((c) => {
  const r = spawnSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
});
const maxHosts = Math.max(...configs.map((c) => c.hosts));
let hostLaunch: HostLaunch | null = null;
if (maxHosts > 1) {
  if (hydra === null) throw new Error('NhK configurations start under MPICH\'s hydra: apt-get install mpich');
  const tls = process.env.UCX_TLS ?? 'tcp';
  hostLaunch = opt('--hosts') !== undefined ? namedHosts(opt('--hosts')!, opt('--launcher-exec') ?? null, tls) : emulatedHosts(maxHosts, tls);
  if (hostLaunch.hosts.length < maxHosts) throw new Error(`--configs asks for ${maxHosts} hosts, --hosts names ${hostLaunch.hosts.length}`);
}
for (const b of benches) if (!BENCHES.includes(b)) throw new Error(`unknown benchmark ${b}; known: ${BENCHES.join(', ')}`);

// A run starts from empty files (rows of locks since renamed or built would linger otherwise), unless --keep.
if (!argv.includes('--keep')) for (const b of benches) for (const ext of ['csv', 'svg']) fs.rmSync(path.join(out, `${b}.${ext}`), { force: true });

/** Benchmark options passed through: --ks (CCWB), --waits (WBAB), --fw (workload, DHT), --upb-locks, --dht-locks, --buckets. */
const FORWARD = ['--ks', '--waits', '--fw', '--upb-locks', '--dht-locks', '--buckets'];
const forwarded = FORWARD.flatMap((f) => (opt(f) !== undefined ? [f, opt(f)!] : []));
const common = ['--duration', duration, '--reps', reps, '--out', out, ...(smoke ? ['--smoke'] : []), ...forwarded];
const commands: string[] = [];
const started = new Date().toISOString();
const t0 = Date.now();

function launch(bench: Bench, c: Config, lockList: string): { ok: boolean; why: string } {
  const flag = bench === 'queue' ? '--queues' : '--locks';
  const program = [process.execPath, path.join(here, `${bench}.js`), flag, lockList, ...common];
  const shown = (a: string): string => (a === process.execPath ? 'node' : a);
  let r;
  if (c.hosts > 1) {
    // hydra across the first c.hosts hosts; its own limit ends the ranks on every host.
    const h = { ...hostLaunch!, hosts: hostLaunch!.hosts.slice(0, c.hosts) };
    const cmd = hydraCommand(h, hydra!, c.n, program, 900);
    commands.push(`MPIEXEC_TIMEOUT=900 ${cmd.command} ${cmd.args.map(shown).join(' ')}`);
    r = spawnSync(cmd.command, cmd.args, { encoding: 'utf8', timeout: 950_000, env: cmd.env });
  } else {
    const args = [tsmpiexec, '-n', String(c.n), ...(c.nodes > 1 ? ['--sci-nodes', String(c.nodes)] : []), '--timeout', '900', ...program];
    commands.push(`node ${path.relative(process.cwd(), args[0]!)} ${args.slice(1).map(shown).join(' ')}`);
    r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 950_000 });
  }
  const why = `${(r.stderr || r.stdout || '').trim().split('\n').filter((l) => l.trim() !== '').slice(-3).join(' / ')}`.slice(0, 300);
  return { ok: r.status === 0, why: r.status === 124 ? `timeout (900 s); ${why}` : why };
}

for (const bench of benches) {
  for (const config of configs) {
    const { n, nodes } = config;
    const t = Date.now();
    const r = launch(bench, config, locks);
    process.stdout.write(`${bench} ${label(config)}: ${r.ok ? 'ok' : `FAILED (${r.why}), retrying lock by lock`} (${((Date.now() - t) / 1000).toFixed(1)} s)\n`);
    if (r.ok) continue;
    const names = locks === 'all' ? (bench === 'queue' ? QUEUES : LOCKS).map((s) => s.name) : locks.split(',');
    let failures = 0;
    for (const [i, name] of names.entries()) {
      // Three failures in a row at the start: the build itself is broken, not a lock; do not launch the rest.
      const one = i >= 3 && failures === i ? { ok: false, why: 'not run: the first three locks failed alone too' } : launch(bench, config, name);
      if (!one.ok) failures++;
      process.stdout.write(`  ${name}: ${one.ok ? 'ok' : `failed: ${one.why}`}\n`);
      if (!one.ok) {
        const spec = (bench === 'queue' ? [] : LOCKS).find((s) => s.name === name);
        mergeCsv(path.join(out, `${bench}.csv`), [makeRow({ bench, lock: name, family: spec?.family ?? (bench === 'queue' ? 'queue' : ''),
          status: 'failed', processes: n, nodes: Math.max(nodes, config.hosts), variant: '', param: '', value: '' }, [], one.why.replace(/\n/g, ' '))]);
      }
    }
  }
}
fs.mkdirSync(out, { recursive: true });
// With --keep the earlier runs' options and commands stay in run.json, this run's appended.
const runFile = path.join(out, 'run.json');
const before = argv.includes('--keep') && fs.existsSync(runFile) ? JSON.parse(fs.readFileSync(runFile, 'utf8')) as { options?: string; commands?: string[]; started?: string } : null;
fs.writeFileSync(runFile, JSON.stringify({
  started: before?.started ?? started, seconds: Math.round((Date.now() - t0) / 1000),
  options: `${before?.options ? `${before.options}; then ` : ''}run-all.js${argv.includes('--keep') ? ' --keep' : ''} --benches ${benches.join(',')} --configs ${opt('--configs') ?? '2,4,4x2'} --duration ${duration} --reps ${reps} --locks ${locks}${smoke ? ' --smoke' : ''}${forwarded.length > 0 ? ` ${forwarded.join(' ')}` : ''}`,
  locks: LOCKS.map((s) => s.name), queues: QUEUES.map((q) => q.name), commands: [...(before?.commands ?? []), ...commands],
}, null, 2) + '\n');
const rep = spawnSync(process.execPath, [path.join(here, 'report.js'), '--out', out], { encoding: 'utf8' });
process.stdout.write(rep.stdout + rep.stderr);
process.exit(rep.status ?? 1);
