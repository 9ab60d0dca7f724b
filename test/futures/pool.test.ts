// tsmpi/futures through the real launcher: `tsmpiexec -n N node --import tsmpi/futures
// programs/scenarios.js <scenario>` with 2 to 5 ranks. Rank 0 runs the scenario against
// MPIPoolExecutor (it asserts, and prints `ok <scenario>: ...`), the other ranks are the pool's
// workers; every job must end with status 0, which needs every rank to have finished cleanly.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, type RunResult, tsmpiexec } from '../helpers.js';

const LIMIT_MS = 60_000;
const PROGRAM = path.join('test', 'futures', 'programs', 'scenarios.js');

async function scenario(name: string, n: number, nodeFlags: readonly string[] = ['--import', 'tsmpi/futures']): Promise<RunResult> {
  const r = await tsmpiexec(['-n', String(n), process.execPath, ...nodeFlags, PROGRAM, name], LIMIT_MS - 5_000, { cwd: ROOT });
  assert.equal(r.status, 0, `${name} -n ${n} exited with ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

/** The `ok` lines printed (workers print nothing: only rank 0 runs the script). */
function okLines(r: RunResult, name: string): string[] {
  const ok = r.stdout.split('\n').filter((l) => l.startsWith('ok '));
  assert.ok(ok.length > 0 && ok.every((l) => l.startsWith(`ok ${name}: `)), `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return ok;
}

describe('tsmpi/futures: MPIPoolExecutor over the ranks of a running job', () => {
  for (const n of [2, 3, 5]) {
    it(`results of submit and map (chunked, zipped, async, objects) equal a serial computation; every worker serves (${n} ranks)`,
      { timeout: LIMIT_MS }, async () => {
        const [line] = okLines(await scenario('serial', n), 'serial');
        assert.match(line!, new RegExp(`${n - 1} of ${n - 1} workers ran tasks$`));
      });
  }

  it('map yields in argument order; unordered in completion order; timeout raises TimeoutError (5 ranks)', { timeout: LIMIT_MS }, async () => {
    const [line] = okLines(await scenario('order', 5), 'order');
    assert.equal(line, 'ok order: map in argument order 600,400,200,10; unordered 10,200,400,600; timeout raised TimeoutError');
  });

  for (const n of [2, 4]) {
    it(`a task's error rejects its future with name, message and stack; the workers keep serving (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      const [line] = okLines(await scenario('errors', n), 'errors');
      assert.match(line!, /from worker rank [1-9]/);
    });
  }

  it('module-reference tasks: <url>#export, relative path, default export, node: modules; missing ones rejected (3 ranks)',
    { timeout: LIMIT_MS }, async () => {
      okLines(await scenario('modules', 3), 'modules');
    });

  for (const n of [2, 5]) {
    it(`many tasks in flight at once (${n} ranks)`, { timeout: LIMIT_MS }, async () => {
      okLines(await scenario('many', n), 'many');
    });
  }

  it('bad input raises MPI.Exception naming the argument; submit after shutdown; cancel_futures (3 ranks)', { timeout: LIMIT_MS }, async () => {
    okLines(await scenario('bad-input', 3), 'bad-input');
  });

  it('the job ends with status 0 when the script uses MPI.Init/MPI.Finalize itself, or ends with process.exit (3 ranks)',
    { timeout: LIMIT_MS }, async () => {
      okLines(await scenario('with-init', 3), 'with-init');
      okLines(await scenario('exit-early', 3), 'exit-early');
    });

  it('a script that fails ends the job at once with its error, though a worker is busy (3 ranks)', { timeout: LIMIT_MS }, async () => {
    const r = await tsmpiexec(['-n', '3', process.execPath, '--import', 'tsmpi/futures', PROGRAM, 'fails'], LIMIT_MS - 5_000, { cwd: ROOT });
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, /the script failed on purpose/);
    assert.ok(r.ms < 20_000, `the job took ${r.ms} ms: it waited for the busy worker`);
  });

  it('NODE_OPTIONS=--import tsmpi/futures (given to the ranks with -x) starts the pool as the flag does (3 ranks)', { timeout: LIMIT_MS }, async () => {
    const r = await tsmpiexec(['-n', '3', '-x', 'NODE_OPTIONS=--import tsmpi/futures', process.execPath, PROGRAM, 'serial'],
      LIMIT_MS - 5_000, { cwd: ROOT });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.match(okLines(r, 'serial')[0]!, /2 of 2 workers ran tasks$/);
  });

  for (const [n, root] of [[2, 0], [4, 2]] as const) {
    it(`MPICommExecutor in a program started the usual way: root ${root} computes, the others serve until its shutdown (${n} ranks)`,
      { timeout: LIMIT_MS }, async () => {
        const r = await tsmpiexec(['-n', String(n), process.execPath, path.join('test', 'futures', 'programs', 'comm-executor.js'), String(root)],
          LIMIT_MS - 5_000, { cwd: ROOT });
        assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        const got = r.stdout.split('\n').filter((l) => l.startsWith('ok ')).sort();
        const want = [`ok root ${root}: 100 results right on ${n - 1} workers`];
        for (let rank = 0; rank < n; rank++) if (rank !== root) want.push(`ok worker ${rank}`);
        assert.deepEqual(got, want.sort());
      });
  }
});
