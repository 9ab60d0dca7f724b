/**
 * Long accumulates (64 elements and more: one native loop under the part's mutex, the lock
 * area held in device mode for it) stay atomic with every other update of the same elements
 * (MPI-3.1 §11.7.1): in one passive epoch of Lock_all, every rank updates rank 0's part of a
 * Win.Allocate window at once, with
 *   int32 [0, 1000)    Accumulate SUM rank+1 over all 1000 (long)
 *   int32 [0, 10)      Accumulate SUM 1 (short: CPU atomics per element)
 *   int32 [5]          Fetch_and_op SUM 1 (a CPU atomic)
 *   int32 [500, 600)   Get_accumulate SUM 2 (long, fetching: the values it sees grow)
 *   double [0, 300)    Accumulate SUM 0.5 over all 300 (long; exact in binary)
 *   double [100]       Accumulate SUM 0.25 (short: a compare-and-swap loop)
 * Each element's total is known, so an update lost between the long and the short paths shows.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const rounds = Number(process.argv[2] ?? 200);
const INTS = 1000;
const DOUBLES = 300;
const DOUBLES_AT = INTS * 4;
const win = MPI.Win.Allocate(DOUBLES_AT + DOUBLES * 8, 1, MPI.INFO_NULL, comm);
comm.Barrier();
const mine = new Int32Array(INTS).fill(rank + 1);
const ones = new Int32Array(10).fill(1);
const twos = new Int32Array(100).fill(2);
const fetched = new Int32Array(100);
const halves = new Float64Array(DOUBLES).fill(0.5);
const got = new Int32Array(1);
let monotonic = true;
let last = -1;
win.Lock_all();
for (let i = 0; i < rounds; i++) {
  win.Accumulate(mine, 0, [0, INTS, MPI.INT32_T], MPI.SUM);
  win.Accumulate(ones, 0, [0, 10, MPI.INT32_T], MPI.SUM);
  win.Fetch_and_op(Int32Array.of(1), got, 0, 5 * 4, MPI.SUM);
  win.Get_accumulate(twos, fetched, 0, [500 * 4, 100, MPI.INT32_T], MPI.SUM);
  win.Flush(0);
  // Our own earlier additions are in every later fetch, so the first element never shrinks.
  if (fetched[0]! < last) monotonic = false;
  last = fetched[0]!;
  win.Accumulate(halves, 0, [DOUBLES_AT, DOUBLES, MPI.DOUBLE], MPI.SUM);
  win.Accumulate(Float64Array.of(0.25), 0, [DOUBLES_AT + 100 * 8, 1, MPI.DOUBLE], MPI.SUM);
}
win.Unlock_all();
t.check(monotonic, 'the values a long Get_accumulate fetched never went down');
comm.Barrier();
if (rank === 0) {
  const mem = win.tomemory() as Uint8Array;
  const ints = new Int32Array(mem.buffer, mem.byteOffset, INTS);
  const doubles = new Float64Array(mem.buffer, mem.byteOffset + DOUBLES_AT, DOUBLES);
  const everyone = (size * (size + 1)) / 2;
  let wrong = 0;
  let first = '';
  for (let e = 0; e < INTS; e++) {
    let want = rounds * everyone;
    if (e < 10) want += rounds * size;
    if (e === 5) want += rounds * size;
    if (e >= 500 && e < 600) want += 2 * rounds * size;
    if (ints[e] !== want && wrong++ === 0) first = `int32 element ${e}: ${ints[e]}, want ${want}`;
  }
  for (let e = 0; e < DOUBLES; e++) {
    const want = rounds * size * 0.5 + (e === 100 ? rounds * size * 0.25 : 0);
    if (doubles[e] !== want && wrong++ === 0) first = `double element ${e}: ${doubles[e]}, want ${want}`;
  }
  t.check(wrong === 0, `every update counted exactly (${wrong} wrong elements; first: ${first})`);
}
win.Free();
MPI.Finalize();
t.finish(rank);
