import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, tsmpiexec } from '../helpers.js';

/**
 * The OSU benchmarks print what OMB's C programs print, line for line: the title, tsmpi's extra
 * `#` lines, the column line (`# Size` left in 10, the unit right in 20) and one row per size
 * (size left in 10, value right in 20 with 2 decimals). Runs go through tsmpiexec with tiny
 * counts; no number is judged, only its shape.
 */
const OSU = path.join(DIST, 'bench', 'osu');
const node = process.execPath;
const TINY = ['-i', '10', '-x', '2', '-m', '64'];

function lines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l !== '');
}

/** Checks title, facts and column line; returns the lines after the column line. */
function checkHeader(out: string[], title: RegExp, column: RegExp): string[] {
  assert.match(out[0] ?? '', title, `title line:\n${out.join('\n')}`);
  const at = out.findIndex((l) => l.startsWith('# Size'));
  assert.ok(at > 0, `no column line:\n${out.join('\n')}`);
  for (const fact of out.slice(1, at)) assert.match(fact, /^# tsmpi \w+: \S/, `fact line ${JSON.stringify(fact)}`);
  assert.match(out[at]!, column);
  return out.slice(at + 1);
}

/** Rows `%-10d%20.2f` (and `%20s` for Validation); returns the sizes in order. */
function checkRows(rows: string[], validation: boolean): number[] {
  const row = validation ? /^(\d+) +\d+\.\d{2} +(Pass|Fail)$/ : /^(\d+) +\d+\.\d{2}$/;
  return rows.map((l) => {
    const m = row.exec(l);
    assert.ok(m, `row ${JSON.stringify(l)} does not match ${row}`);
    assert.equal(l.length, validation ? 50 : 30, `row ${JSON.stringify(l)} is not 10 + 20${validation ? ' + 20' : ''} wide`);
    assert.ok(m[1]!.length <= 10 && l[9] === ' ', `size of ${JSON.stringify(l)} is not left-justified in 10`);
    return Number(m[1]);
  });
}

describe('bench/osu output format', () => {
  it('osu_latency: title, tsmpi facts, column line, rows 0..64 and the heap line', { timeout: 90_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '--timeout', '60', node, path.join(OSU, 'osu_latency.js'), ...TINY], 75_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const rest = checkHeader(lines(r.stdout), /^# OSU MPI Latency Test v\d+\.\d+$/, /^# Size {12}Latency \(us\)$/);
    const trailer = rest.filter((l) => l.startsWith('#'));
    assert.deepEqual(checkRows(rest.filter((l) => !l.startsWith('#')), false), [0, 1, 2, 4, 8, 16, 32, 64]);
    assert.match(trailer[0] ?? '', /^# heap growth over the 0-8 byte loop: -?\d+ bytes$/);
    assert.match(trailer[1] ?? '', /^# heap growth detail: rank 0 -?\d+ B, .*rank 1 -?\d+ B, /);
    assert.equal(trailer.length, 2, trailer.join('\n'));
  });

  it('osu_latency -c adds a Validation column with Pass on every row', { timeout: 90_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '--timeout', '60', node, path.join(OSU, 'osu_latency.js'), ...TINY, '-c'], 75_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const rest = checkHeader(lines(r.stdout), /^# OSU MPI Latency Test v\d+\.\d+$/, /^# Size {12}Latency \(us\) {10}Validation$/);
    const rows = rest.filter((l) => !l.startsWith('#'));
    assert.deepEqual(checkRows(rows, true), [0, 1, 2, 4, 8, 16, 32, 64]);
    for (const row of rows) assert.ok(row.endsWith('Pass'), row);
  });

  it('osu_bw: title, tsmpi facts, column line and rows 1..64', { timeout: 90_000 }, async () => {
    const r = await tsmpiexec(['-n', '2', '--timeout', '60', node, path.join(OSU, 'osu_bw.js'), ...TINY, '-W', '8'], 75_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const rest = checkHeader(lines(r.stdout), /^# OSU MPI Bandwidth Test v\d+\.\d+$/, /^# Size {8}Bandwidth \(MB\/s\)$/);
    assert.deepEqual(checkRows(rest, false), [1, 2, 4, 8, 16, 32, 64]);
  });

  it('osu_mbw_mr on 4 ranks: column line, rows of size, MB/s and messages/s that agree, Validation with -c', { timeout: 90_000 }, async () => {
    const r = await tsmpiexec(['-n', '4', '--timeout', '60', node, path.join(OSU, 'osu_mbw_mr.js'), ...TINY, '-W', '8', '-c'], 75_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const out = lines(r.stdout);
    const rest = checkHeader(out, /^# OSU MPI Multiple Bandwidth \/ Message Rate Test v\d+\.\d+$/,
      /^# Size {20}MB\/s {10}Messages\/s {10}Validation$/);
    assert.ok(out.includes('# tsmpi pairs: 2 (rank i sends to rank i + 2)'), out.join('\n'));
    const sizes = rest.map((l) => {
      const m = /^(\d+) +(\d+\.\d{2}) +(\d+\.\d{2}) +Pass$/.exec(l);
      assert.ok(m !== null && l.length === 70, `row ${JSON.stringify(l)}`);
      const [size, mbs, rate] = [Number(m[1]), Number(m[2]), Number(m[3])];
      assert.ok(Math.abs(rate * size / 1e6 - mbs) <= 0.01 + mbs * 1e-6, `MB/s ${mbs} is not ${rate} messages/s of ${size} B`);
      return size;
    });
    assert.deepEqual(sizes, [1, 2, 4, 8, 16, 32, 64]);
  });

  it('osu_mbw_mr on 3 ranks prints OMB\'s message and exits non-zero', { timeout: 90_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', '--timeout', '60', node, path.join(OSU, 'osu_mbw_mr.js'), ...TINY], 75_000);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /^This test requires an even number of processes$/m);
  });

  for (const [program, title] of [['osu_bcast_persistent', 'Broadcast'], ['osu_allreduce_persistent', 'Allreduce']] as const) {
    it(`${program} on 3 ranks: title, column line and rows 1..64 (Start and Wait of a persistent request)`, { timeout: 90_000 }, async () => {
      const r = await tsmpiexec(['-n', '3', '--timeout', '60', node, path.join(OSU, `${program}.js`), ...TINY], 75_000);
      assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      const out = lines(r.stdout);
      assert.match(out[0] ?? '', new RegExp(`^# OSU MPI Persistent ${title} Latency Test v\\d+\\.\\d+$`), out.join('\n'));
      const at = out.findIndex((l) => l.startsWith('# Size'));
      assert.equal(out[at], '# Size    ' + 'Avg Latency(us)'.padStart(20));
      assert.deepEqual(checkRows(out.slice(at + 1), false), [1, 2, 4, 8, 16, 32, 64]);
    });
  }

  it('osu_latency on 3 ranks prints OMB\'s message and exits non-zero', { timeout: 90_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', '--timeout', '60', node, path.join(OSU, 'osu_latency.js'), ...TINY], 75_000);
    assert.notEqual(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.match(r.stderr, /^This test requires exactly two processes$/m);
    assert.doesNotMatch(r.stdout, /^# Size/m);
  });
});
