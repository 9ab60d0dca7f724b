import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';

import { ucxProbe } from '../../src/native/addon.js';
import { bringHostsUp, NETNS_HOSTS, NETNS_SSH, whyNoHosts } from '../emulated-hosts.js';
import { DIST, ROOT, run, type RunResult } from '../helpers.js';

/**
 * Ranks on several hosts: MPICH's hydra starts them on hosts emulated in Linux namespaces
 * (../shared/tools/netns-hosts.sh: each host its own network stack, host name and /dev/shm, so
 * only the network joins them), and ch_ucx carries every pair of ranks on different hosts while
 * ch_shmem keeps the ranks of one host. The programs are the test/mpi ones; each job is bounded.
 */
const HOSTS = NETNS_HOSTS;
const SSH = NETNS_SSH;

function whyNot(): string | false {
  const noHosts = whyNoHosts();
  if (noHosts !== null) return noHosts;
  if (!fs.existsSync('/usr/bin/mpiexec.hydra')) return 'mpiexec.hydra is not installed (apt-get install mpich)';
  if (!ucxProbe().available) return `UCX is not usable here: ${ucxProbe().reason}`;
  return false;
}

const skip = whyNot();

function hosts(...args: string[]): Promise<RunResult> {
  return run('bash', [HOSTS, ...args], 60_000, { cwd: ROOT });
}

/** hydra, started on h1 like on a login node, with `n` ranks over `hostList`. */
function hydra(hostList: string, n: number, program: string[], limitS: number, env: string[] = []): Promise<RunResult> {
  const genv = env.flatMap((e) => ['-genv', ...e.split('=', 2)]);
  return run('bash', [HOSTS, 'exec', 'h1', 'mpiexec.hydra', '-bootstrap-exec', SSH, '-hosts', hostList, '-n', String(n),
    ...genv, process.execPath, ...program], limitS * 1000, { cwd: ROOT });
}

function program(name: string): string {
  return path.join(DIST, 'test', 'mpi', `${name}.js`);
}

function assertNoErrors(r: RunResult): void {
  assert.equal(r.status, 0, `exit status ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stdout, /^ No Errors$/m, `no " No Errors" line\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
}

/** tsmpi's segments left in a host's own /dev/shm. */
async function segmentsOn(host: string): Promise<string[]> {
  const r = await hosts('exec', host, 'ls', '/dev/shm');
  return r.stdout.split('\n').filter((n) => n.startsWith('tsmpi-'));
}

describe('ranks on several hosts (ch_ucx between hosts, ch_shmem within one)', { skip }, () => {
  before(() => bringHostsUp(3));

  const cases: [string, number, string, string[], string[]][] = [
    ['h1,h2', 2, 'pt2pt/sizes', ['2'], []],
    ['h1,h2', 4, 'pt2pt/order', [], []],
    ['h1,h2', 4, 'pt2pt/order', ['3000'], ['TSMPI_UCX_EAGER_MAX=256']],
    ['h1,h2,h3', 3, 'pt2pt/many-to-one', [], []],
    ['h1,h2,h3', 3, 'pt2pt/probe', [], []],
    ['h1,h2', 4, 'pt2pt/truncate', [], []],
    ['h1,h2', 4, 'pt2pt/cancel', [], []],
    ['h1,h2', 4, 'datatype/direct', [], []],
    ['h1,h2', 4, 'coll/data', ['300'], []],
    ['h1,h2,h3', 4, 'coll/barrier', [], []],
    ['h1,h2,h3', 3, 'coll/nonblocking', [], []],
  ];
  for (const [list, n, name, args, env] of cases) {
    it(`${name} ${args.join(' ')} on ${n} ranks over ${list} ${env.join(' ')}`.trim(), { timeout: 150_000 }, async () => {
      assertNoErrors(await hydra(list, n, [program(name), ...args], 120, env));
      for (const h of list.split(',')) assert.deepEqual(await segmentsOn(h), [], `segments left on ${h}`);
    });
  }

  it('chooses ch_shmem within a host and ch_ucx between hosts, and opens UCX only when needed', { timeout: 90_000 }, async () => {
    const two = await hydra('h1,h2', 4, [path.join(ROOT, 'examples', 'ring.js')], 60, ['DEBUG=tsmpi:boot']);
    assert.equal(two.status, 0, two.stderr);
    for (let r = 0; r < 4; r++) {
      assert.match(two.stderr, new RegExp(`rank ${r} of 4 on h[12]\\.\\w+: self 1, ch_shmem 1, ch_ucx 2`), two.stderr);
    }
    assert.match(two.stderr, /second card exchange for ch_ucx/);
    const one = await hydra('h1', 2, [path.join(ROOT, 'examples', 'ring.js')], 60, ['DEBUG=tsmpi:boot']);
    assert.equal(one.status, 0, one.stderr);
    assert.doesNotMatch(one.stderr, /ch_ucx|second card exchange/, 'a single-host job opened ch_ucx');
  });
});
