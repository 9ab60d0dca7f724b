import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, ROOT, tsmpiexec, which } from '../helpers.js';

const PROGRAMS = path.join(DIST, 'test', 'launcher', 'programs');
const STUCK = path.join(PROGRAMS, 'stuck.js');
const TRUNCATE = path.join(PROGRAMS, 'truncate.js');
const WRAPPER = path.join(PROGRAMS, 'wrapper.js');
const BEHAVE = path.join(PROGRAMS, 'behave.js');
const HELLO = path.join(ROOT, 'examples', 'hello.js');
const node = process.execPath;

function helloCount(stdout: string): number {
  return stdout.split('\n').filter((l) => l.startsWith('Hello from rank')).length;
}

describe('tsmpiexec diagnostics', () => {
  it('on --timeout prints what each rank is blocked in, with peer, tag, size and communicator, then exits 124', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '--timeout', '3', node, STUCK], 25_000);
    assert.equal(r.status, 124, r.stderr);
    const err = r.stderr;
    assert.match(err, /tsmpiexec: job timed out after 3 s/);
    assert.match(err, /tsmpi: rank 0 \(pid \d+\): blocked in Intracomm\.Recv at .*stuck\.js:\d+:\d+\n/);
    assert.match(err, /tsmpi: rank 0 \(pid \d+\):   recv from rank 1, tag 42, 16-byte buffer, on MPI_COMM_WORLD: posted, no message matched yet/);
    assert.match(err, /tsmpi: rank 0 \(pid \d+\): 1 pending request, 0 unexpected messages/);
    assert.match(err, /tsmpi: rank 1 \(pid \d+\): not in a blocking call: awaiting 1 MPI operation/);
    assert.match(err, /tsmpi: rank 1 \(pid \d+\):   recv from rank 0, tag 7, 32-byte buffer, on MPI_COMM_WORLD: posted/);
    assert.ok(err.indexOf('job timed out') < err.indexOf('blocked in'), 'the reports come after the timeout line');
    // The reports come at once (the signal wakes the blocked rank), not after the 1 s wait.
    assert.ok(r.ms < 6_000, `took ${r.ms} ms`);
  });

  it('on SIGTERM to the launcher prints the reports, then stops the ranks with SIGTERM (exit 143)', { timeout: 30_000 }, async () => {
    let launcherPid = 0;
    let ready = 0;
    const r = await tsmpiexec(['-n', '2', node, STUCK], 25_000, {
      onSpawn: (child) => {
        launcherPid = child.pid!;
      },
      onStdout: (text) => {
        ready += (text.match(/ready/g) ?? []).length;
        if (ready === 2) {
          ready++;
          // Let rank 0 reach its Recv after printing.
          setTimeout(() => process.kill(launcherPid, 'SIGTERM'), 300);
        }
      },
    });
    assert.equal(r.status, 143, r.stderr);
    assert.match(r.stderr, /tsmpiexec: SIGTERM: stopping 2 running rank\(s\)/);
    assert.match(r.stderr, /rank 0 \(pid \d+\): blocked in Intracomm\.Recv/);
    assert.match(r.stderr, /rank 1 \(pid \d+\):   recv from rank 0, tag 7/);
  });

  it('says which ranks never reached MPI.Init instead of signalling them', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '--timeout', '2', node, '-e', 'setInterval(() => {}, 1000)'], 25_000);
    assert.equal(r.status, 124, r.stderr);
    assert.match(r.stderr, /tsmpiexec: rank 0 has not called MPI\.Init/);
    assert.match(r.stderr, /tsmpiexec: rank 1 has not called MPI\.Init/);
  });

  it('takes MPIEXEC_TIMEOUT as hydra does; --timeout wins over it', { timeout: 30_000 }, async () => {
    const env = { ...process.env, MPIEXEC_TIMEOUT: '2' };
    const r = await tsmpiexec(['-n', '2', node, BEHAVE, 'hang'], 25_000, { env });
    assert.equal(r.status, 124, r.stderr);
    assert.match(r.stderr, /job timed out after 2 s/);
    const w = await tsmpiexec(['-n', '1', '--timeout', '1', node, BEHAVE, 'hang'], 25_000, { env: { ...process.env, MPIEXEC_TIMEOUT: '100' } });
    assert.match(w.stderr, /job timed out after 1 s/);
  });

  it('names the user\'s file and line and both sizes when a receive truncates under ERRORS_ARE_FATAL', { timeout: 30_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', node, TRUNCATE], 25_000);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /fatal error \(MPI\.ERRORS_ARE_FATAL\): MPI_COMM_WORLD\.Recv: the message from rank 1 with tag 5 is longer than the receive buffer of 16 bytes \(message truncated: 19 bytes sent\) at .*truncate\.js:\d+:\d+/);
  });

  for (const mode of ['ipc', 'close', 'replace']) {
    it(`starts ranks through a wrapper that ${mode === 'ipc' ? 'puts an IPC channel at fd 3' : mode === 'close' ? 'closes the PMI fd' : 'puts its own socket at the PMI fd'}`, { timeout: 30_000 }, async () => {
      const r = await tsmpiexec(['-n', '2', node, WRAPPER, mode, node, HELLO], 25_000);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(helloCount(r.stdout), 2, r.stdout);
    });
  }

  it('starts ranks through npx tsx when tsx is installed', { timeout: 60_000 }, async (t) => {
    // npx --no-install finds tsx where npm would: installed beside tsmpi (or in a parent's node_modules).
    const require = createRequire(path.join(ROOT, 'package.json'));
    let resolvable = true;
    try {
      require.resolve('tsx/package.json');
    } catch {
      resolvable = false;
    }
    if (!resolvable || which('npx') === null) {
      t.skip('tsx is not installed beside tsmpi (npm install --no-save tsx to run this test)');
      return;
    }
    const dir = fs.mkdtempSync(path.join(ROOT, '.tsx-test-'));
    try {
      const app = path.join(dir, 'app.ts');
      const index = path.join(DIST, 'src', 'index.js');
      fs.writeFileSync(app, `import { MPI } from ${JSON.stringify(index)};\nMPI.Init();\nconst rank: number = MPI.COMM_WORLD.Get_rank();\n` +
        'console.log(`tsx rank ${rank}`);\nMPI.Finalize();\n');
      const r = await tsmpiexec(['-n', '2', 'npx', '--no-install', 'tsx', app], 50_000, { cwd: ROOT });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.stdout.split('\n').filter((l) => l.startsWith('tsx rank')).sort(), ['tsx rank 0', 'tsx rank 1']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('suggests node or npx tsx when the command is a script file', { timeout: 30_000 }, async () => {
    const js = await tsmpiexec(['-n', '2', 'app.js', '--size', '3'], 20_000);
    assert.equal(js.status, 127);
    assert.match(js.stderr, /"app\.js" is not a program on PATH: did you mean `tsmpiexec -n 2 node app\.js --size 3`\?/);
    const ts = await tsmpiexec(['-n2', HELLO.replace(/\.js$/, '.ts')], 20_000);
    assert.equal(ts.status, 127);
    assert.match(ts.stderr, /did you mean `tsmpiexec -n 2 npx tsx .*hello\.ts`\?/);
    const file = await tsmpiexec(['--np=3', HELLO], 20_000);
    assert.equal(file.status, 127);
    assert.match(file.stderr, /is a script file, not an executable program: did you mean `tsmpiexec -n 3 node .*hello\.js`\?/);
  });

  it('prints its version and Node\'s with --version', { timeout: 30_000 }, async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await tsmpiexec(['--version'], 20_000);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `tsmpiexec (tsmpi) ${pkg.version}\nnode ${process.version}\n`);
  });

  it('tags trace lines with the rank and traces matching, protocols and collective algorithms', { timeout: 30_000 }, async () => {
    const script = `import { MPI } from ${JSON.stringify(path.join(DIST, 'src', 'index.js'))};
MPI.Init();
const comm = MPI.COMM_WORLD;
if (comm.rank === 0) { comm.Send(new Uint8Array(100), 1, 3); comm.Send(new Uint8Array(300000), 1, 4); }
else { comm.Recv(new Uint8Array(100), 0, 3); comm.Recv(new Uint8Array(300000), 0, 4); }
comm.Bcast(new Uint8Array(8), 0);
comm.Bcast(new Uint8Array(4096), 0);
MPI.Finalize();`;
    const env = { ...process.env, DEBUG: 'tsmpi:*,-tsmpi:pmi:wire', DEBUG_COLORS: 'no' };
    const r = await tsmpiexec(['-n', '2', node, '--input-type=module', '-e', script], 25_000, { env });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => / tsmpi:/.test(l));
    assert.ok(lines.length > 0, r.stderr);
    for (const l of lines) assert.match(l, / tsmpi:[\w:]+ \[rank [01]\] /, `a trace line without its rank: ${l}`);
    assert.ok(!lines.some((l) => l.includes('tsmpi:pmi:wire')), 'excluded namespace printed');
    assert.match(r.stderr, /tsmpi:protocol \[rank 0\] send to world rank 1 \(ctx 0, tag 3\): 100 bytes by short over ch_shmem/);
    assert.match(r.stderr, /tsmpi:protocol \[rank 0\] send to world rank 1 \(ctx 0, tag 4\): 300000 bytes by rendezvous/);
    assert.match(r.stderr, /tsmpi:match \[rank 1\] (recv posted \(ctx 0, source 0, tag 3\)|eager message \(ctx 0, source 0, tag 3, 100 bytes\))/);
    assert.match(r.stderr, /tsmpi:coll \[rank [01]\] MPI_COMM_WORLD\.Bcast \(2 ranks, 8 bytes\): node_cells/);
    assert.match(r.stderr, /tsmpi:coll \[rank [01]\] MPI_COMM_WORLD\.Bcast \(2 ranks, 4096 bytes\): binomial/);
    const wire = await tsmpiexec(['-n', '1', node, HELLO], 25_000, { env: { ...env, DEBUG: 'tsmpi:pmi:wire' } });
    assert.match(wire.stderr, /tsmpi:pmi:wire \[rank 0\] -> cmd=barrier_in/);
    assert.match(wire.stderr, /tsmpi:pmi:wire \[rank 0\] -> cmd=barrier_out/, 'the launcher side names the rank too');
  });
});

