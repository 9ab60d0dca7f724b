// Spawn mode's test program (test/futures/spawn.test.ts): started as a single process, by
// `tsmpiexec -n 1 node spawn.js <scenario>` (or by plain `node spawn.js singleton`), it makes
// MPIPoolExecutors that spawn their workers. It asserts, prints `ok <scenario>: ...` lines and
// `pids <list>` (the workers' process ids, which the test checks are gone after the job).
import assert from 'node:assert/strict';
import os from 'node:os';
import { MPI } from 'tsmpi';
import { MPIPoolExecutor, TaskError } from 'tsmpi/futures';

const scenario = process.argv[2];
const workerPids = new Set();

/** The pids of an executor's workers: enough slow tasks that each worker takes some. */
async function pidsOf(executor) {
  const pids = await executor.map(async () => {
    await new Promise((r) => setTimeout(r, 30));
    return process.pid;
  }, Array.from({ length: 4 * executor.num_workers }, () => 0));
  for (const p of pids) workerPids.add(p);
  return new Set(pids);
}

const scenarios = {
  async pools() {
    // The first pool: 3 workers, with env and wdir for them.
    const wdir = os.tmpdir();
    const a = new MPIPoolExecutor({ max_workers: 3, env: { FUTURES_SPAWN_COLOR: 'green' }, wdir });
    assert.equal(a.num_workers, 3);
    assert.equal(await a.submit((x, y) => x ** y, 2, 10), 1024);
    const xs = Array.from({ length: 200 }, (_, i) => i);
    assert.deepEqual(await a.map((x) => x * x, xs, { chunksize: 7 }), xs.map((x) => x * x));
    // Later items finish first; map still yields in argument order.
    const delays = [300, 150, 50, 10];
    const inOrder = [];
    for await (const v of a.map((ms) => new Promise((r) => setTimeout(() => r(ms), ms)), delays)) inOrder.push(v);
    assert.deepEqual(inOrder, delays);
    assert.deepEqual(await a.starmap((p, q) => p - q, [[5, 1], [7, 2], [9, 3]], { chunksize: 2 }), [4, 5, 6]);
    // A task's exception reaches its future; the worker goes on serving.
    const failing = a.submit((x) => { throw new RangeError(`bad ${x}`); }, 7);
    await assert.rejects(failing, (e) => e instanceof TaskError && e.name === 'RangeError' && /bad 7/.test(e.message));
    assert.equal(await a.submit(() => 'still serving'), 'still serving');
    assert.deepEqual(await a.submit(() => [process.env.FUTURES_SPAWN_COLOR, process.cwd()]), ['green', wdir]);
    const first = await pidsOf(a);
    assert.equal(first.size, 3, `3 workers, got pids ${[...first]}`);
    assert.ok(!first.has(process.pid), 'a task ran in the parent');
    await a.shutdown();
    assert.throws(() => a.submit(() => 1), (e) => e instanceof MPI.Exception && e.Get_error_class() === MPI.ERR_OTHER);

    // A second pool after the first one, in the same parent: new workers.
    const b = new MPIPoolExecutor(2);
    assert.deepEqual(await b.map((x) => x + 1, [1, 2, 3]), [2, 3, 4]);
    assert.equal(await b.submit(() => process.env.FUTURES_SPAWN_COLOR ?? 'unset'), 'unset');
    const second = await pidsOf(b);
    assert.equal(second.size, 2);
    assert.ok([...second].every((p) => !first.has(p)), 'the second pool has workers of its own');
    await b.shutdown();
    console.log('ok pools: 3 workers (submit, map chunksize 7 in order, starmap, a task\'s error, env, wdir), then 2 new workers');
  },

  // No shutdown, and MPI.Init/MPI.Finalize of the program's own: Finalize stops the workers first.
  async 'own-finalize'() {
    MPI.Init();
    const ex = new MPIPoolExecutor(2);
    assert.equal(await ex.submit((x) => x * 2, 21), 42);
    await pidsOf(ex);
    MPI.Finalize();
    console.log('ok own-finalize: the program\'s MPI.Finalize stopped a pool left running');
  },

  // No shutdown and no MPI calls: the end of the process stops the workers and finalizes MPI.
  async 'no-shutdown'() {
    const ex = new MPIPoolExecutor(1);
    assert.equal(await ex.submit(() => 'x'), 'x');
    await pidsOf(ex);
    console.log('ok no-shutdown: the end of the script stopped the workers');
  },

  // A process started without a launcher is a singleton: it cannot spawn.
  async singleton() {
    assert.throws(() => new MPIPoolExecutor(2), (e) => {
      assert.ok(e instanceof MPI.Exception, String(e));
      assert.equal(e.Get_error_class(), MPI.ERR_SPAWN, e.message);
      assert.match(e.message, /tsmpiexec -n 1/);
      return true;
    });
    console.log('ok singleton: MPI.ERR_SPAWN, start it with tsmpiexec -n 1');
  },
};

const run = scenarios[scenario];
if (run === undefined) throw new Error(`no scenario ${scenario}; known: ${Object.keys(scenarios).join(', ')}`);
await run();
console.log(`pids ${[...workerPids].join(' ')}`);
