import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ucxProbe } from '../../src/native/addon.js';
import { DIST, run, which } from '../helpers.js';

/**
 * bench/dynamic: compare-dynamic.js builds spawn_bench.c with mpicc, runs it under hydra and
 * spawn-bench.js under tsmpiexec once with tiny settings, and prints one markdown table with a
 * row per spawn count, latency size and bandwidth size. tsmpi's cells must all be positive
 * numbers; MPICH's latency and bandwidth too, and its Spawn cells numbers unless the footnote
 * says this MPICH cannot spawn (Debian's ch4:ucx build). No timing is judged. Skips, saying
 * why, without mpicc, mpiexec.hydra or a usable UCX (tsmpi's spawned jobs talk through ch_ucx).
 */
const missing = [which('mpicc') === null ? 'mpicc' : null, which('mpiexec.hydra') === null ? 'mpiexec.hydra' : null].filter((x) => x !== null);
const skip = missing.length > 0 ? `${missing.join(' and ')} not installed (apt-get install mpich libmpich-dev)`
  : !ucxProbe().available ? `UCX is not usable here: ${ucxProbe().reason}` : false;

describe('bench/dynamic beside MPICH', { skip }, () => {
  it('prints a row per spawn count, latency and bandwidth size with numbers on both sides', { timeout: 180_000 }, async () => {
    const r = await run(process.execPath, [path.join(DIST, 'bench', 'dynamic', 'compare-dynamic.js'), '--repeat', '1',
      '--spawn', '1,2', '--spawn-repeat', '1', '--lat-sizes', '1,4096', '--bw-sizes', '65536',
      '--iters', '20', '--iters-large', '5', '--bw-iters', '3', '--bw-iters-large', '2'], 170_000);
    assert.equal(r.status, 0, r.stderr);
    const rows = r.stdout.split('\n').filter((l) => /^\| (Spawn|First|Latency|Bandwidth)/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()).slice(1, -1));
    assert.deepEqual(rows.map((c) => c[0]), ['Spawn 1 child (ms, median of 1)', 'Spawn 2 children (ms, median of 1)',
      'First Spawn of the run, 1 (ms)', 'Latency 1 B (us)', 'Latency 4 KiB (us)', 'Bandwidth 64 KiB (MB/s)'], r.stdout);
    const mpichCannotSpawn = /this MPICH cannot spawn \(`.+`\)/.test(r.stdout);
    for (const c of rows) {
      assert.ok(Number(c[1]) > 0, `tsmpi measured: ${c.join(' | ')}`);
      if (c[0]!.includes('pawn') && mpichCannotSpawn) assert.deepEqual([c[2], c[3]], ['n/a', '–'], c.join(' | '));
      else assert.ok(Number(c[2]) > 0 && Number(c[3]) > 0, `MPICH measured and a ratio: ${c.join(' | ')}`);
    }
    // A spawn from entry to return starts a Node process: more than a few ms, well under a minute.
    for (const c of rows.slice(0, 3)) assert.ok(Number(c[1]) > 5 && Number(c[1]) < 60_000, `spawn time sane: ${c.join(' | ')}`);
  });
});
