import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, run } from '../helpers.js';

/**
 * The OMB ports' table loop (tableSizes) collects a young generation more than half full before
 * a row, so no row of small messages meets a scavenge; with TSMPI_BENCH_FRESH_YOUNG=0 the same
 * 40 rows of ~320 KiB each (12 MiB, three times the young generation) meet them.
 */
const PROGRAM = path.join(DIST, 'test', 'bench', 'table-rows-program.js');

async function walk(fresh: '0' | '1'): Promise<{ rows: number; rowsHit: number; between: number }> {
  const r = await run(process.execPath, [PROGRAM], 60_000, { env: { ...process.env, TSMPI_BENCH_FRESH_YOUNG: fresh } });
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { rows: number; rowsHit: number; between: number };
}

describe('OMB table rows and the young generation', () => {
  it('no row meets a scavenge: they fall between rows', { timeout: 70_000 }, async () => {
    const w = await walk('1');
    assert.equal(w.rows, 40);
    assert.equal(w.rowsHit, 0, `rows that met a scavenge: ${w.rowsHit}`);
    assert.ok(w.between >= 2, `only ${w.between} scavenges between rows for 12 MiB of allocation`);
  });

  it('left where they fall (TSMPI_BENCH_FRESH_YOUNG=0), scavenges land inside rows', { timeout: 70_000 }, async () => {
    const w = await walk('0');
    assert.equal(w.rows, 40);
    assert.ok(w.rowsHit >= 2, `only ${w.rowsHit} rows met a scavenge`);
  });
});
