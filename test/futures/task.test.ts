// tsmpi/futures in one process: what a task's function becomes on the wire (taskSpec), the
// compile on the worker's side, the --import detection and the Future's states.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { CancelledError, Future, InvalidStateError } from '../../src/futures/future.js';
import { startedByImportFlag } from '../../src/futures/job.js';
import { compileSource, taskSpec } from '../../src/futures/task.js';

describe('futures: task functions', () => {
  it('sends a function by its source text; arrow, declaration, async and method forms compile again', async () => {
    const obj = { twice(x: number) { return 2 * x; }, async later(x: number) { return x + 1; } };
    for (const [fn, arg, want] of [
      [(x: number) => x * x, 3, 9], [function add1(x: number) { return x + 1; }, 1, 2], [obj.twice, 4, 8], [obj.later, 1, 2],
    ] as const) {
      const spec = taskSpec(fn, 'fn');
      assert.ok(typeof spec === 'object' && spec.kind === 'source', String(spec));
      assert.equal(await compileSource(spec.text)(arg), want);
    }
  });

  it('refuses what cannot be sent, naming the argument', () => {
    assert.match(taskSpec(Math.max, 'fn') as string, /^fn is a built-in or bound function \(max\)/);
    assert.match(taskSpec(((x: number) => x).bind(null), 'fn') as string, /built-in or bound/);
    assert.match(taskSpec(class A {}, 'fn') as string, /^fn is a class \(A\)/);
    assert.match(taskSpec(null, 'fn') as string, /^fn must be a function or a '<module>#<export>' string, got null/);
    assert.match(taskSpec('m.js#a-b', 'fn') as string, /export name "a-b" is not an identifier/);
  });

  it('module references: export name, default export, relative paths from the current directory', () => {
    assert.deepEqual(taskSpec('node:path#basename', 'fn'), { kind: 'module', url: 'node:path', name: 'basename' });
    assert.deepEqual(taskSpec('pkg', 'fn'), { kind: 'module', url: 'pkg', name: 'default' });
    assert.deepEqual(taskSpec('./t.js#f', 'fn'), { kind: 'module', url: pathToFileURL(path.resolve('t.js')).href, name: 'f' });
    assert.deepEqual(taskSpec(new URL('file:///x/t.js#g'), 'fn'), { kind: 'module', url: 'file:///x/t.js', name: 'g' });
  });

  it('running-job mode starts only for `--import tsmpi/futures` (command line or NODE_OPTIONS)', () => {
    assert.equal(startedByImportFlag(['--import', 'tsmpi/futures'], ''), true);
    assert.equal(startedByImportFlag(['--import=tsmpi/futures'], ''), true);
    assert.equal(startedByImportFlag([], '--max-old-space-size=99 --import tsmpi/futures'), true);
    assert.equal(startedByImportFlag(['--import', 'tsmpi'], ''), false);
    assert.equal(startedByImportFlag(['tsmpi/futures'], ''), false);
    assert.equal(startedByImportFlag([], ''), false);
  });
});

describe('futures: Future', () => {
  it('settles once; result/exception; awaitable; callbacks', async () => {
    const f = new Future<number>();
    assert.throws(() => f.result(), InvalidStateError);
    const seen: boolean[] = [];
    f.add_done_callback((x) => seen.push(x.done()));
    assert.equal(f.setRunning(), true);
    assert.equal(f.cancel(), false);
    f.setResult(5);
    f.setException(new Error('late'));
    assert.deepEqual(seen, [true]);
    assert.equal(f.result(), 5);
    assert.equal(f.exception(), null);
    assert.equal(await f, 5);

    const g = new Future<number>();
    g.setException(new TypeError('bad'));
    assert.throws(() => g.result(), TypeError);
    await assert.rejects(g, TypeError);

    const c = new Future<number>();
    assert.equal(c.cancel(), true);
    assert.equal(c.setRunning(), false);
    assert.throws(() => c.exception(), CancelledError);
    await assert.rejects(c, CancelledError);
  });

  it('a failed future nobody awaits is not an unhandled rejection', async () => {
    let unhandled = 0;
    const count = (): void => { unhandled++; };
    process.on('unhandledRejection', count);
    new Future().setException(new Error('ignored'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.off('unhandledRejection', count);
    assert.equal(unhandled, 0);
  });
});
