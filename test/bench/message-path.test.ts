import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, run } from '../helpers.js';

/**
 * bench/native/message-path.js: the engine and ch_shmem device of two "ranks" in one process,
 * ns per message of send, post and process, alone or beside another build (--against). Judged
 * are the shape, the figures' sanity and that every message arrived whole (the benchmark checks
 * each window's last byte and counts what it checked), no timing.
 */
const BENCH = path.join(DIST, 'bench', 'native', 'message-path.js');
const SRC = path.join(DIST, 'src');

function rows(stdout: string): string[][] {
  return stdout.split('\n').filter((l) => /^\d/.test(l)).map((l) => l.trim().split(/\s+/));
}

function delivered(stdout: string): number[] {
  const m = /# messages delivered and checked: ([\d /]+)/.exec(stdout);
  assert.ok(m !== null, stdout);
  return m[1]!.split('/').map((x) => Number(x.trim()));
}

describe('bench/native/message-path.js', () => {
  it('prints send, post and process per message for each size, one slot and two', { timeout: 60_000 }, async () => {
    // 200 warm-up windows and 2 rows of 50 per size; 128 bytes take two slots, so the ring
    // fills within a window and the sender's progress has to send the rest.
    const r = await run(process.execPath, [BENCH, '-m', '8:128', '-i', '50', '--rows', '2'], 50_000);
    assert.equal(r.status, 0, r.stderr);
    const table = rows(r.stdout);
    assert.deepEqual(table.map((c) => c[0]), ['8', '16', '32', '64', '128']);
    for (const c of table) {
      assert.equal(c.length, 4, c.join(' '));
      for (const v of c.slice(1)) assert.ok(Number(v) > 0 && Number(v) < 100_000, `${c[0]} B: ${c.join(' ')}`);
    }
    assert.deepEqual(delivered(r.stdout), [5 * (200 + 2 * 50) * 64]);
  });

  it('alternates rows with another build and prints the ratios', { timeout: 60_000 }, async () => {
    // This build against itself: two separate module graphs, each with its own engine and device.
    const r = await run(process.execPath, [BENCH, '-m', '8:8', '-i', '50', '--rows', '2', '--against', SRC], 50_000);
    assert.equal(r.status, 0, r.stderr);
    const [c] = rows(r.stdout);
    assert.ok(c !== undefined && c.length === 9, r.stdout);
    assert.equal(c[0], '8');
    const num = c.map(Number);
    assert.ok(Math.abs(num[7]! - num[1]! / num[4]!) < 0.011, `send ratio ${c[7]} = ${c[1]} / ${c[4]}`);
    assert.ok(Math.abs(num[8]! - num[3]! / num[6]!) < 0.011, `process ratio ${c[8]} = ${c[3]} / ${c[6]}`);
    assert.deepEqual(delivered(r.stdout), [(200 + 2 * 50) * 64, (200 + 2 * 50) * 64]);
  });

  it('refuses a directory that is no build, and an unknown argument, with usage', { timeout: 30_000 }, async () => {
    const bad = await run(process.execPath, [BENCH, '--against', DIST], 20_000);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /no mpid\/engine\.js there \(give a build's dist\/src\)/);
    const unknown = await run(process.execPath, [BENCH, '--size', '8'], 20_000);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown argument --size\nusage: node dist\/bench\/native\/message-path\.js/);
  });
});
