/**
 * Small collectives through the node segment's cells (coll/shm-small.ts): many generations in
 * a row of every kind, with every root and odd sizes, so a slot overwritten too early or a
 * generation read twice shows as wrong data: Bcast, Reduce, Allreduce (also IN_PLACE), Allgather,
 * Alltoall and Barrier, sizes on both sides of the cell limit (1024 and 1025 bytes: cells,
 * then a schedule) interleaved, and a non-blocking Ibcast in flight across them; then Bcasts
 * and Reduces whose roots and contributors run ahead of a stalling rank. Every value depends
 * on the round, the rank and the index, and is checked exactly.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const ROUNDS = Number(process.argv[2] ?? 300);
const SIZES = [1, 3, 8, 13, 100, 255, 256]; // int32 elements: up to 1024 bytes, the cell limit
const val = (round: number, r: number, i: number) => ((round * 7919 + r * 104729 + i * 31) % 1000003) - 500000;

let bad = 0;
const expect = (ok: boolean, what: string) => {
  if (!ok && bad++ < 10) t.check(false, what);
};

const pending = new Int32Array(64);
let base = -1; // rank 0 broadcasts base + i
if (rank === 0) for (let i = 0; i < 64; i++) pending[i] = base + i;
let pendingReq = comm.Ibcast(pending, 0);
for (let round = 0; round < ROUNDS; round++) {
  const n = SIZES[round % SIZES.length]!;
  const root = round % size;
  // Bcast from every root in turn.
  const b = new Int32Array(n);
  if (rank === root) for (let i = 0; i < n; i++) b[i] = val(round, root, i);
  comm.Bcast(b, root);
  for (let i = 0; i < n; i++) expect(b[i] === val(round, root, i), `round ${round}: Bcast[${i}] from ${root} = ${b[i]}`);
  // Allreduce SUM, and IN_PLACE every other round.
  const mine = new Int32Array(n);
  for (let i = 0; i < n; i++) mine[i] = val(round, rank, i);
  const sum = new Int32Array(n);
  if (round % 2 === 0) comm.Allreduce(mine, sum, MPI.SUM);
  else {
    sum.set(mine);
    comm.Allreduce(MPI.IN_PLACE, sum, MPI.SUM);
  }
  for (let i = 0; i < n; i++) {
    let want = 0;
    for (let r = 0; r < size; r++) want += val(round, r, i);
    expect(sum[i] === want, `round ${round}: Allreduce[${i}] = ${sum[i]}, want ${want}`);
  }
  // Reduce MAX to every root in turn.
  const max = new Int32Array(n).fill(-7);
  comm.Reduce(mine, max, MPI.MAX, root);
  if (rank === root) {
    for (let i = 0; i < n; i++) {
      let want = -Infinity;
      for (let r = 0; r < size; r++) want = Math.max(want, val(round, r, i));
      expect(max[i] === want, `round ${round}: Reduce[${i}] at ${root} = ${max[i]}, want ${want}`);
    }
  } else for (let i = 0; i < n; i++) expect(max[i] === -7, `round ${round}: Reduce touched a non-root's recvbuf`);
  // Allgather and Alltoall of blocks that fill a cell at most (size x block <= 1024 bytes for Alltoall).
  const block = Math.max(1, Math.floor(n / size));
  const all = new Int32Array(block * size);
  comm.Allgather(mine.subarray(0, block), all);
  for (let r = 0; r < size; r++) {
    for (let i = 0; i < block; i++) expect(all[r * block + i] === val(round, r, i), `round ${round}: Allgather from ${r}[${i}]`);
  }
  const out = new Int32Array(block * size);
  const into = new Int32Array(block * size);
  for (let r = 0; r < size; r++) for (let i = 0; i < block; i++) out[r * block + i] = val(round, rank, r * 1000 + i);
  comm.Alltoall(out, into);
  for (let r = 0; r < size; r++) {
    for (let i = 0; i < block; i++) expect(into[r * block + i] === val(round, r, rank * 1000 + i), `round ${round}: Alltoall from ${r}[${i}]`);
  }
  if (round % 5 === 0) comm.Barrier();
  // Past the cell limit: a schedule in between the cells' generations.
  if (round % 7 === 0) {
    const big = new Uint8Array(1025);
    if (rank === root) big.fill(round & 0xff);
    comm.Bcast(big, root);
    expect(big.every((x) => x === (round & 0xff)), `round ${round}: 1025-byte Bcast`);
  }
  if (round % 50 === 49) {
    pendingReq.Wait();
    for (let i = 0; i < 64; i++) expect(pending[i] === base + i, `Ibcast ${round}[${i}] = ${pending[i]}, want ${base + i}`);
    base = round;
    if (rank === 0) for (let i = 0; i < 64; i++) pending[i] = base + i;
    pendingReq = comm.Ibcast(pending, 0);
  }
}
pendingReq.Wait();

// Run-ahead: a Bcast root and the contributors of a Reduce may get up to DEPTH - 1 calls ahead
// of a slow rank (shm-small.ts), reusing their slots; the slow rank (another one every 40
// rounds) stalls now and then, so a slot reused a call too early shows as a later round's value.
for (let round = 0; round < ROUNDS; round++) {
  const slow = Math.floor(round / 40) % size;
  if (rank === slow && round % 3 === 0) {
    const until = performance.now() + 0.02 + (round % 7) * 0.03;
    while (performance.now() < until);
  }
  const root = (slow + 1) % size;
  const b = new Int32Array(3);
  if (rank === root) for (let i = 0; i < 3; i++) b[i] = val(round, root, i);
  comm.Bcast(b, root);
  for (let i = 0; i < 3; i++) expect(b[i] === val(round, root, i), `run-ahead ${round}: Bcast[${i}] from ${root} = ${b[i]}`);
  const mine = new Float64Array([val(round, rank, 0), val(round, rank, 1)]);
  const sum = new Float64Array(2);
  comm.Reduce(mine, sum, MPI.SUM, slow);
  if (rank === slow) {
    for (let i = 0; i < 2; i++) {
      let want = 0;
      for (let r = 0; r < size; r++) want += val(round, r, i);
      expect(sum[i] === want, `run-ahead ${round}: Reduce[${i}] at ${slow} = ${sum[i]}, want ${want}`);
    }
  }
}
t.equal(bad, 0, 'wrong values');
MPI.Finalize();
t.finish(rank);
