/**
 * The gathered method's transactions (TSMPI_RMA_METHOD=gather, 003b §3.2d): every rank Puts 64
 * doubles into its neighbour one at a time in reverse order, with an Accumulate between the
 * two halves and two REPLACE accumulates to one element. At the next synchronisation each run
 * of Puts is sorted by displacement and merged into one transfer (31 merges per half), the
 * accumulates keep their place and order (the second REPLACE wins). Checked: the data, and
 * the merge count (argument `merges`: 62 per epoch; `none`: the method is not gather).
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const expect = process.argv[2] ?? 'merges';
const N = 64;
const mem = new Float64Array(N + 2);
const win = MPI.Win.Create(mem, 8, MPI.INFO_NULL, comm);
const next = (rank + 1) % size;
const prev = (rank + size - 1) % size;
const stats = (win as unknown as { gathered: { operations: number; messages: number; merged: number } }).gathered;
for (let epoch = 0; epoch < 3; epoch++) {
  win.Fence();
  const value = new Float64Array(1);
  for (let i = N - 1; i >= 0; i--) {
    value[0] = 1000 * rank + 10 * epoch + i;
    win.Put(value, next, [i, 1, MPI.DOUBLE]);
    if (i === N / 2) win.Accumulate(Float64Array.of(1), next, [N, 1, MPI.DOUBLE], MPI.SUM);
  }
  win.Accumulate(Float64Array.of(1), next, [N + 1, 1, MPI.DOUBLE], MPI.REPLACE);
  win.Accumulate(Float64Array.of(2 + epoch), next, [N + 1, 1, MPI.DOUBLE], MPI.REPLACE);
  win.Fence();
  let bad = -1;
  for (let i = 0; i < N && bad < 0; i++) if (mem[i] !== 1000 * prev + 10 * epoch + i) bad = i;
  t.equal(bad, -1, `epoch ${epoch}: first wrong element of the Puts from rank ${prev}`);
  t.equal(mem[N], epoch + 1, `epoch ${epoch}: the accumulate between the runs`);
  t.equal(mem[N + 1], 2 + epoch, `epoch ${epoch}: the later REPLACE wins`);
}
if (expect === 'merges') t.equal(stats.merged, 3 * 62, 'Puts merged into their neighbours');
else t.equal(stats.merged, 0, 'nothing merged outside the gather method');
win.Free();
MPI.Finalize();
t.finish(rank);
