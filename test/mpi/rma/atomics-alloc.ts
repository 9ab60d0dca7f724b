/**
 * Fetch_and_op and Compare_and_swap on one element through node memory (the direct path of
 * osc/direct.ts and osc/atomic.ts) allocate next to nothing per call: no view or DataView of the
 * operands and no target triple. They allocated ~500 B (Fetch_and_op) and ~1000 B
 * (Compare_and_swap) a call; the young generation then grew into fresh pages, and osu_cas_latency's
 * 10,000 timed operations ran for thousands at a time at 4 us instead of 0.7 (a page fault every
 * few calls). What is left: a 64-bit element's BigInts (Atomics on a BigInt64Array takes and
 * gives BigInts) and a boxed double or two where V8 does not inline the window layer.
 *
 * Limits: 64 B a call for 32-bit elements, 240 for 64-bit ones (measured 32 and 96-160), 160 more
 * with more ranks than cores: all below the 500 and 1000 B of before.
 *
 * Every rank r updates its own element at rank (r + 1) % size, so each result is known exactly:
 * Fetch_and_op SUM of 1 returns the call's number, Compare_and_swap(number + 1, number) returns
 * the number and stores the next. int32, int64 (BigInt64Array) and float64 windows.
 */
import os from 'node:os';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';
import { youngGrowth } from '../util/young-generation.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const CALLS = Number(process.argv[2] ?? 2000);
const WARM = 5000;
const target = (rank + 1) % size;

const wins = { i32: MPI.Win.Allocate(8 * size, 8, MPI.INFO_NULL, comm), i64: MPI.Win.Allocate(8 * size, 8, MPI.INFO_NULL, comm),
  f64: MPI.Win.Allocate(8 * size, 8, MPI.INFO_NULL, comm) };
for (const w of Object.values(wins)) w.Lock_all();

const i32 = { one: Int32Array.of(1), next: new Int32Array(1), compare: new Int32Array(1), out: new Int32Array(1) };
const i64 = { one: BigInt64Array.of(1n), next: new BigInt64Array(1), compare: new BigInt64Array(1), out: new BigInt64Array(1) };
const f64 = { one: Float64Array.of(1), next: new Float64Array(1), compare: new Float64Array(1), out: new Float64Array(1) };
const counters = { fopI32: 0, fopI64: 0n, fopF64: 0, casI32: 0, casI64: 0n, casF64: 0 };
let wrong = 0;

// The kinds run one after another, so a type's Compare_and_swap starts where its Fetch_and_op left the element.
const kinds: Record<string, () => void> = {
  'Fetch_and_op int32': () => {
    wins.i32.Fetch_and_op(i32.one, i32.out, target, rank, MPI.SUM);
    wins.i32.Flush(target);
    if (i32.out[0] !== counters.fopI32++) wrong++;
  },
  'Fetch_and_op int64': () => {
    wins.i64.Fetch_and_op(i64.one, i64.out, target, rank, MPI.SUM);
    wins.i64.Flush(target);
    if (i64.out[0] !== counters.fopI64++) wrong++;
  },
  'Fetch_and_op float64': () => {
    wins.f64.Fetch_and_op(f64.one, f64.out, target, rank, MPI.SUM);
    wins.f64.Flush(target);
    if (f64.out[0] !== counters.fopF64++) wrong++;
  },
  'Compare_and_swap int32': () => {
    i32.compare[0] = counters.fopI32 + counters.casI32;
    i32.next[0] = i32.compare[0]! + 1;
    wins.i32.Compare_and_swap(i32.next, i32.compare, i32.out, target, rank);
    wins.i32.Flush(target);
    if (i32.out[0] !== i32.compare[0]) wrong++;
    counters.casI32++;
  },
  'Compare_and_swap int64': () => {
    i64.compare[0] = counters.fopI64 + counters.casI64;
    i64.next[0] = i64.compare[0]! + 1n;
    wins.i64.Compare_and_swap(i64.next, i64.compare, i64.out, target, rank);
    wins.i64.Flush(target);
    if (i64.out[0] !== i64.compare[0]) wrong++;
    counters.casI64++;
  },
  'Compare_and_swap float64': () => {
    f64.compare[0] = counters.fopF64 + counters.casF64;
    f64.next[0] = f64.compare[0]! + 1;
    wins.f64.Compare_and_swap(f64.next, f64.compare, f64.out, target, rank);
    wins.f64.Flush(target);
    if (f64.out[0] !== f64.compare[0]) wrong++;
    counters.casF64++;
  },
};

const baseline = youngGrowth(() => {}, CALLS);
// With more ranks than cores tsmpi leaves V8's tiering budget as it is, and more of the path
// still boxes its numbers after the warm-up: 130-180 B a call at 3 ranks on 2 cores.
const shared = size > os.availableParallelism() ? 160 : 0;
for (const [name, call] of Object.entries(kinds)) {
  for (let k = 0; k < WARM; k++) call();
  const perCall = Math.max(0, youngGrowth(call, CALLS) - baseline) / CALLS;
  // 64-bit elements: the BigInts Atomics takes and gives (and a float64's bit image).
  const limit = (/int32/.test(name) ? 64 : 240) + shared;
  t.check(perCall <= limit, `${name}: the young generation grew by ${perCall.toFixed(1)} bytes a call over ${CALLS} calls ` +
    `(at most ${limit})`);
}
for (const w of Object.values(wins)) w.Unlock_all();
comm.Barrier();
t.equal(wrong, 0, 'every fetched and swapped value as expected');
for (const w of Object.values(wins)) w.Free();
MPI.Finalize();
t.finish(rank);
