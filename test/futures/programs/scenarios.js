// The futures tests' program: `tsmpiexec -n N node --import tsmpi/futures scenarios.js <scenario>`
// (running-job mode), or `tsmpiexec -n 1 node scenarios.js <scenario>` (spawn mode). Rank 0 runs
// one scenario against MPIPoolExecutor and prints `ok <scenario>: <facts>` lines that
// test/futures/pool.test.ts checks; any failed check throws, and the job's exit status says so.
import assert from 'node:assert/strict';
import { MPI } from 'tsmpi';
import { CancelledError, MPIPoolExecutor, TimeoutError } from 'tsmpi/futures';

const scenario = process.argv[2];
const TASKS = new URL('./tasks.js', import.meta.url);

/** The number of Collatz steps from x down to 1: uneven work per item. */
function collatz(x) {
  let steps = 0;
  for (let n = x; n !== 1; steps++) n = n % 2 === 0 ? n / 2 : 3 * n + 1;
  return steps;
}

const sleep = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms));

function raisesMPI(fn, errorClass, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof MPI.Exception, `not an MPI.Exception: ${e}`);
    assert.equal(e.Get_error_class(), errorClass, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

const scenarios = {
  async serial(executor) {
    const xs = Array.from({ length: 300 }, (_, i) => i + 1);
    const serial = xs.map(collatz);
    const submitted = await Promise.all(xs.map((x) => executor.submit(collatz, x)));
    assert.deepEqual(submitted, serial);
    const mapped = await executor.map(collatz, xs);
    assert.deepEqual(mapped, serial);
    const chunked = await executor.map(collatz, xs, { chunksize: 7 });
    assert.deepEqual(chunked, serial);
    const zipped = await executor.map((a, b) => a * b, [1, 2, 3, 4], [10, 20, 30]);
    assert.deepEqual(zipped, [10, 40, 90]);
    const starred = await executor.starmap((a, b) => a - b, [[5, 1], [7, 2], new Set([9, 3])], { chunksize: 2 });
    assert.deepEqual(starred, [4, 5, 6]);
    assert.equal(executor.bootup(), executor);
    // Async tasks, typed arrays and plain objects travel as structured clones.
    const obj = await executor.submit(async (o) => ({ sum: o.values.reduce((s, v) => s + v, 0), tag: o.tag }),
      { values: Float64Array.of(1.5, 2.5), tag: 'x' });
    assert.deepEqual(obj, { sum: 4, tag: 'x' });
    const pids = new Set(await executor.map(async () => { await new Promise((r) => setTimeout(r, 20)); return process.pid; },
      Array.from({ length: 8 * executor.num_workers }, () => 0)));
    assert.ok(!pids.has(process.pid), 'a task ran on the master');
    console.log(`ok serial: ${xs.length} results equal the serial computation (submit, map, chunksize 7, starmap); ` +
      `${pids.size} of ${executor.num_workers} workers ran tasks`);
  },

  async order(executor) {
    // Earlier items take longer: in order they still come first; unordered they come last.
    const delays = [600, 400, 200, 10];
    const ordered = [];
    for await (const v of executor.map(sleep, delays, delays)) ordered.push(v);
    assert.deepEqual(ordered, delays);
    const unordered = [];
    for await (const v of executor.map(sleep, delays, delays, { unordered: true })) unordered.push(v);
    assert.deepEqual([...unordered].sort((a, b) => a - b), [...delays].sort((a, b) => a - b));
    if (executor.num_workers >= delays.length) assert.deepEqual(unordered, [...delays].reverse());
    const chunks = await executor.map((x) => x * 2, Array.from({ length: 10 }, (_, i) => i), { chunksize: 3, unordered: true });
    assert.deepEqual([...chunks].sort((a, b) => a - b), Array.from({ length: 10 }, (_, i) => 2 * i));
    await assert.rejects(async () => {
      for await (const v of executor.map(sleep, [500], [1], { timeout: 0.05 })) assert.fail(`got ${v}`);
    }, TimeoutError);
    console.log(`ok order: map in argument order ${ordered.join(',')}; unordered ${unordered.join(',')}; timeout raised TimeoutError`);
  },

  async errors(executor) {
    const bad = executor.submit(function fails(x) { throw new RangeError(`no good: ${x}`); }, 7);
    await assert.rejects(bad, (e) => {
      assert.equal(e.name, 'RangeError');
      assert.equal(e.message, 'no good: 7');
      assert.match(e.stack, /RangeError: no good: 7\n\s+at fails/);
      // The worker's rank in the pool: 1.. in running-job mode (rank 0 is the master), 0.. among
      // spawned workers (the remote group of the intercommunicator).
      const lowest = MPI.Is_initialized() && MPI.Comm.Get_parent() === MPI.COMM_NULL && MPI.COMM_WORLD.size === 1 ? 0 : 1;
      assert.ok(Number.isInteger(e.rank) && e.rank >= lowest && e.rank < lowest + executor.num_workers, `rank ${e.rank}`);
      return true;
    });
    assert.equal(bad.done(), true);
    assert.equal(bad.exception().message, 'no good: 7');
    assert.throws(() => bad.result(), /no good: 7/);
    const thrownString = executor.submit(() => { throw 'plain string'; });
    await assert.rejects(thrownString, /plain string/);
    const captured = 5;
    await assert.rejects(executor.submit((x) => x + captured, 1), /captured is not defined/);
    await assert.rejects(executor.submit(() => () => 1), /cannot be sent back/);
    // The workers keep serving after errors: every one of many tasks succeeds.
    const after = await executor.map((x) => x + 1, Array.from({ length: 50 }, (_, i) => i));
    assert.equal(after.reduce((s, v) => s + v, 0), (50 * 51) / 2);
    // A failed item ends the iteration of map at its place, after the values before it.
    const seen = [];
    await assert.rejects(async () => {
      for await (const v of executor.map((x) => { if (x === 3) throw new Error('item 3'); return x; }, [0, 1, 2, 3, 4])) seen.push(v);
    }, /item 3/);
    assert.deepEqual(seen, [0, 1, 2]);
    console.log(`ok errors: the task's RangeError with its message and stack from worker rank ${bad.exception().rank}; ` +
      'workers kept serving; map stopped at the failed item');
  },

  async modules(executor) {
    assert.equal(await executor.submit(`${TASKS.href}#cube`, 3), 27);
    assert.deepEqual(await executor.map(`${TASKS.href}#cube`, [1, 2, 3, 4]), [1, 8, 27, 64]);
    assert.equal(await executor.submit('./test/futures/programs/tasks.js#cube', 5), 125);
    assert.equal(await executor.submit(TASKS, 'x'), 'default export saw "x"');
    assert.equal(await executor.submit(`${TASKS.href}#later`, 30, 'slow'), 'slow');
    assert.equal(await executor.submit('node:path#basename', '/a/b/c.txt'), 'c.txt');
    await assert.rejects(executor.submit(`${TASKS.href}#notAFunction`), /no function export "notAFunction"/);
    await assert.rejects(executor.submit(`${TASKS.href}#missing`), /no function export "missing"/);
    await assert.rejects(executor.submit('./no/such/module.js#f'), /Cannot find module|ERR_MODULE_NOT_FOUND/);
    console.log('ok modules: module#export, relative path, URL default export, node:path; missing exports and modules rejected');
  },

  async many(executor) {
    const n = 3000;
    const futures = Array.from({ length: n }, (_, i) => executor.submit((x) => x * 3, i));
    const values = await Promise.all(futures);
    assert.equal(values.reduce((s, v) => s + v, 0), 3 * (n * (n - 1)) / 2);
    assert.ok(futures.every((f) => f.done() && !f.cancelled()));
    const mapped = await executor.map((x) => -x, Array.from({ length: n }, (_, i) => i), { chunksize: 50 });
    assert.equal(mapped.length, n);
    // Two more executors at once share the workers; one of them keeps at most one task out.
    const narrow = new MPIPoolExecutor({ max_workers: 1 });
    const wide = new MPIPoolExecutor();
    const [a, b] = await Promise.all([
      narrow.map((x) => x + 1, Array.from({ length: 200 }, (_, i) => i)),
      wide.map((x) => x - 1, Array.from({ length: 200 }, (_, i) => i)),
    ]);
    assert.deepEqual(a, Array.from({ length: 200 }, (_, i) => i + 1));
    assert.deepEqual(b, Array.from({ length: 200 }, (_, i) => i - 1));
    await Promise.all([narrow.shutdown(), wide.shutdown()]);
    console.log(`ok many: ${n} tasks in flight at once, all results right; ${n} more in chunks of 50; ` +
      'three executors sharing the workers');
  },

  async 'bad-input'(executor) {
    raisesMPI(() => executor.submit(42), MPI.ERR_ARG, /submit: fn must be a function or a '<module>#<export>' string, got number 42/);
    raisesMPI(() => executor.submit(Math.sqrt, 4), MPI.ERR_ARG, /fn is a built-in or bound function \(sqrt\)/);
    raisesMPI(() => executor.submit((f) => f, () => 1), MPI.ERR_ARG, /submit: the arguments cannot be sent/);
    raisesMPI(() => executor.submit(''), MPI.ERR_ARG, /submit: fn "" names no module/);
    raisesMPI(() => executor.submit('./tasks.js#1x'), MPI.ERR_ARG, /export name "1x" is not an identifier/);
    raisesMPI(() => executor.map((x) => x, [1], { chunksize: 0 }), MPI.ERR_ARG, /map: chunksize must be an integer of at least 1, got number 0/);
    raisesMPI(() => executor.map((x) => x, [1], { chunksize: 1.5 }), MPI.ERR_ARG, /chunksize/);
    raisesMPI(() => executor.map((x) => x, [1], { unordered: 'yes' }), MPI.ERR_ARG, /unordered must be a boolean/);
    raisesMPI(() => executor.map((x) => x, [1], { timeout: -1 }), MPI.ERR_ARG, /timeout must be/);
    raisesMPI(() => executor.map((x) => x, [1], { chunk: 2 }), MPI.ERR_ARG, /unknown option "chunk"/);
    raisesMPI(() => executor.map((x) => x, 5), MPI.ERR_ARG, /the last argument must be an iterable or the options|iterables\[0\] must be iterable/);
    raisesMPI(() => executor.map((x) => x), MPI.ERR_ARG, /at least one iterable/);
    raisesMPI(() => executor.starmap((x) => x, [[1], 2]), MPI.ERR_ARG, /starmap: iterable\[1\] must be an iterable of arguments, got number 2/);
    raisesMPI(() => executor.starmap((x) => x, [[1]], { chunksize: -1 }), MPI.ERR_ARG, /starmap: chunksize must be/);
    raisesMPI(() => new MPIPoolExecutor({ max_workers: 0 }), MPI.ERR_ARG, /max_workers must be a positive integer/);
    raisesMPI(() => new MPIPoolExecutor({ workers: 2 }), MPI.ERR_ARG, /unknown option "workers"/);
    await assert.rejects(executor.shutdown('no'), /wait must be a boolean/);
    // cancel_futures: with one task at a time, the queued ones are cancelled, the running one finishes.
    const one = new MPIPoolExecutor({ max_workers: 1 });
    const slow = Array.from({ length: 4 }, (_, i) => one.submit(sleep, 100, i));
    await one.shutdown(true, true);
    assert.equal(await slow[0], 0);
    assert.deepEqual(slow.slice(1).map((f) => f.cancelled()), [true, true, true]);
    await assert.rejects(slow[1], CancelledError);
    raisesMPI(() => one.submit((x) => x, 1), MPI.ERR_OTHER, /submit: cannot schedule new tasks after shutdown/);
    raisesMPI(() => one.map((x) => x, [1]), MPI.ERR_OTHER, /map: cannot schedule new tasks after shutdown/);
    console.log('ok bad-input: bad fn, args, chunksize, options and max_workers raise MPI.ERR_ARG naming them; ' +
      'submit after shutdown raises MPI.ERR_OTHER; cancel_futures cancelled 3 queued tasks');
  },

  async 'with-init'(executor) {
    // The script may use MPI itself: the pool runs in a Session of its own.
    MPI.Init();
    assert.equal(MPI.COMM_WORLD.size, 1 + executor.num_workers);
    const v = await executor.submit((x) => x + 1, 41);
    MPI.Finalize();
    console.log(`ok with-init: MPI.Init and MPI.Finalize in the script; result ${v}`);
  },

  async fails(executor) {
    // A worker is busy for 30 s when the script fails: the job must end now, not then.
    executor.submit(sleep, 30_000, 0);
    await sleep(200);
    throw new Error('the script failed on purpose');
  },

  async 'exit-early'(executor) {
    const v = await executor.submit((x) => x * 2, 21);
    console.log(`ok exit-early: result ${v}, then process.exit(0) without shutdown`);
    process.exit(0);
  },
};

const run = scenarios[scenario];
if (run === undefined) throw new Error(`no scenario ${scenario}; known: ${Object.keys(scenarios).join(', ')}`);
const executor = new MPIPoolExecutor();
await run(executor);
await executor.shutdown();
