// futexWait / futexWake: a process sleeping on a cell of a shared segment is woken by another
// process; 'not-equal' and 'timed-out' mean what they say; arguments are checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { addon } from '../../../src/native/addon.js';
import { Child, asleepOn, until, uniqueName } from './helpers.js';

/** A child that maps `name`, prints the address of cell `index`, then waits on it. */
function sleeper(name: string, index: number, timeoutMs: number): Child {
  return new Child(
    `const cells = new Int32Array(addon.shmOpen(${JSON.stringify(name)}));
     console.log(addon.addressOf(cells) + 4 * ${index});
     const result = addon.futexWait(cells, ${index}, 0, ${timeoutMs});
     console.log(result, Atomics.load(cells, ${index}));`,
    20_000,
  );
}

describe('futex (synchronous)', { timeout: 60_000 }, () => {
  test('a process asleep on a shared cell is woken by another process', { timeout: 20_000 }, async () => {
    const name = uniqueName('futex-wake');
    const children: Child[] = [];
    try {
      const cells = new Int32Array(addon.shmCreate(name, 4096));
      for (const timeout of [-1, Infinity, 15_000]) {
        const child = sleeper(name, 3, timeout);
        children.push(child);
        const address = Number(await child.line());
        await until(() => asleepOn(child.process.pid!, address), 10_000, 'the child to sleep on the cell');
        Atomics.store(cells, 3, 7);
        assert.equal(addon.futexWake(cells, 3, 1), 1, 'exactly the child was asleep there');
        assert.equal(await child.line(), 'ok 7');
        assert.equal((await child.exited).status, 0);
        Atomics.store(cells, 3, 0);
      }
    } finally {
      for (const child of children) child.kill();
      addon.shmUnlink(name);
    }
  });

  test('futexWake(count) wakes at most count waiters; Infinity wakes all', { timeout: 20_000 }, async () => {
    const name = uniqueName('futex-count');
    const children: Child[] = [];
    try {
      const cells = new Int32Array(addon.shmCreate(name, 4096));
      for (let i = 0; i < 3; i++) children.push(sleeper(name, 0, 15_000));
      // Each process maps the segment at its own address.
      const addresses = await Promise.all(children.map(async (c) => Number(await c.line())));
      await until(() => children.every((c, i) => asleepOn(c.process.pid!, addresses[i]!)), 10_000, 'three sleepers');
      assert.equal(addon.futexWake(cells, 0, 0), 0);
      assert.equal(addon.futexWake(cells, 0, 1), 1);
      assert.equal(addon.futexWake(cells, 0, Infinity), 2);
      for (const child of children) {
        assert.equal(await child.line(), 'ok 0', 'woken while the value is unchanged: a bare ok');
      }
      assert.equal(addon.futexWake(cells, 0, Infinity), 0, 'nobody left');
    } finally {
      for (const child of children) child.kill();
      addon.shmUnlink(name);
    }
  });

  test("'not-equal' when the cell holds another value, compared after ToInt32", { timeout: 5_000 }, () => {
    const cells = new Int32Array(new SharedArrayBuffer(16));
    cells[1] = 5;
    assert.equal(addon.futexWait(cells, 1, 4, 1000), 'not-equal');
    assert.equal(addon.futexWait(cells, 1, 5 + 2 ** 32, 0), 'timed-out', '5 + 2^32 is 5 as an int32');
    cells[2] = -1;
    assert.equal(addon.futexWait(cells, 2, 0xffffffff, 0), 'timed-out', '0xffffffff is -1 as an int32');
    assert.equal(addon.futexWait(cells, 2, 1, -1), 'not-equal');
  });

  test("'timed-out' after the timeout, not much later", { timeout: 10_000 }, () => {
    const cells = new Int32Array(new SharedArrayBuffer(8));
    for (const ms of [0, 30, 200]) {
      const start = process.hrtime.bigint();
      assert.equal(addon.futexWait(cells, 0, 0, ms), 'timed-out');
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      assert.ok(elapsed >= ms - 1, `waited ${elapsed} ms for a ${ms} ms timeout`);
      assert.ok(elapsed < ms + 500, `waited ${elapsed} ms for a ${ms} ms timeout`);
    }
  });

  test('a wait stays asleep through signals and still honours its timeout', { timeout: 15_000 }, async () => {
    const child = new Child(
      `process.on('SIGUSR2', () => {});
       const cells = new Int32Array(new SharedArrayBuffer(8));
       console.log(addon.addressOf(cells));
       const start = Date.now();
       const result = addon.futexWait(cells, 0, 0, 600);
       console.log(result, Date.now() - start);`,
      10_000,
    );
    try {
      const address = Number(await child.line());
      await until(() => asleepOn(child.process.pid!, address), 5_000, 'the child to sleep');
      for (let i = 0; i < 5; i++) {
        child.process.kill('SIGUSR2');
        await new Promise((r) => setTimeout(r, 50));
      }
      const [result, ms] = (await child.line()).split(' ');
      assert.equal(result, 'timed-out');
      assert.ok(Number(ms) >= 599 && Number(ms) < 1500, `waited ${ms} ms for 600`);
    } finally {
      child.kill();
    }
  });

  test('cells must be an Int32Array over a SharedArrayBuffer, index in range', { timeout: 5_000 }, () => {
    const shared = new SharedArrayBuffer(16);
    const typeErrors: unknown[] = [
      new Int32Array(4),
      new Uint32Array(shared),
      new Float64Array(shared),
      shared,
      [0, 0],
      null,
    ];
    for (const bad of typeErrors) {
      assert.throws(() => addon.futexWait(bad as Int32Array, 0, 0, 0), (e: NodeJS.ErrnoException) =>
        e instanceof TypeError && e.code === 'EINVAL' &&
        e.message.startsWith('futexWait: cells must be an Int32Array over a SharedArrayBuffer, got'));
      assert.throws(() => addon.futexWake(bad as Int32Array, 0, 1), TypeError);
    }
    const cells = new Int32Array(shared, 4, 2);
    for (const index of [-1, 2, 1.5, NaN]) {
      assert.throws(() => addon.futexWait(cells, index, 0, 0), (e: NodeJS.ErrnoException) =>
        e instanceof RangeError && e.code === 'EINVAL' &&
        e.message.includes('out of range for an Int32Array of length 2'));
    }
    assert.throws(() => addon.futexWake(cells, 0, -1), RangeError);
    assert.throws(() => addon.futexWake(cells, 0, 2 ** 31), RangeError);
    assert.throws(() => addon.futexWait(cells, 0, 0, '5' as unknown as number), TypeError);
  });

  test('a waiter on another cell of the same segment is not woken', { timeout: 20_000 }, async () => {
    const name = uniqueName('futex-cell');
    let child: Child | undefined;
    try {
      const cells = new Int32Array(addon.shmCreate(name, 4096));
      child = sleeper(name, 1, 400);
      const address = Number(await child.line());
      await until(() => asleepOn(child!.process.pid!, address), 5_000, 'the child to sleep');
      assert.equal(addon.futexWake(cells, 0, Infinity), 0, 'nobody sleeps on cell 0');
      assert.equal(await child.line(), 'timed-out 0');
    } finally {
      child?.kill();
      addon.shmUnlink(name);
    }
  });
});
