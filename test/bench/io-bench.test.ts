import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, run, which } from '../helpers.js';

/**
 * bench/io: compare-io.js builds bench/io/io_bench.c with mpicc, runs it under MPICH's hydra and
 * io-bench.js under tsmpiexec on 2 ranks with tiny sizes, and prints one markdown table with a
 * row per access and block, a number on each side. Only the shape is judged, no timing. Skips,
 * saying why, without mpicc or mpiexec.hydra.
 */
const missing = [which('mpicc') === null ? 'mpicc' : null, which('mpiexec.hydra') === null ? 'mpiexec.hydra' : null].filter((x) => x !== null);
const skip = missing.length > 0 ? `${missing.join(' and ')} not installed (apt-get install mpich libmpich-dev)` : false;

describe('bench/io beside ROMIO', { skip }, () => {
  it('prints a row per access and block with MB/s of both sides', { timeout: 180_000 }, async () => {
    const r = await run(process.execPath, [path.join(DIST, 'bench', 'io', 'compare-io.js'), '-n', '2', '--bytes', '65536',
      '--repeat', '1', '--runs', '1', '--blocks', '4096,16384'], 170_000);
    assert.equal(r.status, 0, r.stderr);
    const rows = r.stdout.split('\n').filter((l) => /^\| (Write|Read)/.test(l)).map((l) => l.split('|').map((c) => c.trim()).slice(1, -1));
    assert.deepEqual(rows.map((c) => `${c[0]} ${c[1]}`), ['Write_at_all', 'Read_at_all', 'Write_at', 'Read_at']
      .flatMap((a) => [`${a} 4 KiB`, `${a} 16 KiB`]));
    for (const c of rows) {
      assert.ok(Number(c[2]) > 0 && Number(c[3]) > 0, `both sides measured: ${c.join(' | ')}`);
    }
  });
});
