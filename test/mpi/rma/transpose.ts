/**
 * Derived target datatypes, as MPICH's transpose tests use them: rank 0 holds an N x M matrix
 * and every other rank writes the transpose of its own copy into it with one Put of a
 * contiguous origin against a vector-of-columns target type (fence), reads it back with a Get
 * through the same type, accumulates through an indexed type (lock), and fetches with
 * Get_accumulate through a vector; odd sizes; Allocate (direct on a node) and Create (agent).
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const N = 7;
const M = 5;

for (const flavor of ['allocate', 'create'] as const) {
  const bytes = 8 * N * M * size;
  const win = flavor === 'allocate' ? MPI.Win.Allocate(bytes, 8, MPI.INFO_NULL, comm)
    : MPI.Win.Create(new Float64Array(N * M * size), 8, MPI.INFO_NULL, comm);
  const memory = win.tomemory() as ArrayBufferView;
  const mine = new Float64Array(memory.buffer, memory.byteOffset, N * M * size);
  // Column j of an N x M row-major matrix: N doubles, stride M; M columns side by side (extent 8).
  const column = MPI.DOUBLE.Create_vector(N, 1, M);
  const columnAt = column.Create_resized(0, 8).Commit();
  const a = Float64Array.from({ length: M * N }, (_, i) => rank * 1000 + i);
  win.Fence();
  // Rank r writes its M x N matrix transposed into block r of rank 0's memory.
  if (rank !== 0 || size === 1) win.Put(a, 0, [rank * N * M, M, columnAt]);
  win.Fence();
  if (rank === 0) {
    for (let r = size === 1 ? 0 : 1; r < size; r++) {
      let bad = -1;
      for (let i = 0; i < N && bad < 0; i++) {
        for (let j = 0; j < M; j++) {
          // Element (i, j) of the N x M result is element (j, i) of rank r's M x N source.
          if (mine[r * N * M + i * M + j] !== r * 1000 + j * N + i) {
            bad = i * M + j;
            break;
          }
        }
      }
      t.check(bad < 0, `${flavor}: transposed block of rank ${r}: first wrong element ${bad}`);
    }
  }
  // Read it back through the same type: the original order again.
  const back = new Float64Array(M * N);
  const r = size === 1 ? 0 : Math.max(1, rank);
  win.Fence();
  win.Get(back, 0, [r * N * M, M, columnAt]);
  win.Fence();
  let bad = -1;
  for (let i = 0; i < M * N; i++) if (back[i] !== r * 1000 + i) { bad = i; break; }
  t.check(bad < 0, `${flavor}: Get through the column type from block ${r}: element ${bad} is ${back[bad]}`);

  // Accumulate into every third element of block 0 through an indexed type, under a lock.
  const picks = Array.from({ length: Math.ceil((N * M) / 3) }, (_, k) => 3 * k);
  const every3 = MPI.DOUBLE.Create_indexed(picks.map(() => 1), picks).Commit();
  comm.Barrier();
  win.Lock(0, MPI.LOCK_SHARED);
  win.Accumulate(new Float64Array(picks.length).fill(1), 0, [0, 1, every3], MPI.SUM);
  win.Unlock(0);
  comm.Barrier();
  if (rank === 0 && size > 1) {
    // Block 0 started as zeros (rank 0 put nothing there): each picked element is now size.
    for (const k of picks) t.equal(mine[k], size, `${flavor}: accumulate through the indexed type at ${k}`);
    t.equal(mine[1], 0, `${flavor}: elements between the picks are untouched`);
  }
  comm.Barrier(); // rank 0 has checked before anyone goes on to the Get_accumulate below
  // Get_accumulate through a vector (every other of 4 elements of block 0's last row).
  const pair = MPI.DOUBLE.Create_vector(2, 1, 2).Commit();
  const old = new Float64Array(2);
  win.Lock(0, MPI.LOCK_EXCLUSIVE);
  win.Get_accumulate(Float64Array.of(0.5, 0.25), old, 0, [N * M - 4, 1, pair], MPI.SUM);
  win.Unlock(0);
  comm.Barrier();
  if (rank === 0 && size > 1) {
    t.equal(mine[N * M - 4], (N * M - 4) % 3 === 0 ? size + 0.5 * size : 0.5 * size, `${flavor}: Get_accumulate, first element`);
    t.equal(mine[N * M - 2], ((N * M - 2) % 3 === 0 ? size : 0) + 0.25 * size, `${flavor}: Get_accumulate, second element`);
    t.equal(mine[N * M - 3], (N * M - 3) % 3 === 0 ? size : 0, `${flavor}: Get_accumulate skipped the stride gap`);
  }
  pair.Free();
  every3.Free();
  columnAt.Free();
  column.Free();
  win.Free();
}
MPI.Finalize();
t.finish(rank);
