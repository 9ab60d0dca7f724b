import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, ROOT, run, tsmpiexec, tsmpiSegments } from '../helpers.js';

const BEHAVE = path.join(DIST, 'test', 'launcher', 'programs', 'behave.js');
const HELLO = path.join(ROOT, 'examples', 'hello.js');
const node = process.execPath;

function helloLines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l.startsWith('Hello from rank')).sort();
}

describe('tsmpiexec', () => {
  for (const n of [1, 2, 4]) {
    it(`starts ${n} rank(s) of examples/hello.js`, { timeout: 60_000 }, async () => {
      const r = await tsmpiexec(['-n', String(n), node, HELLO], 50_000);
      assert.equal(r.status, 0, r.stderr);
      const lines = helloLines(r.stdout);
      assert.equal(lines.length, n, r.stdout);
      for (let rank = 0; rank < n; rank++) {
        assert.ok(lines.some((l) => l.startsWith(`Hello from rank ${rank} of ${n} on `)), `rank ${rank} missing:\n${r.stdout}`);
      }
    });
  }

  it('accepts -np and --pmi-port (ranks connect to the launcher socket with PMI_ID)', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-np', '3', '--pmi-port', node, HELLO], 50_000);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(helloLines(r.stdout).length, 3, r.stdout);
  });

  it('runs a program alone as a singleton world of size 1', { timeout: 30_000 }, async () => {
    const env = { ...process.env };
    for (const k of ['PMI_FD', 'PMI_PORT', 'PMI_ID', 'PMI_RANK', 'PMI_SIZE', 'TSMPI_JOBID']) delete env[k];
    const r = await run(node, [HELLO], 25_000, { env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Hello from rank 0 of 1 on /m);
  });

  it('stops the job within 1 s when a rank exits non-zero, naming the rank and status', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', node, BEHAVE, 'exit3', '1'], 50_000);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /tsmpiexec: rank 1 \(pid \d+\) exited with status 3/);
    assert.ok(r.ms < 15_000, `took ${r.ms} ms`);
  });

  it('after kill -9 of a rank stops the others, reports the signal and leaves no segment', { timeout: 60_000 }, async () => {
    let killed = false;
    const before = new Set(tsmpiSegments());
    const ready = new Set<number>();
    const pids = new Map<number, number>();
    let leaked = '';
    const r = await tsmpiexec(['-n', '3', node, BEHAVE, 'segment-hang'], 50_000, {
      onStdout: (text) => {
        for (const m of text.matchAll(/rank (\d+) pid (\d+) ready/g)) pids.set(Number(m[1]), Number(m[2]));
        for (const m of text.matchAll(/rank (\d+) segment (\S+)/g)) {
          ready.add(Number(m[1]));
          leaked = m[2]!;
        }
        if (!killed && ready.size === 3) {
          killed = true;
          process.kill(pids.get(2)!, 'SIGKILL');
        }
      },
    });
    assert.ok(killed, `ranks never became ready:\n${r.stdout}\n${r.stderr}`);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /rank 2 \(pid \d+\) was killed by signal SIGKILL/);
    assert.ok(leaked.startsWith('tsmpi-'), leaked);
    const left = tsmpiSegments().filter((n) => !before.has(n));
    assert.deepEqual(left, [], `segments left behind: ${left.join(', ')}`);
  });

  it('ends a hung job after --timeout and says so', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '--timeout', '2', node, BEHAVE, 'hang'], 25_000);
    assert.equal(r.status, 124);
    assert.match(r.stderr, /job timed out after 2 s/);
    assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
  });

  it('passes MPI.Abort exit codes through PMI abort', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', node, BEHAVE, 'abort7', '2'], 50_000);
    assert.equal(r.status, 7, r.stderr);
    assert.match(r.stderr, /rank 2 called MPI_Abort with exit code 7/);
  });

  it('ends the job on an error under the default MPI.ERRORS_ARE_FATAL, naming rank and error', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', node, BEHAVE, 'fatal', '1'], 50_000);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /rank 1 called MPI_Abort with exit code 1: tsmpi: rank 1: fatal error \(MPI\.ERRORS_ARE_FATAL\): MPI_COMM_WORLD\.Send: dest 99 is out of range for a communicator of size 3/);
  });

  it('treats exit 0 without MPI.Finalize as a failure', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', node, BEHAVE, 'no-finalize', '0'], 50_000);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /rank 0 \(pid \d+\) exited with status 0 without calling MPI\.Finalize/);
  });

  it('forwards output line by line without tearing lines, with --tag-output prefixes', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', '--tag-output', node, BEHAVE, 'chatter'], 50_000);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    let chatter = 0;
    for (const l of lines) {
      const m = /^\[(\d)\] rank (\d) /.exec(l);
      assert.ok(m, `untagged line: ${l.slice(0, 80)}`);
      if (l.includes(' ready')) continue;
      assert.equal(m[1], m[2]);
      assert.equal(l, `[${m[1]}] ${`rank ${m[1]} `.padEnd(3000, m[1])}`, 'a torn or merged line');
      chatter++;
    }
    assert.equal(chatter, 1500);
  });

  it('exports variables with -x', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '-x', 'TSMPI_TEST_VALUE=forty-two', node, BEHAVE, 'env'], 50_000);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /rank 0 value forty-two/);
    assert.match(r.stdout, /rank 1 value forty-two/);
  });

  it('passes SIGINT on to the ranks and exits 130', { timeout: 30_000 }, async () => {
    const pids: number[] = [];
    let launcherPid = 0;
    const r = await tsmpiexec(['-n', '2', node, BEHAVE, 'hang'], 25_000, {
      onStdout: (text) => {
        for (const m of text.matchAll(/pid (\d+) ready/g)) pids.push(Number(m[1]));
        if (pids.length === 2) {
          pids.push(0);
          process.kill(launcherPid, 'SIGINT');
        }
      },
      onSpawn: (child) => {
        launcherPid = child.pid!;
      },
    });
    assert.equal(r.status, 130, r.stderr);
    for (const pid of pids.filter((p) => p > 0)) {
      assert.throws(() => process.kill(pid, 0), /ESRCH/, `rank pid ${pid} still alive`);
    }
  });

  it('--sci-nodes K gives each rank its emulated SCI node, K blocks of consecutive ranks', { timeout: 30_000 }, async () => {
    const script = 'console.log(`rank ${process.env.PMI_RANK} node ${process.env.TSMPI_SCI_NODE}`)';
    const r = await tsmpiexec(['-n', '5', '--sci-nodes', '2', node, '-e', script], 25_000);
    assert.equal(r.status, 0, r.stderr);
    const got = r.stdout.split('\n').filter((l) => l.startsWith('rank')).sort();
    assert.deepEqual(got, ['rank 0 node 0', 'rank 1 node 0', 'rank 2 node 0', 'rank 3 node 1', 'rank 4 node 1']);
    const plain = await tsmpiexec(['-n', '1', '-x', 'TSMPI_SCI_NODE=7', node, '-e', script], 25_000);
    assert.match(plain.stdout, /rank 0 node 7/, 'without --sci-nodes the environment is left alone');
    const bad = await tsmpiexec(['-n', '2', '--sci-nodes', '3', node, '-e', script], 20_000);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--sci-nodes 3: cannot split 2 ranks into 3 nodes/);
  });

  it('rejects bad usage with status 2 and a message', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['-n', '0', node, HELLO], 20_000);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /-n 0: the number of ranks must be an integer in \[1, 1024\]/);
    const u = await tsmpiexec(['--frobnicate', node], 20_000);
    assert.equal(u.status, 2);
    assert.match(u.stderr, /unknown option --frobnicate/);
  });

  it('reports a command that cannot be started', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '/nonexistent/program'], 20_000);
    assert.equal(r.status, 127);
    assert.match(r.stderr, /cannot start "\/nonexistent\/program"/);
  });
});
