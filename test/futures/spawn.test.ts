// tsmpi/futures' spawn mode through the real launcher: a script started as one process
// (`tsmpiexec -n 1 node ...`) whose MPIPoolExecutors spawn their workers with
// MPI.COMM_SELF.Spawn. Every run must end with status 0 (the workers disconnected and finalized)
// and leave none of the workers' processes behind.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, type RunResult, processAlive, run, tsmpiexec } from '../helpers.js';

const LIMIT_MS = 60_000;
const PROGRAM = path.join('test', 'futures', 'programs', 'spawn.js');
const SCENARIOS = path.join('test', 'futures', 'programs', 'scenarios.js');
const MANDELBROT = path.join('examples', 'futures-mandelbrot.js');

function ok(r: RunResult, what: string): RunResult {
  assert.equal(r.status, 0, `${what} exited with ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

/** Runs a scenario of spawn.js alone under tsmpiexec; checks its ok line and that its workers are gone. */
async function spawnScenario(name: string): Promise<string> {
  const r = ok(await tsmpiexec(['-n', '1', process.execPath, PROGRAM, name], LIMIT_MS - 5_000, { cwd: ROOT }), name);
  const line = r.stdout.split('\n').find((l) => l.startsWith(`ok ${name}: `));
  assert.ok(line !== undefined, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const pids = (r.stdout.split('\n').find((l) => l.startsWith('pids ')) ?? '').slice(5).split(' ').filter((p) => p !== '').map(Number);
  assert.ok(pids.length > 0, `no worker pids in stdout:\n${r.stdout}`);
  const alive = pids.filter(processAlive);
  assert.deepEqual(alive, [], `workers still running after the job: ${alive.join(', ')}`);
  return line;
}

describe('tsmpi/futures: spawn mode (MPIPoolExecutor spawns its workers)', () => {
  it('1 parent, 3 workers: submit, map with chunksize in order, starmap, a task\'s error, env and wdir; shutdown ends them; ' +
    'then a second pool of 2 new workers', { timeout: LIMIT_MS }, async () => {
    await spawnScenario('pools');
  });

  it('a pool left running is stopped by the program\'s own MPI.Finalize, or by the end of the script', { timeout: LIMIT_MS }, async () => {
    await spawnScenario('own-finalize');
    await spawnScenario('no-shutdown');
  });

  it('started without a launcher (a singleton), MPIPoolExecutor raises MPI.ERR_SPAWN saying to use tsmpiexec -n 1',
    { timeout: LIMIT_MS }, async () => {
      const r = ok(await run(process.execPath, [PROGRAM, 'singleton'], LIMIT_MS - 5_000, { cwd: ROOT }), 'singleton');
      assert.match(r.stdout, /^ok singleton: MPI\.ERR_SPAWN/m);
    });

  for (const name of ['serial', 'errors', 'order'] as const) {
    it(`the running-job scenario ${name} in spawn mode (3 workers from TSMPI_FUTURES_MAX_WORKERS)`, { timeout: LIMIT_MS }, async () => {
      const r = ok(await tsmpiexec(['-n', '1', '-x', 'TSMPI_FUTURES_MAX_WORKERS=3', process.execPath, SCENARIOS, name],
        LIMIT_MS - 5_000, { cwd: ROOT }), name);
      const lines = r.stdout.split('\n').filter((l) => l.startsWith(`ok ${name}: `));
      assert.equal(lines.length, 1, r.stdout);
      if (name === 'serial') assert.match(lines[0]!, /3 of 3 workers ran tasks$/);
    });
  }

  it('a running-job start with no rank besides rank 0 (-n 1 --import tsmpi/futures) falls back to spawning', { timeout: LIMIT_MS }, async () => {
    const r = ok(await tsmpiexec(['-n', '1', '-x', 'TSMPI_FUTURES_MAX_WORKERS=2', process.execPath, '--import', 'tsmpi/futures', SCENARIOS, 'serial'],
      LIMIT_MS - 5_000, { cwd: ROOT }), 'serial -n 1');
    assert.match(r.stdout, /^ok serial: .* 2 of 2 workers ran tasks$/m);
  });

  it('examples/futures-mandelbrot.js gives the same image in running-job mode (4 ranks) and spawn mode (3 workers)',
    { timeout: LIMIT_MS }, async () => {
      const job = ok(await tsmpiexec(['-n', '4', process.execPath, '--import', 'tsmpi/futures', MANDELBROT], LIMIT_MS - 5_000, { cwd: ROOT }), 'job');
      const spawned = ok(await tsmpiexec(['-n', '1', '-x', 'TSMPI_FUTURES_MAX_WORKERS=3', process.execPath, MANDELBROT],
        LIMIT_MS - 5_000, { cwd: ROOT }), 'spawn');
      const line = (r: RunResult): string => r.stdout.split('\n').find((l) => l.startsWith('mandelbrot ')) ?? '';
      assert.match(line(job), /checksum \d+/);
      assert.equal(line(spawned), line(job));
      assert.match(job.stderr, /on 3 workers/);
      assert.match(spawned.stderr, /on 3 workers/);
    });
});
