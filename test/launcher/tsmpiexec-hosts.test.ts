import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';

import { bringHostsUp, segmentsOn } from '../emulated-hosts.js';
import { processAlive, ROOT, tsmpiexec } from '../helpers.js';
import {
  launcherProgram, mpiProgram, node, runOn, tsmpiexecOnH1, whyNoMultiHost, type Watched,
} from './hosts-helpers.js';

/**
 * tsmpiexec across hosts: `--hosts`/`--hostfile` with the ssh stand-in as --launcher-exec, the
 * launcher on emulated host h1 (../shared/tools/netns-hosts.sh: each host its own network, host
 * name and /dev/shm). The test/mpi programs on 2 and 3 hosts with 1 and 2 ranks per host (so
 * ch_shmem and ch_ucx carry one job together), the placement rule, output forwarding, the PMI
 * secret, a rank killed on another host, --timeout and SIGINT; after each job no host keeps a
 * segment of it.
 */
const skip = whyNoMultiHost();

function assertNoErrors(r: Watched): void {
  assert.equal(r.status, 0, `exit status ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stdout, /^ No Errors$/m, `no " No Errors" line\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
}

async function assertNoSegments(hosts: readonly string[], jobId: string): Promise<void> {
  assert.match(jobId, /^\w+$/, 'the launcher traced no job id');
  for (const h of hosts) assert.deepEqual(await segmentsOn(h, jobId), [], `segments of job ${jobId} left on ${h}`);
}

describe('tsmpiexec --hosts: ranks on several hosts through host agents', { skip }, () => {
  before(() => bringHostsUp(3));

  const cases: [string, number, string, string[]][] = [
    ['h1,h2', 2, 'pt2pt/sizes', ['2']],
    ['h1:2,h2:2', 4, 'pt2pt/order', []],
    ['h1,h2,h3', 3, 'pt2pt/many-to-one', []],
    ['h1:2,h2:2', 4, 'pt2pt/probe', []],
    ['h1,h2', 4, 'coll/data', ['300']],
    ['h1,h2,h3', 3, 'coll/nonblocking', []],
    ['h1:2,h2,h3', 4, 'coll/barrier', []],
  ];
  for (const [list, n, name, args] of cases) {
    it(`${name} ${args.join(' ')} on ${n} ranks over --hosts ${list}`.replace('  ', ' '), { timeout: 150_000 }, async () => {
      const r = await tsmpiexecOnH1(['--hosts', list, '-n', String(n), node, mpiProgram(name), ...args], 120_000);
      assertNoErrors(r);
      await assertNoSegments(['h1', 'h2', 'h3'], r.jobId);
    });
  }

  it('places ranks in blocks by slots, a hostfile like a host list, oversubscribing round after round (--launcher-host)', { timeout: 90_000 }, async () => {
    const file = path.join(os.tmpdir(), `tsmpi-hostfile-${process.pid}`);
    fs.writeFileSync(file, '# login node first\nh2:2\n\nh3 slots=1   # hydra spelling\n');
    try {
      // --launcher-host: the other hosts reach the launcher at h1's address, not its name.
      const r = await tsmpiexecOnH1(['--hostfile', file, '--launcher-host', '192.0.2.1', '-n', '5', node, path.join(ROOT, 'examples', 'hello.js')], 60_000);
      assert.equal(r.status, 0, r.stderr);
      const on = Object.fromEntries([...r.stdout.matchAll(/Hello from rank (\d) of 5 on (h\d)/g)].map((m) => [m[1], m[2]]));
      // Round one: h2 takes ranks 0 and 1, h3 rank 2; round two: h2 takes 3 and 4.
      assert.deepEqual(on, { 0: 'h2', 1: 'h2', 2: 'h3', 3: 'h2', 4: 'h2' }, `placement:\n${r.stdout}`);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('forwards every rank\'s output line by line from every host, with --tag-output prefixes', { timeout: 90_000 }, async () => {
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2,h3', '-n', '3', '--tag-output', node, launcherProgram('behave'), 'chatter'], 60_000);
    assert.equal(r.status, 0, r.stderr);
    let chatter = 0;
    for (const l of r.stdout.split('\n').filter((x) => x !== '')) {
      const m = /^\[(\d)\] rank (\d) /.exec(l);
      assert.ok(m, `untagged line: ${l.slice(0, 80)}`);
      if (l.includes(' ready')) continue;
      assert.equal(l, `[${m[1]}] ${`rank ${m[1]} `.padEnd(3000, m[1])}`, 'a torn or merged line');
      chatter++;
    }
    assert.equal(chatter, 1500);
  });

  it('serves PMI over TCP only to connections with the job\'s secret, which no command line shows', { timeout: 90_000 }, async () => {
    const flag = path.join(os.tmpdir(), `tsmpi-probe-done-${process.pid}`);
    fs.rmSync(flag, { force: true });
    const knock: { probes: Promise<Watched> | null } = { probes: null };
    try {
      const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', '3', node, launcherProgram('secret-probe'), flag], 60_000, {
        onStdout: (text) => {
          const m = /^pmi (\S+)$/m.exec(text);
          if (m === null || knock.probes !== null) return;
          // A stranger on another host of the cluster knocks four ways, then the job goes on.
          knock.probes = runOn('h2', ['bash', '-c', ['silent', 'plain', 'wrong', 'agent']
            .map((mode) => `${node} ${launcherProgram('pmi-probe')} ${m[1]} ${mode}`).join(' & ') + '; wait'], 30_000)
            .finally(() => fs.writeFileSync(flag, 'done'));
        },
      });
      assert.ok(knock.probes !== null, `rank 0 never said where PMI is:\n${r.stdout}\n${r.stderr}`);
      const p = await knock.probes!;
      const answers = p.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { mode: string; received: string; closed: boolean });
      assert.equal(answers.length, 4, `probes:\n${p.stdout}\n${p.stderr}`);
      for (const a of answers) {
        assert.equal(a.received, '', `the ${a.mode} probe got an answer: ${JSON.stringify(a.received)}`);
        if (a.mode !== 'silent') assert.ok(a.closed, `the ${a.mode} probe's connection was not closed`);
      }
      assert.equal(r.status, 0, r.stderr);
      for (let rank = 0; rank < 3; rank++) {
        assert.match(r.stdout, new RegExp(`^rank ${rank} has a secret of 64 characters; on command lines: 0$`, 'm'), r.stdout);
        assert.match(r.stdout, new RegExp(`^rank ${rank} sum 6$`, 'm'), r.stdout);
      }
    } finally {
      fs.rmSync(flag, { force: true });
    }
  });

  it('ends the job within 2 s when a rank on another host is killed with SIGKILL, naming rank and host, leaving no segment', { timeout: 90_000 }, async () => {
    let killedAt = 0;
    const r = await tsmpiexecOnH1(['--hosts', 'h1:2,h2:2', '-n', '4', node, launcherProgram('behave'), 'segment-hang'], 60_000, {
      onStdout: (text) => {
        if (killedAt !== 0 || (text.match(/segment tsmpi-/g) ?? []).length < 4) return;
        const pid = Number(/rank 3 pid (\d+) ready/.exec(text)![1]);
        killedAt = Date.now();
        // The emulated hosts share the pid space: the test can reach rank 3 on h2 directly.
        process.kill(pid, 'SIGKILL');
      },
    });
    assert.ok(killedAt > 0, `ranks never became ready:\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.status, 137, r.stderr);
    assert.match(r.stderr, /tsmpiexec: rank 3 \(pid \d+ on host h2\) was killed by signal SIGKILL/);
    const tookMs = Date.now() - killedAt;
    assert.ok(tookMs < 2500, `the job took ${tookMs} ms to end after the kill`);
    await assertNoSegments(['h1', 'h2'], r.jobId);
  });

  it('--timeout stops a job on several hosts after the remote ranks reported their state', { timeout: 60_000 }, async () => {
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', '2', '--timeout', '4', node, launcherProgram('stuck')], 45_000);
    assert.equal(r.status, 124, r.stderr);
    assert.match(r.stderr, /job timed out after 4 s/);
    assert.match(r.stderr, /tsmpi: rank 1 \(pid \d+\): \d+ pending requests?/, `no state report from rank 1 on h2:\n${r.stderr}`);
    await assertNoSegments(['h1', 'h2'], r.jobId);
  });

  it('passes SIGINT to the ranks on every host and exits 130', { timeout: 60_000 }, async () => {
    const pids: number[] = [];
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2', '-n', '2', node, launcherProgram('behave'), 'segment-hang'], 45_000, {
      onStdout: (text, child) => {
        if (pids.length > 0 || (text.match(/segment tsmpi-/g) ?? []).length < 2) return;
        for (const m of text.matchAll(/pid (\d+) ready/g)) pids.push(Number(m[1]));
        // netns-hosts.sh exec runs the launcher in place of itself: the child is tsmpiexec.
        child.kill('SIGINT');
      },
    });
    assert.equal(r.status, 130, r.stderr);
    assert.equal(pids.length, 2, r.stdout);
    for (const pid of pids) assert.throws(() => process.kill(pid, 0), /ESRCH/, `rank pid ${pid} still alive`);
    await assertNoSegments(['h1', 'h2'], r.jobId);
  });

  it('when the launcher itself is killed, each host\'s agent stops its ranks and sweeps its host', { timeout: 60_000 }, async () => {
    const pids: number[] = [];
    const r = await tsmpiexecOnH1(['--hosts', 'h1,h2,h3', '-n', '3', node, launcherProgram('behave'), 'segment-hang'], 45_000, {
      onStdout: (text, child) => {
        if (pids.length > 0 || (text.match(/segment tsmpi-/g) ?? []).length < 3) return;
        for (const m of text.matchAll(/pid (\d+) ready/g)) pids.push(Number(m[1]));
        child.kill('SIGKILL');
      },
    });
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    assert.equal(pids.length, 3, r.stdout);
    assert.match(r.jobId, /^\w+$/, 'the launcher traced no job id');
    let left: string[] = [];
    for (let i = 0; i < 40; i++) {
      left = (await Promise.all(['h1', 'h2', 'h3'].map((h) => segmentsOn(h, r.jobId)))).flat();
      if (left.length === 0 && pids.every((pid) => !processAlive(pid))) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    assert.deepEqual(left, [], 'segments left behind');
    for (const pid of pids) assert.ok(!processAlive(pid), `rank pid ${pid} still alive`);
  });
});

describe('tsmpiexec --hosts/--hostfile usage errors', () => {
  const hello = path.join(ROOT, 'examples', 'hello.js');
  const cases: [string[], RegExp][] = [
    [['--hosts', 'h1,,h2'], /--hosts "h1,,h2": expected host\[:slots\] entries separated by commas/],
    [['--hosts', 'h1:0'], /--hosts: "h1:0": slots must be an integer in \[1, 1024\]/],
    [['--hosts', 'h1;rm'], /"h1;rm" is not a host name/],
    [['--hostfile', '/nonexistent/hosts'], /--hostfile \/nonexistent\/hosts: cannot read it \(ENOENT\)/],
    [['--hosts', 'h1', '--hostfile', '/etc/hostname'], /--hosts and --hostfile: give one of them, not both/],
    [['--hosts', 'h1', '--sci-nodes', '2'], /--sci-nodes emulates nodes on this host/],
    [['--hosts', 'h1', '--launcher-exec', ' '], /--launcher-exec needs a command/],
    [['--hosts', 'h1', '--launcher-host', 'a b'], /--launcher-host "a b": expected a host name or an IP address/],
  ];
  for (const [flags, message] of cases) {
    it(`rejects ${flags.join(' ')} with status 2`, { timeout: 30_000 }, async () => {
      const r = await tsmpiexec([...flags, '-n', '2', node, hello], 20_000);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
    });
  }

  it('rejects an empty hostfile, naming the file', { timeout: 30_000 }, async () => {
    const file = path.join(os.tmpdir(), `tsmpi-empty-hostfile-${process.pid}`);
    fs.writeFileSync(file, '# nothing\n\n');
    try {
      const r = await tsmpiexec(['--hostfile', file, '-n', '2', node, hello], 20_000);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /names no host/);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('documents --hosts, --hostfile and --launcher-exec in --help', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['--help'], 20_000);
    assert.equal(r.status, 0);
    for (const flag of ['--hosts', '--hostfile', '--launcher-exec', 'oversubscription', 'secret']) assert.ok(r.stdout.includes(flag), flag);
  });

  it('names the host whose agent cannot be started', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['--hosts', 'nohost', '--launcher-exec', '/bin/false', '-n', '1', node, hello], 20_000);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /the agent on host nohost \(started with `\/bin\/false nohost`\) exited with status 1 before it connected back/);
  });
});
