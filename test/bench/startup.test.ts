import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { describe, it } from 'node:test';
import { DIST, run, which } from '../helpers.js';

/**
 * bench/launch/startup.js: for each rank count, tsmpi's and MPICH's time from the launcher's
 * start to the last Init and the shared memory a rank has mapped then, with their ratios, and
 * tsmpi's time to the last rank's program starting (before it imports tsmpi), and the price of a
 * page fault with the faults a rank takes before its Init. Only
 * the shape and the sanity of the figures are judged (every rank reported, times positive,
 * tsmpi's shared memory small and growing with the ranks), no timing. Where the environment
 * names a NODE_EXTRA_CA_CERTS file, each row gains tsmpi's time without it and that ratio.
 */
const STARTUP = path.join(DIST, 'bench', 'launch', 'startup.js');
const hasMpich = which('mpicc') !== null && which('mpiexec') !== null;

describe('bench/launch/startup.js', () => {
  it('prints a row per rank count with Init time and RssShmem beside MPICH', { timeout: 120_000 }, async () => {
    // Without Init's warm-up, which backs some of a pair's eager ring and bounce buffers where
    // ranks have a core each (2 here, not 4): the figures then show how memory grows with ranks.
    const env: NodeJS.ProcessEnv = { ...process.env, TSMPI_WARMUP: 'off' };
    delete env.NODE_EXTRA_CA_CERTS;
    const r = await run(process.execPath, [STARTUP, '-i', '1', ...(hasMpich ? [] : ['--no-mpich']), '2', '4'], 110_000, { env });
    assert.equal(r.status, 0, r.stderr);
    const rows = r.stdout.split('\n').filter((l) => /^\s+\d/.test(l)).map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows.map((c) => c[0]), ['2', '4']);
    for (const c of rows) {
      assert.equal(c.length, 8, `a row of 8 cells: ${c.join(' ')}`);
      assert.ok(Number(c[1]) > 0, `tsmpi's Init time ${c[1]}`);
      // The last rank's program started (Node up, before tsmpi's import) before its Init returned.
      assert.ok(Number(c[7]) > 0 && Number(c[7]) < Number(c[1]), `node up ${c[7]} ms, Init ${c[1]} ms`);
      // Sparse segments: a few pages per pair, far below a MiB at 4 ranks (the whole segments were 12 MB).
      assert.ok(Number(c[4]) > 0 && Number(c[4]) < 1, `tsmpi's shared memory per rank ${c[4]} MB`);
      if (hasMpich) assert.ok(Number(c[2]) > 0 && Number(c[5]) > 0 && Number(c[3]) > 0, c.join(' '));
    }
    assert.ok(Number(rows[1]![4]) > Number(rows[0]![4]), 'more ranks, more pairs, more shared memory');
    // What a page fault costs here, and how many a rank takes before its Init.
    const faults = /# page faults: (\d+) in ([\d.]+) ms touching a fresh 32 MiB \(([\d.]+) us each\); Node's start takes (\d+) before the program, importing tsmpi (\d+) more/.exec(r.stdout);
    assert.ok(faults !== null, r.stdout);
    for (const k of [1, 3, 4, 5]) assert.ok(Number(faults[k]) > 0, faults[0]);
  });

  it('with NODE_EXTRA_CA_CERTS set, also times the tsmpi jobs without it', { timeout: 120_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-startup-'));
    const pem = path.join(dir, 'extra.pem');
    fs.writeFileSync(pem, tls.rootCertificates.slice(0, 3).join('\n'));
    try {
      const env = { ...process.env, TSMPI_WARMUP: 'off', NODE_EXTRA_CA_CERTS: pem };
      const r = await run(process.execPath, [STARTUP, '-i', '1', ...(hasMpich ? [] : ['--no-mpich']), '2'], 110_000, { env });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stdout.includes(`# NODE_EXTRA_CA_CERTS is set (${pem}): Node parses it at every start`), r.stdout);
      assert.match(r.stdout, /Node used \d+ ms of CPU before its program with it and \d+ without/);
      assert.match(r.stdout, /# Ranks .* node up \(ms\)\s+no-CA Init \(ms\)\s+ratio$/m);
      const rows = r.stdout.split('\n').filter((l) => /^\s+\d/.test(l)).map((l) => l.trim().split(/\s+/));
      assert.equal(rows.length, 1, r.stdout);
      const c = rows[0]!;
      assert.equal(c.length, 10, `a row of 10 cells: ${c.join(' ')}`);
      assert.ok(Number(c[8]) > 0, `tsmpi's Init time without the certificates ${c[8]}`);
      if (hasMpich) assert.ok(Math.abs(Number(c[9]) - Number(c[8]) / Number(c[2])) < 0.01, `ratio ${c[9]} = ${c[8]} / ${c[2]}`);
      else assert.equal(c[9], '-');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown argument with its usage', { timeout: 10_000 }, async () => {
    const r = await run(process.execPath, [STARTUP, '--bogus'], 8_000);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown argument --bogus\nusage: node dist\/bench\/launch\/startup\.js/);
  });
});
