import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { ucxProbe } from '../../src/native/addon.js';
import { whyNoHosts } from '../emulated-hosts.js';
import { DIST, ROOT, run, which } from '../helpers.js';

/**
 * bench/compare across hosts (--netns-hosts, --hosts) and the lock suite's NhK configurations:
 * option errors everywhere; where emulated hosts, hydra, mpicc and UCX are there, a tiny
 * comparison across h1 and h2 whose report must show both sides started by hydra over the two
 * hosts with UCX_TLS=tcp, tsmpi on ch_ucx between two nodes, and rows for every size of
 * osu_latency and osu_bibw. Only shapes are judged, no timing.
 */
const COMPARE = path.join(DIST, 'bench', 'compare', 'compare.js');
const RUN_ALL = path.join(DIST, 'bench', 'locks', 'run-all.js');
const BUILD = path.join(ROOT, 'bench', 'compare', 'build');
const node = process.execPath;
const hydra = which('mpiexec.hydra');

function whyNoRun(): string | false {
  const hosts = whyNoHosts();
  if (hosts !== null) return hosts;
  if (which('mpicc') === null || hydra === null) return 'mpicc or mpiexec.hydra not installed (apt-get install mpich libmpich-dev)';
  if (!ucxProbe().available) return `UCX is not usable here: ${ucxProbe().reason}`;
  return false;
}

/** The body rows of the markdown table under `head`, as cells. */
function tableAfter(report: string, section: string, head: string): string[][] {
  const from = report.indexOf(`## ${section}, `);
  assert.ok(from >= 0, `no section ${section}:\n${report}`);
  const lines = report.slice(from).split('\n');
  const at = lines.indexOf(head);
  assert.ok(at > 0, `no table head ${JSON.stringify(head)} in ${section}:\n${report}`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

describe('bench/compare and bench/locks across hosts', () => {
  const refused: [string[], RegExp][] = [
    [['--launcher-exec', '/usr/bin/ssh'], /--launcher-exec goes with --hosts/],
    [['--hosts', 'h1'], /--hosts needs two or more host names/],
    [['--netns-hosts', '1'], /--netns-hosts needs at least 2 hosts, got 1/],
    [['--netns-hosts', '2', '--hosts', 'a,b'], /--netns-hosts and --hosts exclude each other/],
    [['--netns-hosts', '2', '--launch', '--sci-nodes 2'], /both sides start under hydra/],
    [['--bench', 'bibw,nope'], /--bench takes latency, bw, .* got "nope"/],
  ];
  for (const [args, why] of refused) {
    it(`compare.js ${args.join(' ')}: exit status 2 and why`, { timeout: 20_000 }, async () => {
      const r = await run(node, [COMPARE, ...args], 15_000, { cwd: ROOT });
      assert.equal(r.status, 2, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.match(r.stderr, why);
      assert.equal(r.stdout, '');
    });
  }

  it('run-all.js refuses a host configuration of fewer than two hosts, and a bad one', { timeout: 20_000 }, async () => {
    for (const [config, why] of [['3h1', /3h1: across hosts means two or more/], ['3y2', /--configs takes N, NxK .* or NhK .*, got "3y2"/]] as const) {
      const r = await run(node, [RUN_ALL, '--configs', config, '--benches', 'latency', '--out', os.tmpdir()], 15_000, { cwd: ROOT });
      assert.notEqual(r.status, 0, `${config} accepted:\n${r.stdout}`);
      assert.match(r.stderr, why);
    }
  });

  const skip = whyNoRun();
  it('compare.js --netns-hosts 2: both sides by hydra on h1 and h2 over tcp, osu_latency and osu_bibw rows for every size',
    { skip, timeout: 400_000 }, async () => {
      const outFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-compare-hosts-')), 'hosts.md');
      const r = await run(node, [COMPARE, '--netns-hosts', '2', '--bench', 'latency,bibw', '--sizes', '1:8', '--iterations', '20',
        '--warmup', '2', '--window', '4', '--repeat', '1', '--timeout', '150', '--out', outFile], 380_000, { cwd: ROOT });
      assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.equal(fs.readFileSync(outFile, 'utf8'), r.stdout, '--out holds the printed report');
      fs.rmSync(path.dirname(outFile), { recursive: true });
      const report = r.stdout;
      assert.match(report, /^# tsmpi and MPICH, point to point \(2 ranks\) across 2 hosts$/m);
      assert.match(report, /UCX_TLS=tcp for both/);
      assert.doesNotMatch(report, /Failed/);
      for (const program of ['osu_latency', 'osu_bibw']) {
        const hydraLine = `netns-hosts\\.sh exec h1 ${hydra!.replace(/\./g, '\\.')} -bootstrap-exec \\S*netns-ssh -hosts h1,h2 -n 2 -genv UCX_TLS tcp`;
        assert.match(report, new RegExp(`^- tsmpi \\(1 run: [\\d.]+ s\\): \`bash \\S*${hydraLine} node dist/bench/osu/${program}\\.js -m 1:8`, 'm'));
        assert.match(report, new RegExp(`^- MPICH \\(1 run: [\\d.]+ s\\): \`bash \\S*${hydraLine} bench/compare/build/${program}_c -m 1:8`, 'm'));
        const unit = program === 'osu_latency' ? 'µs' : 'MB/s';
        const rows = tableAfter(report, program, `| Size (B) | tsmpi (${unit}) | MPICH (${unit}) | ratio tsmpi/MPICH |`);
        assert.deepEqual(rows.map((c) => c[0]), ['1', '2', '4', '8'], `${program} rows`);
        // Numbers only: 1-byte bandwidths print 0.00 on a loaded machine (a few hundred µs per message).
        for (const c of rows) for (const v of [c[1]!, c[2]!]) assert.match(v, /^\d+\.\d{2}$/, `${program}: ${c.join(' | ')}`);
      }
      // tsmpi's ranks really were on two hosts: ch_ucx between two nodes.
      assert.match(report, /tsmpi device: ch_ucx \(2 ranks, 2 nodes/);
      assert.ok(fs.existsSync(path.join(BUILD, 'osu_bibw_c')), 'the C osu_bibw was built');
    });
});
