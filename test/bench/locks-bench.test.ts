import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BENCHES, COLUMNS, parseCsv, type Row } from '../../bench/locks/common.js';
import { LOCKS } from '../../src/locks/index.js';
import { QUEUES } from '../../src/locks/queue/index.js';
import { DIST, ROOT, run, tsmpiexec } from '../helpers.js';

/**
 * The lock benchmark suite (bench/locks) runs with --smoke under tsmpiexec and writes what it
 * promises: one CSV per benchmark with the suite's columns (a row per lock and parameter point,
 * "not built" rows for names not in the registry, never numbers for them) and an SVG; UPB on
 * 4 ranks over 2 emulated nodes runs all nine scenarios; report.js writes REPORT.md from the
 * CSVs; run-all.js drives a launch and the report. Shapes only: no timing is judged.
 */
const node = process.execPath;
const LOCKS_DIR = path.join(DIST, 'bench', 'locks');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-locks-bench-'));
after(() => fs.rmSync(out, { recursive: true, force: true }));

/** A few locks only (the registry grows; smoke runs must stay short): the baseline, an RW lock, a hierarchical one. */
const picked = [...new Set(['mpi-win-lock', LOCKS.find((s) => s.rw)?.name, LOCKS.find((s) => s.hierarchical)?.name]
  .filter((n): n is string => n !== undefined))];
const MISSING = 'no-such-lock';

function readRows(dir: string, bench: string): Row[] {
  const file = path.join(dir, `${bench}.csv`);
  assert.ok(fs.existsSync(file), `${file} was not written`);
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(text.split('\n')[0], COLUMNS.join(','), `${bench}.csv header`);
  const svg = fs.readFileSync(path.join(dir, `${bench}.svg`), 'utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(svg, /<\/svg>\n$/);
  return parseCsv(text);
}

function checkRows(bench: string, rows: Row[], names: readonly string[], processes: number, nodes: number): void {
  for (const name of names) {
    const mine = rows.filter((r) => r.lock === name && r.processes === String(processes) && r.nodes === String(nodes));
    assert.ok(mine.length > 0, `${bench}: no row for ${name} (${processes} processes, ${nodes} nodes)`);
    for (const r of mine.filter((x) => x.status === 'ok')) {
      assert.equal(r.bench, bench);
      assert.equal(r.ci, 'order-statistic');
      const metric = bench === 'upb' || bench === 'latency' ? 'latency_us' : 'iter_us';
      assert.ok(Number(r[metric]) > 0, `${bench} ${name}: ${metric} ${r[metric]}`);
      assert.ok(Number(r[`${metric}_lo`]) <= Number(r[metric]) && Number(r[metric]) <= Number(r[`${metric}_hi`]), `${bench} ${name}: CI`);
      assert.ok(Number(r.iterations) > 0);
    }
    assert.ok(mine.some((r) => r.status === 'ok' || (bench === 'upb' && r.status === 'n/a')), `${bench}: ${name} has no measured row`);
  }
  const nb = rows.filter((r) => r.lock === MISSING);
  assert.ok(nb.length > 0, `${bench}: no "not built" row for ${MISSING}`);
  for (const r of nb) {
    assert.equal(r.status, 'not built');
    assert.equal(r.iter_us, '', 'no numbers for a lock that is not built');
  }
}

describe('lock benchmarks (bench/locks) --smoke', () => {
  for (const bench of BENCHES) {
    it(`${bench}: 2 ranks, a CSV with the suite's columns and an SVG`, { timeout: 60_000 }, async () => {
      const queues = QUEUES.slice(0, 2).map((q) => q.name);
      const list = bench === 'queue' ? [...queues, MISSING] : [...picked, MISSING];
      const r = await tsmpiexec(['-n', '2', '--timeout', '50', node, path.join(LOCKS_DIR, `${bench}.js`), '--smoke', '--out', out,
        bench === 'queue' ? '--queues' : '--locks', list.join(',')], 58_000);
      assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      const rows = readRows(out, bench);
      checkRows(bench, rows, bench === 'queue' ? queues : picked, 2, 1);
      if (bench === 'wbab') {
        assert.deepEqual([...new Set(rows.filter((x) => x.status === 'ok').map((x) => x.variant))].sort(), ['iprobe', 'no-iprobe']);
        assert.ok(rows.some((x) => x.status === 'ok' && x.overhead_us !== ''), 'WBAB has an overhead column');
      }
      if (bench === 'ccwb') assert.deepEqual([...new Set(rows.filter((x) => x.status === 'ok').map((x) => x.value))].sort(), ['0', '3']);
      if (bench === 'upb') {
        const mine = rows.filter((x) => x.lock === 'mpi-win-lock');
        assert.deepEqual(mine.filter((x) => x.status === 'ok').map((x) => x.value).sort(), ['1a', '1b', '2a', '2b']);
        assert.equal(mine.filter((x) => x.status === 'n/a').length, 5, 'one node: the scenarios with another node are n/a');
      }
    });
  }

  it('upb: 4 ranks on 2 emulated nodes (--sci-nodes 2) run all nine scenarios', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '4', '--sci-nodes', '2', '--timeout', '50', node, path.join(LOCKS_DIR, 'upb.js'), '--smoke',
      '--out', out, '--locks', `mpi-win-lock,${MISSING}`], 58_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const rows = readRows(out, 'upb').filter((x) => x.processes === '4' && x.nodes === '2');
    const mine = rows.filter((x) => x.lock === 'mpi-win-lock' && x.status === 'ok');
    assert.deepEqual(mine.map((x) => x.value).sort(), ['1a', '1b', '1c', '2a', '2b', '2c', '3a', '3b', '3c']);
    assert.match(mine.find((x) => x.value === '2c')!.note!, /acquirer rank 3/);
    assert.match(mine.find((x) => x.value === '3b')!.note!, /acquirer rank 1/);
    assert.equal(rows.filter((x) => x.lock === MISSING).length, 9);
  });

  it('report.js writes REPORT.md from those CSVs', { timeout: 30_000 }, async () => {
    const r = await run(node, [path.join(LOCKS_DIR, 'report.js'), '--out', out], 25_000, { cwd: ROOT });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const md = fs.readFileSync(path.join(out, 'REPORT.md'), 'utf8');
    assert.match(md, /^# RMA lock benchmarks: report/);
    assert.match(md, /## What a 2-core machine can and cannot show/);
    assert.match(md, /## Orderings beside the seeds' claims/);
    for (const title of ['UPB', 'ECSB', 'CCWB', 'WBAB', 'Single-operation latency', 'Workload throughput', 'Wait-after-release',
      'Distributed hashtable', 'Queues']) assert.match(md, new RegExp(`^## ${title}`, 'm'), `section ${title}`);
    assert.match(md, /\| mpi-win-lock \| baseline \| 2 \| 1 \|/);
    assert.match(md, /\| no-such-lock \|.*\| not built \|/);
    assert.match(md, /!\[ecsb\]\(ecsb\.svg\)/);
  });

  it('run-all.js: one benchmark, one configuration, then the report', { timeout: 60_000 }, async () => {
    const dir = path.join(out, 'all');
    const r = await run(node, [path.join(LOCKS_DIR, 'run-all.js'), '--smoke', '--benches', 'ecsb', '--configs', '2',
      '--locks', 'mpi-win-lock', '--out', dir], 58_000, { cwd: ROOT });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.match(r.stdout, /^ecsb -n 2: ok/m);
    checkRows('ecsb', readRows(dir, 'ecsb').concat([{ lock: MISSING, status: 'not built', iter_us: '' }]), ['mpi-win-lock'], 2, 1);
    const md = fs.readFileSync(path.join(dir, 'REPORT.md'), 'utf8');
    assert.match(md, /node .*tsmpiexec\.js -n 2 .*ecsb\.js --locks mpi-win-lock/);
  });
});
