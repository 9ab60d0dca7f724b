// One-sided communication: a shared counter in rank 0's window that every rank increments with
// Fetch_and_op, each in its own exclusive lock epoch; rank 0 does nothing to help.
//   npx tsmpiexec -n 4 node examples/counter.js
import { MPI } from 'tsmpi';

MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const ROUNDS = 100;

// Every rank allocates 8 bytes of window memory (disp_unit 8); only rank 0's is used.
const win = MPI.Win.Allocate(8, 8, MPI.INFO_NULL, comm);
const memory = win.tomemory();
const counter = new BigInt64Array(memory.buffer, memory.byteOffset, 1); // rank 0's view of its counter

const one = BigInt64Array.of(1n);      // BigInt64Array travels as MPI.INT64_T
const before = new BigInt64Array(1);   // Fetch_and_op returns the value it replaced
const seen = [];
for (let i = 0; i < ROUNDS; i++) {
  win.Lock(0, MPI.LOCK_EXCLUSIVE);
  win.Fetch_and_op(one, before, 0, 0, MPI.SUM); // counter at rank 0, displacement 0: += 1
  win.Unlock(0);                                 // the operation is complete at rank 0 here
  seen.push(before[0]);
}

comm.Barrier(); // every rank's epochs are over
if (rank === 0) {
  win.Lock(0, MPI.LOCK_SHARED);  // read our own window memory inside an epoch
  const final = counter[0];
  win.Unlock(0);
  console.log(`final count: ${final} (${size} ranks x ${ROUNDS} increments)`);
}
// Each rank fetched distinct, increasing values: no increment was lost or seen twice.
for (let i = 1; i < seen.length; i++) if (seen[i] <= seen[i - 1]) throw new Error(`rank ${rank}: fetched ${seen[i - 1]} then ${seen[i]}`);
win.Free();
MPI.Finalize();
