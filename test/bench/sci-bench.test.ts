import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, ROOT, tsmpiexec } from '../helpers.js';

/**
 * The ch_sci benchmarks run and print what they promise: osu_latency and osu_bw over ch_sci
 * name the device in their header; the efficiency-model tool (--smoke: a few sizes) prints the
 * parameter table and, per protocol, measured and modelled latency with the three
 * efficiencies; the cache A/B prints lru and null latencies and their ratio. Shapes only: no
 * number is judged (this machine's timings move too much for that).
 */
const node = process.execPath;

describe('ch_sci benchmarks', () => {
  for (const [launch, name] of [[['--sci-nodes', '2'], '--sci-nodes 2'], [['-x', 'TSMPI_DEVICE=sci'], 'TSMPI_DEVICE=sci']] as const) {
    it(`osu_latency and osu_bw over ch_sci (${name})`, { timeout: 120_000 }, async () => {
      for (const bench of ['osu_latency', 'osu_bw']) {
        const r = await tsmpiexec(['-n', '2', ...launch, '--timeout', '60', node, path.join(DIST, 'bench', 'osu', `${bench}.js`),
          '-i', '20', '-x', '2', '-m', '65536'], 90_000);
        assert.equal(r.status, 0, `${bench}: stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        assert.match(r.stdout, /^# tsmpi device: ch_sci \(2 ranks/m, `${bench} names ch_sci:\n${r.stdout}`);
        assert.match(r.stdout, /TSMPI_SCI_SHORT_MAX=\d+/, 'the ch_sci limits are reported');
        assert.match(r.stdout, /^65536 +\d+\.\d{2}$/m, `${bench} has a 64 KiB row`);
      }
    });
  }

  it('the efficiency model prints parameters, measurements, model and efficiencies', { timeout: 180_000 }, () => {
    const r = spawnSync(node, [path.join(DIST, 'bench', 'sci', 'model.js'), '--smoke'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    for (const symbol of ['B_cl(N)', 'B_cr(N)', 'B_check(N)', 'B_max', 'l_rw', 'l_rr', 'l_sb', 't_errSCI']) {
      assert.ok(r.stdout.includes(`| ${symbol} |`), `parameter ${symbol} is missing:\n${r.stdout}`);
    }
    for (const protocol of ['short', 'eager', 'rendezvous']) {
      const at = r.stdout.indexOf(`## ${protocol} `);
      assert.ok(at >= 0, `no ${protocol} table`);
      const rows = r.stdout.slice(at).split('\n').filter((l) => /^\| \d+ \|/.test(l));
      assert.ok(rows.length >= 2, `${protocol}: rows`);
      for (const row of rows.slice(0, 2)) {
        const cells = row.split('|').map((c) => c.trim()).filter((c) => c !== '');
        assert.equal(cells.length, 6, `row ${row}`);
        assert.match(cells[1]!, /^\d+\.\d+$/, `measured latency in ${row}`);
        assert.match(cells[2]!, /^\d+\.\d+$/, `model latency in ${row}`);
      }
    }
  });

  it('the cache A/B prints lru, null and their ratio per size', { timeout: 240_000 }, () => {
    const r = spawnSync(node, [path.join(DIST, 'bench', 'sci', 'cache-ab.js'), '--repeat', '1'],
      { cwd: ROOT, encoding: 'utf8', timeout: 230_000 });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const rows = r.stdout.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    assert.equal(rows.length, 8, r.stdout);
    for (const row of rows) assert.match(row, /^\| \d+ \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d \|$/, `row ${row}`);
  });
});
