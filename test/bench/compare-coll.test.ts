import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, ROOT, run, tsmpiexec, which } from '../helpers.js';

/**
 * bench/compare's collective mode: compare.js builds bench/compare/osu_coll.c with mpicc, runs
 * each collective under tsmpiexec and MPICH's hydra on 2 ranks with tiny counts, and prints one
 * markdown table per benchmark; the C programs print what bench/osu/coll.ts prints, line for
 * line. Only shapes are judged, no timing. Skips, saying why, without mpicc or mpiexec.hydra.
 */
const COMPARE = path.join(DIST, 'bench', 'compare', 'compare.js');
const OSU = path.join(DIST, 'bench', 'osu');
const BUILD = path.join(ROOT, 'bench', 'compare', 'build');
const COLLECTIVES = ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'alltoall', 'gather', 'scatter'];
const SIZES = [1, 2, 4, 8, 16, 32, 64];
const node = process.execPath;
const hydra = which('mpiexec.hydra');
const missing = [which('mpicc') === null ? 'mpicc' : null, hydra === null ? 'mpiexec.hydra' : null].filter((x) => x !== null);
const skip = missing.length > 0 ? `${missing.join(' and ')} not installed (apt-get install mpich libmpich-dev)` : false;

function lines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l !== '');
}

/** The `## ` sections of the report, by program name (`osu_bcast`) or `Collectives`, each as its lines. */
function sections(report: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of report.split('\n')) {
    const m = /^## (\w+), /.exec(line);
    if (m) out.set(m[1]!, (current = []));
    if (current !== null) current.push(line);
  }
  return out;
}

/** The cells of a markdown table's body rows, below its head line. */
function tableRows(section: readonly string[], head: string): string[][] {
  const at = section.indexOf(head);
  assert.ok(at > 0, `no table head ${JSON.stringify(head)}:\n${section.join('\n')}`);
  assert.match(section[at + 1] ?? '', /^\|(---:\|)+$/);
  const rows: string[][] = [];
  for (const line of section.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

const CELL = /^\d+\.\d{2}$/;

describe('bench/compare collectives', () => {

  it('compare.js --bench mbw_mr: osu_mbw_mr\'s messages per second on both sides, sizes 1..8, with ratios', { skip, timeout: 60_000 }, async () => {
    const r = await run(node, [COMPARE, '--bench', 'mbw_mr', '--sizes', '1:8', '--iterations', '20', '--warmup', '2',
      '--repeat', '1', '--timeout', '30'], 50_000, { cwd: ROOT });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const section = sections(r.stdout).get('osu_mbw_mr');
    assert.ok(section !== undefined, r.stdout);
    assert.match(section[0]!, /^## osu_mbw_mr, 2 ranks: Messages\/s, higher is better/);
    const rows = tableRows(section, '| Size (B) | tsmpi (messages/s) | MPICH (messages/s) | ratio tsmpi/MPICH |');
    assert.deepEqual(rows.map((c) => c[0]), ['1', '2', '4', '8']);
    for (const [, ours, theirs, ratio] of rows) {
      // A message rate, not MB/s: at 1-8 B per message both sides move far more messages than bytes/1e6.
      assert.ok(CELL.test(ours!) && Number(ours) > 1000 && CELL.test(theirs!) && Number(theirs) > 1000, `${ours} ${theirs}`);
      assert.ok(Math.abs(Number(ratio) - Number(ours) / Number(theirs)) < 0.01 * Number(ratio) + 0.01, `ratio ${ratio}`);
    }
  });
  it('compare.js --bench persistent -n 2: Start + Wait of Bcast_init and Allreduce_init on both sides, with ratios', { skip, timeout: 60_000 }, async () => {
    const r = await run(node, [COMPARE, '--bench', 'persistent', '-n', '2', '--sizes', '8:16', '--iterations', '20', '--warmup', '2',
      '--repeat', '1', '--timeout', '30'], 50_000, { cwd: ROOT });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const found = sections(r.stdout);
    assert.deepEqual([...found.keys()], ['osu_bcast_persistent', 'osu_allreduce_persistent', 'Collectives']);
    for (const program of ['osu_bcast_persistent', 'osu_allreduce_persistent']) {
      const section = found.get(program)!;
      assert.match(section.find((l) => l.startsWith('  - OSU')) ?? '', /Persistent (Broadcast|Allreduce) Latency Test/, section.join('\n'));
      const rows = tableRows(section, '| Size (B) | tsmpi (µs) | MPICH (µs) | ratio tsmpi/MPICH |');
      assert.deepEqual(rows.map((c) => c[0]), ['8', '16'], `${program} rows`);
      for (const [, ours, theirs] of rows) assert.ok(CELL.test(ours!) && CELL.test(theirs!), `${program}: ${ours} ${theirs}`);
    }
  });
  it('compare.js --bench coll -n 2: one table per collective, sizes 1..64, ratios of the two columns, a summary of ratios', { skip, timeout: 60_000 }, async () => {
    const outFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-compare-')), 'coll.md');
    const r = await run(node, [COMPARE, '--bench', 'coll', '-n', '2', '--sizes', '64', '--iterations', '20', '--warmup', '2',
      '--repeat', '1', '--timeout', '30', '--out', outFile], 50_000, { cwd: ROOT });
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.equal(fs.readFileSync(outFile, 'utf8'), r.stdout, '--out holds the printed report');
    fs.rmSync(path.dirname(outFile), { recursive: true });
    assert.match(r.stdout, /^# tsmpi and MPICH, collectives \(2 ranks\) on one node$/m);
    assert.doesNotMatch(r.stdout, /Failed/);
    assert.match(r.stdout, /^Total \d+\.\d s\.$/m);
    const found = sections(r.stdout);
    assert.deepEqual([...found.keys()], [...COLLECTIVES.map((c) => `osu_${c}`), 'Collectives']);
    const ratios = new Map<string, Map<string, string>>(); // program -> size -> ratio
    for (const [program, section] of [...found].filter(([name]) => name.startsWith('osu_'))) {
      assert.match(section[0]!, new RegExp(`^## ${program}, 2 ranks: Avg Latency \\(us\\), lower is better`));
      const commands = section.filter((l) => l.startsWith('- '));
      assert.match(commands[0] ?? '', new RegExp(`^- tsmpi \\(1 run: \\d+\\.\\d s\\): \`node dist/bin/tsmpiexec\\.js -n 2 .*dist/bench/osu/${program}\\.js `));
      assert.match(commands[1] ?? '', new RegExp(`^- MPICH \\(1 run: \\d+\\.\\d s\\): \`mpiexec\\.hydra -n 2 bench/compare/build/${program}_c `));
      const rows = tableRows(section, '| Size (B) | tsmpi (µs) | MPICH (µs) | ratio tsmpi/MPICH |');
      ratios.set(program, new Map(rows.map((cells) => [cells[0]!, cells[3]!])));
      const sizes = rows.map((cells) => {
        const row = cells.join(' | ');
        assert.equal(cells.length, 4, row);
        const [size, tsmpi, mpich, ratio] = cells as [string, string, string, string];
        for (const c of [tsmpi, mpich]) assert.match(c, CELL, `${program}: ${row}`);
        assert.match(ratio, /^\d+\.\d{2}$|^0\.0\d+$/, `${program}: ratio of ${row}`); // 2 significant digits below 0.1
        const a = Number(tsmpi);
        const b = Number(mpich);
        // The ratio is taken before rounding: the printed cells bound it within their last digit.
        if (b >= 0.01) {
          const slack = (0.005 / Math.max(b - 0.005, 0.001)) * (a / b + 1) + 0.006;
          assert.ok(Math.abs(Number(ratio) - a / b) <= slack, `${program}: ratio of ${row}`);
        }
        return size;
      });
      assert.deepEqual(sizes, program === 'osu_barrier' ? ['—'] : SIZES.map(String), `${program} rows`);
    }
    // The summary repeats each table's ratios: barrier on a line, the others a column each.
    const summary = found.get('Collectives')!;
    assert.match(summary[0]!, /^## Collectives, 2 ranks: ratio tsmpi \/ MPICH of the average latency/);
    assert.ok(summary.includes(`osu_barrier: ${ratios.get('osu_barrier')!.get('—')}`), summary.join('\n'));
    const sized = COLLECTIVES.filter((c) => c !== 'barrier');
    const rows = tableRows(summary, `| Size (B) | ${sized.join(' | ')} |`);
    assert.deepEqual(rows.map((cells) => cells[0]), SIZES.map(String));
    for (const cells of rows) {
      sized.forEach((c, k) => assert.equal(cells[k + 1], ratios.get(`osu_${c}`)!.get(cells[0]!), `${c} at ${cells[0]}`));
    }
  });

  it('the C programs print coll.ts\'s title, column line and rows', { skip, timeout: 60_000 }, async () => {
    // Built by the test above; built here again if it was filtered out.
    for (const program of ['osu_allreduce', 'osu_barrier']) {
      const exe = path.join(BUILD, `${program}_c`);
      if (!fs.existsSync(exe)) {
        const b = await run('mpicc', ['-O2', `-DOSU_${program.slice(4).toUpperCase()}`, '-o', exe, path.join(ROOT, 'bench', 'compare', 'osu_coll.c')], 30_000);
        assert.equal(b.status, 0, b.stderr);
      }
      const args = program === 'osu_barrier' ? ['-i', '10', '-x', '1'] : ['-m', '1:8', '-i', '10', '-x', '1'];
      const c = await run(hydra!, ['-n', '2', exe, ...args], 30_000);
      const t = await tsmpiexec(['-n', '2', '--timeout', '30', node, path.join(OSU, `${program}.js`), ...args], 40_000);
      assert.equal(c.status, 0, `C:\n${c.stdout}\n${c.stderr}`);
      assert.equal(t.status, 0, `tsmpi:\n${t.stdout}\n${t.stderr}`);
      const cl = lines(c.stdout);
      const tl = lines(t.stdout);
      assert.equal(cl[0], tl[0], 'same title');
      assert.match(cl[1] ?? '', /^# MPI library: MPICH.* \(2 ranks\)$/);
      const column = program === 'osu_barrier' ? 'Avg Latency(us)'.padStart(20) : '# Size'.padEnd(10) + 'Avg Latency(us)'.padStart(20);
      assert.equal(cl[2], column, `C column line:\n${c.stdout}`);
      assert.equal(tl.find((l) => !l.startsWith('# OSU') && !l.startsWith('# tsmpi')), column, `tsmpi column line:\n${t.stdout}`);
      for (const [side, out] of [['C', cl.slice(3)], ['tsmpi', tl.slice(tl.indexOf(column) + 1)]] as const) {
        if (program === 'osu_barrier') {
          assert.equal(out.length, 1, `${side}: ${out.join('\n')}`);
          assert.match(out[0]!, /^ +\d+\.\d{2}$/);
          assert.equal(out[0]!.length, 20, `${side}: ${JSON.stringify(out[0])} is not 20 wide`);
        } else {
          assert.deepEqual(out.map((l) => Number(/^(\d+) +\d+\.\d{2}$/.exec(l)?.[1] ?? NaN)), [1, 2, 4, 8], `${side}: ${out.join('\n')}`);
          for (const l of out) assert.equal(l.length, 30, `${side}: ${JSON.stringify(l)} is not 10 + 20 wide`);
        }
      }
    }
  });

  it('a failing side is reported with its output and the exit status is 1', { skip, timeout: 30_000 }, async () => {
    // An algorithm name tsmpi does not know makes every tsmpi rank exit at start-up.
    const r = await run(node, [COMPARE, '--bench', 'allreduce', '-n', '2', '--sizes', '4', '--iterations', '5', '--repeat', '1',
      '--timeout', '20'], 25_000, { cwd: ROOT, env: { ...process.env, TSMPI_COLL_ALLREDUCE: 'no_such_algorithm' } });
    assert.equal(r.status, 1, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const section = sections(r.stdout).get('osu_allreduce');
    assert.ok(section !== undefined, r.stdout);
    assert.ok(section.includes('**Failed**, no comparison:'), section.join('\n'));
    assert.match(r.stdout, /tsmpi osu_allreduce failed \(exit status \d+\)/);
    assert.match(r.stdout, /TSMPI_COLL_ALLREDUCE=.*no_such_algorithm/);
    assert.match(r.stdout, /^Failed: osu_allreduce\.$/m);
    assert.doesNotMatch(r.stdout, /^\| Size/m);
  });

  it('compare.js refuses an unknown benchmark and fewer than 2 ranks, naming what it takes', { timeout: 20_000 }, async () => {
    const bad = await run(node, [COMPARE, '--bench', 'allreduce,scan'], 10_000);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--bench takes latency, bw, barrier, .* coll, .* or rma, got "scan"/);
    const one = await run(node, [COMPARE, '--bench', 'bcast', '-n', '1'], 10_000);
    assert.equal(one.status, 2);
    assert.match(one.stderr, /-n needs at least 2 ranks/);
  });
});
