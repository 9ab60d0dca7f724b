import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { ucxProbe } from '../../src/native/addon.js';
import { bringHostsUp, segmentsOn, whyNoHosts } from '../emulated-hosts.js';
import { DIST, ROOT, run, type RunResult } from '../helpers.js';

/**
 * Slurm across hosts: scripts/slurm-hosts.sh runs a cluster over the emulated hosts (slurmctld
 * on h1, a slurmd inside each of h1..h3, its own configuration, ports and state, apart from the
 * single-node Slurm other tests use), and `srun --mpi=pmi2 -N 2 -n 4` started on h1 puts two
 * ranks on each of two hosts: tsmpi's PMI-1 client talks to Slurm's pmi2 plugin on each host,
 * ch_shmem joins the ranks of a host and ch_ucx the hosts, and no segment stays behind.
 */
const SCRIPT = path.join(ROOT, 'scripts', 'slurm-hosts.sh');

function whyNot(): string | false {
  const noHosts = whyNoHosts();
  if (noHosts !== null) return noHosts;
  for (const bin of ['/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/srun', '/usr/sbin/munged']) {
    if (!fs.existsSync(bin)) return `${bin} is missing (apt-get install slurmctld slurmd slurm-client munge; .ci/run does)`;
  }
  if (!ucxProbe().available) return `UCX is not usable here: ${ucxProbe().reason}`;
  return false;
}

const skip = whyNot();

/** srun on h1, with the cluster's SLURM_CONF, bounded by `timeout` there (srun then cancels the step). */
function srun(nodes: number, n: number, program: string[], limitS: number, env: string[]): Promise<RunResult> {
  return run('bash', [SCRIPT, 'run', 'env', ...env, 'timeout', '-k', '5', String(limitS),
    'srun', '--mpi=pmi2', '-N', String(nodes), '-n', String(n), process.execPath, ...program],
  (limitS + 20) * 1000, { cwd: ROOT });
}

let jobs = 0;
function newJobId(): string {
  return `sh${process.pid}x${++jobs}`;
}

function explain(r: RunResult): string {
  return `exit status ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

describe('Slurm across hosts: srun --mpi=pmi2 over the emulated hosts', { skip }, () => {
  before(async () => {
    bringHostsUp(3);
    const up = await run('bash', [SCRIPT, 'up', '3'], 150_000, { cwd: ROOT });
    assert.equal(up.status, 0, `scripts/slurm-hosts.sh up 3 failed\n${up.stderr}`);
  });
  after(async () => {
    await run('bash', [SCRIPT, 'down'], 60_000, { cwd: ROOT });
  });

  it('-N 2 -n 4: two ranks on each of two hosts, ch_shmem within a host and ch_ucx between', { timeout: 120_000 }, async () => {
    const jobId = newJobId();
    const r = await srun(2, 4, [path.join(ROOT, 'examples', 'ring.js')], 90, [`TSMPI_JOBID=${jobId}`, 'DEBUG=tsmpi:boot']);
    assert.equal(r.status, 0, explain(r));
    assert.match(r.stdout, /^rank 0: token came back with 6 after visiting 4 ranks$/m, explain(r));
    // Slurm's block distribution: ranks 0 and 1 on the first node, 2 and 3 on the second.
    const hostOf: string[] = [];
    for (let rank = 0; rank < 4; rank++) {
      const m = new RegExp(`rank ${rank} of 4 on (h[123])\\.\\w+: self 1, ch_shmem 1, ch_ucx 2`).exec(r.stderr);
      assert.ok(m, `rank ${rank} did not report ch_shmem 1, ch_ucx 2\n${r.stderr}`);
      hostOf.push(m[1]!);
    }
    assert.equal(hostOf[0], hostOf[1], `ranks 0 and 1 on one host: ${hostOf.join(' ')}`);
    assert.equal(hostOf[2], hostOf[3], `ranks 2 and 3 on one host: ${hostOf.join(' ')}`);
    assert.notEqual(hostOf[0], hostOf[2], `two hosts: ${hostOf.join(' ')}`);
    for (const h of ['h1', 'h2', 'h3']) assert.deepEqual(await segmentsOn(h, jobId), [], `segments left on ${h}`);
  });

  const programs: [number, number, string, string[]][] = [
    [2, 4, 'pt2pt/order', ['1000']],
    [3, 5, 'coll/data', ['100']],
    [3, 6, 'coll/barrier', ['300']],
  ];
  for (const [nodes, n, name, args] of programs) {
    it(`${name} ${args.join(' ')} with -N ${nodes} -n ${n}`, { timeout: 150_000 }, async () => {
      const jobId = newJobId();
      const r = await srun(nodes, n, [path.join(DIST, 'test', 'mpi', `${name}.js`), ...args], 120, [`TSMPI_JOBID=${jobId}`]);
      assert.equal(r.status, 0, explain(r));
      assert.match(r.stdout, /^ No Errors$/m, explain(r));
      for (const h of ['h1', 'h2', 'h3']) assert.deepEqual(await segmentsOn(h, jobId), [], `segments left on ${h}`);
    });
  }
});
