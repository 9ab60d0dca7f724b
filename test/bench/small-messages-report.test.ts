import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonBenchmark } from '../../bench/compare/compare.js';
import {
  type Measured, parseFirstRow, parseSpread, README_BEGIN, README_END, replaceBlock, type RunFacts, summary, targets,
} from '../../bench/compare/small-messages-report.js';

/**
 * The page and README block of bench/compare/small-messages.js, from made-up figures: each of
 * issue 16's targets is judged met or not from the figures (a single size below its bound is
 * enough to fail it, and is named), the tables carry the ratios of the figures they show, and
 * the README keeps everything outside its marked block. Also the two parsers of the shell
 * scripts' output, on lines as the scripts print them.
 */

function bench(program: string, rows: [number, number, number][], ranks = 2): JsonBenchmark {
  return {
    program, ranks, unit: '', better: program.includes('bw') || program.includes('mr') ? 'higher' : 'lower', oversubscribed: ranks > 2,
    rows: rows.map(([size, tsmpi, mpich]) => ({ size, tsmpi, mpich })),
  };
}

const SIZES = [1, 2, 4, 8, 16, 1024, 65536];

function collectives(ranks: number, ratio: number): JsonBenchmark[] {
  return ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'alltoall'].map((name) =>
    bench(`osu_${name}`, [[name === 'barrier' ? 0 : 8, ratio, 1]], ranks));
}

/** Figures that meet every target. */
function passing(): Measured {
  return {
    pointToPoint: [
      bench('osu_latency', SIZES.map((s) => [s, 0.2, 0.3])),
      bench('osu_bw', SIZES.map((s) => [s, 2 * s, s])),
      bench('osu_mbw_mr', SIZES.map((s) => [s, 12e6, 10e6])),
    ],
    collectives2: collectives(2, 0.5),
    collectives4: collectives(4, 0.01),
    oneSided: [
      bench('osu_acc_latency', [[1, 0.3, 1.5], [128, 0.6, 1.6], [65536, 2, 600]]),
      bench('osu_fop_latency', [[8, 0.8, 2]]),
      bench('osu_cas_latency', [[8, 1.3, 1.9]]),
    ],
    spread: SIZES.map((size) => ({ size, tsmpi: 10, tsmpiSpread: 0.1, mpich: 9, mpichSpread: 0.3 })),
    spreadRuns: 5,
    firstRow: [
      { first: 0.3, before: 3.9, warm: 0.28, mpichFirst: 0.2, loopFirst: 0.25, loopWarm: 0.24, ombFirst: 0.21, ombWarm: 0.2 },
      { first: 0.33, before: 4.1, warm: 0.3, mpichFirst: 0.21, loopFirst: 0.3, loopWarm: 0.25, ombFirst: 0.22, ombWarm: 0.2 },
    ],
    startup: [
      { ranks: 2, tsmpiMs: 700, mpichMs: 50, tsmpiShmMb: 1.5, mpichShmMb: 4, nodeUpMs: 250, noCaMs: 600 },
      { ranks: 32, tsmpiMs: 1300, mpichMs: 1200, tsmpiShmMb: 1.2, mpichShmMb: 4.5, nodeUpMs: 900, noCaMs: 1100 },
    ],
  };
}

const FACTS: RunFacts = {
  when: '2026-11-28 21:00 UTC', commit: 'abc1234', machine: 'vm (2 CPUs)', mpich: 'MPICH 4.0.2',
  command: 'node dist/bench/compare/small-messages.js --out bench/compare/results/x.md --readme README.md',
  repeat: 3, page: 'bench/compare/results/x.md', toRoot: '', minutes: 21.4,
};

/** A first-row.sh run from before first-row.js --omb (no rows of one job for osu_latency's loop). */
const NO_OMB = { first: 0.3, before: 4, warm: 0.3, mpichFirst: 0.2, loopFirst: null, loopWarm: null, ombFirst: null, ombWarm: null };

function verdicts(m: Measured): Map<string, boolean | null> {
  return new Map(targets(m).map((t) => [t.what, t.met]));
}

describe('small-messages report', () => {
  it('judges every target met when every figure is within its bound', () => {
    const t = targets(passing());
    assert.equal(t.length, 10);
    for (const x of t) assert.equal(x.met, true, `${x.what}: ${x.figure}`);
  });

  it('fails a target for one size out of bounds, and names the size', () => {
    const m = passing();
    const bw = m.pointToPoint[1]!;
    const rows = bw.rows.map((r) => (r.size === 16 ? { ...r, tsmpi: 0.99 * r.mpich! } : r));
    const failing: Measured = { ...m, pointToPoint: [m.pointToPoint[0]!, { ...bw, rows }, m.pointToPoint[2]!] };
    const t = targets(failing).find((x) => x.what.startsWith('1. osu_bw 1 B'))!;
    assert.equal(t.met, false);
    assert.match(t.figure, /^0\.99-2\.00; not at: 16 B$/);
    // The others stand.
    assert.equal([...verdicts(failing).values()].filter((v) => v === false).length, 1);
  });

  it('judges the spread, the collectives, one-sided, the first row and the 32-rank start-up by their own bounds', () => {
    const m = passing();
    const cases: [string, Measured][] = [
      ['1. osu_bw, spread', { ...m, spread: m.spread.map((s, i) => (i === 3 ? { ...s, tsmpiSpread: 0.21 } : s)) }],
      ['2. Barrier, Bcast, Reduce, Allreduce, Allgather, Alltoall at 8 B, 4 ranks', { ...m, collectives4: [...collectives(4, 0.01).slice(0, 1), bench('osu_bcast', [[8, 4.3, 1]], 4), ...collectives(4, 0.01).slice(2)] }],
      ['3. osu_acc_latency', { ...m, oneSided: [bench('osu_acc_latency', [[1, 9, 1], [128, 1.6, 1]]), ...m.oneSided.slice(1)] }],
      ['3. Fetch_and_op', { ...m, oneSided: [m.oneSided[0]!, m.oneSided[1]!, bench('osu_cas_latency', [[8, 2, 1.9]])] }],
      // Without rows of one job for osu_latency's loop, the rows of two fresh jobs decide.
      ['4. first timed', { ...m, firstRow: [{ ...NO_OMB, first: 0.4, warm: 0.3, loopFirst: 0.3, loopWarm: 0.3 }] }],
      // osu_latency's loop in one job, and a program's own loop: each first row against the same job's warm row.
      ['4. first timed', { ...m, firstRow: [{ ...NO_OMB, first: 0.3, warm: 0.3, ombFirst: 0.4, ombWarm: 0.3, loopFirst: 0.3, loopWarm: 0.3 }] }],
      ['4. first timed', { ...m, firstRow: [{ ...NO_OMB, first: 0.3, warm: 0.3, loopFirst: 0.45, loopWarm: 0.3 }] }],
      ['6. shared memory', { ...m, startup: [{ ...m.startup[1]!, tsmpiShmMb: 18.1 }] }],
      ['6. launch', { ...m, startup: [{ ...m.startup[1]!, tsmpiMs: 1450 }] }],
    ];
    for (const [what, measured] of cases) {
      const t = targets(measured);
      const hit = t.filter((x) => x.met === false);
      assert.equal(hit.length, 1, `${what}: ${hit.map((x) => x.what).join('; ')}`);
      assert.ok(hit[0]!.what.startsWith(what), `${what} expected, got ${hit[0]!.what}`);
    }
    // 1 B accumulates may stay where they are: only 128 B - 64 KiB are bound.
    const small = targets({ ...m, oneSided: [bench('osu_acc_latency', [[1, 9, 1], [128, 1.4, 1]]), ...m.oneSided.slice(1)] });
    assert.equal(small.find((x) => x.what.startsWith('3. osu_acc'))!.met, true);
    // With rows of one job for osu_latency's loop, the first and warm rows of two fresh jobs are
    // shown but do not decide: they carry the VM's job-to-job speed levels.
    const levels = targets({ ...m, firstRow: m.firstRow.map((f) => ({ ...f, first: 0.42 })) }).find((x) => x.what.startsWith('4.'))!;
    assert.equal(levels.met, true);
    assert.match(levels.figure, /^1\.40-1\.50; 1\.05-1\.10; 1\.04-1\.20$/);
    // The bcast's row names the collective over its bound.
    const over = targets(cases[1]![1]).find((x) => x.met === false)!;
    assert.match(over.figure, /4\.30.*over: bcast$/);
  });

  it('says "not measured" rather than judging what the run did not measure', () => {
    const m = passing();
    const t = targets({ ...m, startup: [m.startup[0]!], oneSided: [] });
    for (const what of ['6. shared memory', '6. launch', '3. osu_acc', '3. Fetch_and_op']) {
      const x = t.find((y) => y.what.startsWith(what))!;
      assert.equal(x.met, null, what);
      assert.equal(x.figure, 'not measured');
    }
  });

  it('prints tables whose ratios are their figures\' and the README link the run gives', () => {
    const text = summary(passing(), FACTS).join('\n');
    assert.match(text, /one run of `node dist\/bench\/compare\/small-messages\.js --out bench\/compare\/results\/x\.md --readme README\.md` \(21 minutes\) at abc1234/);
    assert.match(text, /\[x\.md\]\(bench\/compare\/results\/x\.md\)/);
    assert.match(text, /\(\[measuring\.md\]\(docs\/measuring\.md\)\)/);
    // The page's own copy links from the page's folder.
    const onPage = summary(passing(), { ...FACTS, page: 'x.md', toRoot: '../../../' }).join('\n');
    assert.match(onPage, /\[x\.md\]\(x\.md\)/);
    assert.match(onPage, /\(\[measuring\.md\]\(\.\.\/\.\.\/\.\.\/docs\/measuring\.md\)\)/);
    assert.match(text, /\| 1 KiB \| 0\.20 \/ 0\.30 \(\*\*0\.67\*\*\) \| 2048 \/ 1024 \(\*\*2\.00\*\*\) \| 10\.0 \/ 9\.00 \(\*\*1\.11\*\*\), spread 10 % \/ 30 % \| 12\.0 \/ 10\.0 \(\*\*1\.20\*\*\) \|/);
    assert.match(text, /\| bcast \| 0\.50 \/ 1\.00 \| \*\*0\.50\*\* \| 0\.01 \/ 1\.00 \| \*\*0\.010\*\* \|/);
    assert.match(text, /\| Accumulate \(SUM\) 64 KiB \| 2\.00 \| 600\.00 \| \*\*0\.0033\*\* \|/);
    // Ranges of ratios keep two significant digits below 0.1, as single ratios do.
    assert.match(text, /\| 3\. osu_acc_latency 128 B - 64 KiB \| 0\.0033-0\.37 \|/);
    assert.match(text, /\| first row \| 0\.30-0\.33 \| 0\.20-0\.21 \| \*\*1\.50-1\.57\*\* \|/);
    assert.match(text, /first-row\.js\): first row, warm row of the same job \| 0\.25-0\.30, 0\.24-0\.25 \| \| first \/ warm \*\*1\.04-1\.20\*\* \|/);
    assert.match(text, /\| 4\. first timed 8-byte row [^|]*\| 1\.07-1\.10; 1\.05-1\.10; 1\.04-1\.20 \| ≤ 1\.3 \| yes \|/);
    assert.match(text, /first-row\.js --omb\): first row, warm row of the same job \| 0\.21-0\.22, 0\.20 \| \| first \/ warm \*\*1\.05-1\.10\*\* \|/);
    assert.match(text, /\| 32 \| 1300 \/ 1200 \| \*\*1\.08\*\* \| 1100, \*\*0\.92\*\* \| 1\.20 \/ 4\.50 \| \*\*0\.27\*\* \|/);
  });

  it('replaces the README\'s block and nothing else, and refuses a file without the markers', () => {
    const before = `# title\ntext\n${README_BEGIN}\nold figures\n${README_END}\nafter\n`;
    const after = replaceBlock(before, ['new', 'figures']);
    assert.equal(after, `# title\ntext\n${README_BEGIN}\nnew\nfigures\n${README_END}\nafter\n`);
    assert.equal(replaceBlock(after, ['again']), `# title\ntext\n${README_BEGIN}\nagain\n${README_END}\nafter\n`);
    assert.throws(() => replaceBlock('# no markers\n', ['x']), /has no .*small-messages:begin/);
    assert.throws(() => replaceBlock(`${README_END}\n${README_BEGIN}\n`, ['x']), /has no/);
  });

  it('reads spread.sh\'s table and first-row.sh\'s lines as the scripts print them', () => {
    const spread = [
      'osu_bw, 5 runs per side: median MB/s, spread = fastest / slowest - 1',
      '| Size (B) | tsmpi median | tsmpi spread | MPICH median | MPICH spread | ratio of medians |',
      '|---:|---:|---:|---:|---:|---:|',
      '| 1 | 5.70 | 25 % | 9.81 | 28 % | 0.58 |',
      '| 65536 | 9133.03 | 148 % | 4475.46 | 30 % | 2.04 |',
    ].join('\n');
    assert.deepEqual(parseSpread(spread), [
      { size: 1, tsmpi: 5.7, tsmpiSpread: 0.25, mpich: 9.81, mpichSpread: 0.28 },
      { size: 65536, tsmpi: 9133.03, tsmpiSpread: 1.48, mpich: 4475.46, mpichSpread: 0.3 },
    ]);
    const first = 'run 1: tsmpi first 0.33 | before 3.65 | tsmpi warm (8 B row of 0:64, whole table warmed) 0.27 | MPICH first 0.19\n' +
      'run 2: tsmpi first 0.19 | before 1.73 | tsmpi warm (8 B row of 0:64, whole table warmed) 0.19 | MPICH first 0.19 ' +
      '| a program\'s loop: first 0.43, warm 0.20\n' +
      'run 3: tsmpi first 0.2 | before 1.7 | tsmpi warm (8 B row of 0:64, whole table warmed) 0.19 | MPICH first 0.18 ' +
      '| a program\'s loop: first 0.4, warm 0.21 | osu_latency\'s loop in one job: first 0.22, warm 0.21\n';
    assert.deepEqual(parseFirstRow(first), [
      { first: 0.33, before: 3.65, warm: 0.27, mpichFirst: 0.19, loopFirst: null, loopWarm: null, ombFirst: null, ombWarm: null },
      { first: 0.19, before: 1.73, warm: 0.19, mpichFirst: 0.19, loopFirst: 0.43, loopWarm: 0.2, ombFirst: null, ombWarm: null },
      { first: 0.2, before: 1.7, warm: 0.19, mpichFirst: 0.18, loopFirst: 0.4, loopWarm: 0.21, ombFirst: 0.22, ombWarm: 0.21 },
    ]);
    assert.deepEqual(parseSpread('nothing'), []);
    assert.deepEqual(parseFirstRow('run 1: tsmpi first  | before'), []);
  });
});
