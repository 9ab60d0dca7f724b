import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';

import { bringHostsUp, segmentsOn } from '../emulated-hosts.js';
import { launcherProgram, mpiProgram, node, tsmpiexecOnH1, whyNoMultiHost } from './hosts-helpers.js';

/**
 * PMI spawn across emulated hosts (../shared/tools/netns-hosts.sh): tsmpiexec on h1 with
 * --hosts h1,h2; a spawn with info host=h2 goes through h2's agent, started for it when h2 had
 * no rank; without host, the children go to the least loaded hosts. The children's PMI runs
 * over TCP with the launcher's secret, routed by PMI_ID to their job's server. A command or
 * wdir that h2 lacks is refused with h2's reason; a child failing on h2 ends the run and no
 * host keeps a segment of any job.
 */
const skip = whyNoMultiHost();
const PROBE = launcherProgram('spawn-probe');

/** `[1:2] child 2: job <id> host <h>` lines -> the host of each spawned process, by tag. */
function childHosts(stdout: string): Map<string, string> {
  const hosts = new Map<string, string>();
  for (const m of stdout.matchAll(/^\[(\d+:\d+)\] child \d+: job \w+ universe \d+ host (\S+)$/gm)) hosts.set(m[1]!, m[2]!);
  return hosts;
}

describe('tsmpiexec --hosts: PMI spawn on other hosts', { skip }, () => {
  before(() => bringHostsUp(2));

  it('info host=h2 starts all children on h2 (whose agent starts for it); they see their job as on one host', { timeout: 120_000 }, async () => {
    const wdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-spawn-hosts-'));
    try {
      const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', '1', '--tag-output', node, PROBE, 'parent', wdir, 'h2'], 100_000);
      assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.deepEqual([...childHosts(r.stdout)].sort(), [['1:0', 'h2'], ['1:1', 'h2'], ['1:2', 'h2']], r.stdout);
      // The universe is the hosts' slots (2) for every job.
      assert.match(r.stdout, /^\[1:0\] child 0: job \w+ universe 2 host h2$/m);
      assert.match(r.stdout, /^\[0\] parent 0: errcodes 0,0,0$/m);
      assert.match(r.stdout, /^\[0\] parent 0: child published child-port-0$/m);
      for (let c = 0; c < 3; c++) {
        assert.match(r.stdout, new RegExp(`^\\[1:${c}\\] child ${c}: size 3 appnum ${c < 2 ? 0 : 1} spawned 1 preput port-of-0$`, 'm'));
        assert.match(r.stdout, new RegExp(`^\\[1:${c}\\] child ${c}: peer ${(c + 1) % 3} has child-0-${(c + 1) % 3} parentkey undefined$`, 'm'));
        assert.match(r.stdout, new RegExp(`^\\[1:${c}\\] child ${c}: lookup parent parent-port-0 lookup none undefined$`, 'm'));
      }
      assert.match(r.stdout, new RegExp(`^\\[1:0\\] child 0: cwd ${wdir} CHILD_VAR first SECOND 2 args \\["two words","k=v"\\]$`, 'm'));
    } finally {
      fs.rmSync(wdir, { recursive: true, force: true });
    }
  });

  it('without info host, places each spawned job over both hosts', { timeout: 120_000 }, async () => {
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', '2', '--tag-output', node, PROBE, 'parent', os.tmpdir()], 100_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const hosts = childHosts(r.stdout);
    assert.equal(hosts.size, 6, r.stdout);
    for (const job of ['1', '2']) {
      const used = new Set([0, 1, 2].map((c) => hosts.get(`${job}:${c}`)));
      assert.deepEqual([...used].sort(), ['h1', 'h2'], `job ${job}: ${r.stdout}`);
    }
  });

  it('refuses a command or a wdir that h2 does not have, with h2\'s reason', { timeout: 120_000 }, async () => {
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', '1', node, PROBE, 'refused', 'h2'], 100_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.match(r.stdout, /^refused 0: bad command: PMI spawn of "\/nonexistent\/prog" failed: cannot find an executable "\/nonexistent\/prog" on host h2; /m);
    assert.match(r.stdout, /^refused 0: bad wdir: .* failed: info wdir "\/nonexistent\/dir" is not a directory on host h2$/m);
    assert.match(r.stdout, /^refused 0: bad host: .*info host "no-such-host" is not one of this job's hosts \(h1, h2\)/m);
  });

  it('a child failing on h2 ends the run, named with its host, and no host keeps a segment', { timeout: 120_000 }, async () => {
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', '1', node, PROBE, 'failing', 'h2'], 100_000);
    assert.equal(r.status, 1, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.match(r.stderr, /^tsmpiexec: rank 0 of spawned job 1 \(node spawn-probe\.js; pid \d+ on host h2\) exited with status 1$/m);
    const parentJob = /^failing 0: job (\w+)$/m.exec(r.stdout)?.[1];
    const childJob = /^fail 0: job (\w+) host h2$/m.exec(r.stdout)?.[1];
    assert.ok(parentJob !== undefined && childJob !== undefined, r.stdout);
    for (const h of ['h1', 'h2']) {
      assert.deepEqual(await segmentsOn(h, parentJob), [], `parent job's segment left on ${h}`);
      assert.deepEqual(await segmentsOn(h, childJob), [], `child job's segment left on ${h}`);
    }
  });

  // MPI's Comm.Spawn over those jobs: parents on both hosts, children placed over both, the
  // intercommunicators between them through ch_ucx across the hosts (test/mpi/dynamic/spawn.ts).
  for (const n of [1, 2]) {
    it(`Comm.Spawn and Spawn_multiple from ${n} parent(s) over h1,h2`, { timeout: 120_000 }, async () => {
      const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', String(n), '--timeout', '90', node, mpiProgram('dynamic/spawn')], 110_000);
      assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.match(r.stdout, /^ No Errors$/m, r.stdout);
    });
  }
});
