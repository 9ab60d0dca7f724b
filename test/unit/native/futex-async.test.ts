// futexWaitAsync: the wait sleeps on a native thread while the event loop runs on; a wake from
// another process settles the promise; a pending wait keeps the process alive and an idle pool
// does not; waiter threads are reused; Worker teardown and process.exit are safe.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { addon } from '../../../src/native/addon.js';
import { Child, ownThreadIds, runChild, sleeperTids, sleepersOn, until, uniqueName } from './helpers.js';

/** A child that maps `name`, sets cells[index] = 1 and wakes it; prints how many woke. */
function waker(name: string, from: number, count: number): Promise<string> {
  return runChild(
    `const cells = new Int32Array(addon.shmOpen(${JSON.stringify(name)}));
     let woken = 0;
     for (let i = ${from}; i < ${from + count}; i++) {
       Atomics.store(cells, i, 1);
       woken += addon.futexWake(cells, i, 1);
     }
     console.log(woken);`,
    15_000,
  ).then((r) => {
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  });
}

describe('futexWaitAsync', { timeout: 120_000 }, () => {
  test('settles after a wake from another process while the event loop keeps running', { timeout: 20_000 }, async () => {
    const name = uniqueName('afutex-wake');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const cells = new Int32Array(addon.shmCreate(name, 4096));
      const address = addon.addressOf(cells);
      const result = addon.futexWaitAsync(cells, 0, 0, 15_000);
      await until(() => sleepersOn(process.pid, [address]) === 1, 5_000, 'a waiter thread asleep on the cell');
      const before = ticks;
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(ticks - before >= 5, `the event loop ran only ${ticks - before} ticks in 100 ms`);
      assert.equal(await waker(name, 0, 1), '1', 'the waiter thread was the one woken');
      assert.equal(await result, 'ok');
    } finally {
      clearInterval(ticker);
      addon.shmUnlink(name);
    }
  });

  test("settles 'not-equal' and 'timed-out' (within bounds) without a wake", { timeout: 10_000 }, async () => {
    const cells = new Int32Array(new SharedArrayBuffer(8));
    cells[1] = 3;
    assert.equal(await addon.futexWaitAsync(cells, 1, 2, 1000), 'not-equal');
    assert.equal(await addon.futexWaitAsync(cells, 1, 3, 0), 'timed-out');
    for (const ms of [20, 250]) {
      const start = process.hrtime.bigint();
      assert.equal(await addon.futexWaitAsync(cells, 0, 0, ms), 'timed-out');
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      assert.ok(elapsed >= ms - 1 && elapsed < ms + 500, `waited ${elapsed} ms for ${ms}`);
    }
  });

  test('50 concurrent waits, woken from another process, all settle', { timeout: 30_000 }, async () => {
    const name = uniqueName('afutex-many');
    const n = 50;
    try {
      const cells = new Int32Array(addon.shmCreate(name, 4096));
      const base = addon.addressOf(cells);
      const addresses = Array.from({ length: n }, (_, i) => base + 4 * i);
      const results = Array.from({ length: n }, (_, i) => addon.futexWaitAsync(cells, i, 0, 20_000));
      await until(() => sleepersOn(process.pid, addresses) === n, 10_000, `${n} waiter threads asleep`);
      assert.ok(addon.futexWaiterThreads() >= n, 'one thread per pending wait');
      assert.equal(await waker(name, 0, n), String(n));
      assert.deepEqual(await Promise.all(results), Array(n).fill('ok'));
      // Idle threads beyond a handful end: the pool shrinks back.
      await until(() => addon.futexWaiterThreads() <= 4, 5_000, 'the pool to shrink to at most 4 idle threads');
    } finally {
      addon.shmUnlink(name);
    }
  });

  test('a wait reuses an idle waiter thread instead of starting one', { timeout: 15_000 }, async () => {
    const cells = new Int32Array(new SharedArrayBuffer(8));
    const address = addon.addressOf(cells);
    assert.equal(await addon.futexWaitAsync(cells, 0, 0, 1), 'timed-out'); // at least one thread now
    const existing = new Set(ownThreadIds());
    for (let i = 0; i < 10; i++) {
      const result = addon.futexWaitAsync(cells, 0, 0, 10_000);
      await until(() => sleepersOn(process.pid, [address]) === 1, 5_000, 'the waiter asleep');
      const [tid] = sleeperTids(process.pid, [address]);
      assert.ok(existing.has(tid!), `wait ${i} runs on thread ${tid}, which did not exist before`);
      assert.equal(addon.futexWake(cells, 0, 1), 1);
      assert.equal(await result, 'ok');
    }
  });

  test('a pending wait keeps the process alive; once settled, idle threads do not', { timeout: 20_000 }, async () => {
    const name = uniqueName('afutex-alive');
    let child: Child | undefined;
    try {
      addon.shmCreate(name, 4096);
      child = new Child(
        `const cells = new Int32Array(addon.shmOpen(${JSON.stringify(name)}));
         console.log(addon.addressOf(cells));
         addon.futexWaitAsync(cells, 0, 0, -1).then((r) => console.log('settled', r));`,
        15_000,
      );
      const address = Number(await child.line());
      await until(() => sleepersOn(child!.process.pid!, [address]) === 1, 5_000, 'the child waiter asleep');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(child.process.exitCode, null, 'nothing but the wait holds the child, and it is still running');
      const start = Date.now();
      assert.equal(await waker(name, 0, 1), '1');
      assert.equal(await child.line(), 'settled ok');
      const { status } = await child.exited;
      assert.equal(status, 0);
      assert.ok(Date.now() - start < 5_000, 'the child exits promptly with an idle waiter thread');
    } finally {
      child?.kill();
      addon.shmUnlink(name);
    }
  });

  test('process.exit with a wait pending exits at once', { timeout: 15_000 }, async () => {
    const r = await runChild(
      `const cells = new Int32Array(new SharedArrayBuffer(8));
       addon.futexWaitAsync(cells, 0, 0, -1);
       addon.futexWaitAsync(cells, 1, 0, -1);
       setTimeout(() => process.exit(7), 100);`,
      10_000,
    );
    assert.equal(r.status, 7, r.stderr);
  });

  test('terminating a Worker with waits pending is safe, and waits still work after', { timeout: 20_000 }, async () => {
    const r = await runChild(
      `import { Worker } from 'node:worker_threads';
       const shared = new SharedArrayBuffer(64);
       const cells = new Int32Array(shared);
       // Dynamic imports only: eval'd Worker code is a module or a script depending on flags.
       const source = \`(async () => {
         const { workerData, parentPort } = await import('node:worker_threads');
         const { addon } = await import(workerData.url);
         const cells = new Int32Array(workerData.shared);
         addon.futexWaitAsync(cells, 0, 0, -1);
         addon.futexWaitAsync(cells, 1, 0, 60000);
         parentPort.postMessage(addon.futexWaiterThreads());
       })();\`;
       for (let round = 0; round < 3; round++) {
         const worker = new Worker(source, { eval: true, workerData: { url: ${JSON.stringify(new URL('../../../src/native/addon.js', import.meta.url).href)}, shared } });
         const threads = await new Promise((resolve) => worker.once('message', resolve));
         if (threads < 1) throw new Error('worker has no waiter thread');
         await worker.terminate();
       }
       console.log(Atomics.load(cells, 0), await addon.futexWaitAsync(cells, 2, 0, 10));`,
      15_000,
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '0 timed-out');
  });

  test('argument errors throw synchronously', { timeout: 5_000 }, () => {
    assert.throws(() => addon.futexWaitAsync(new Int32Array(2), 0, 0, 0), TypeError);
    assert.throws(() => addon.futexWaitAsync(new Int32Array(new SharedArrayBuffer(8)), 2, 0, 0), RangeError);
  });
});
