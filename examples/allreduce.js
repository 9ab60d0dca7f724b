// Allreduce: every rank contributes, every rank gets the combined result.
//   npx tsmpiexec -n 4 node examples/allreduce.js
import { MPI } from 'tsmpi';

MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;

// 1. Buffers: element-wise sum of a Float64Array (MPI.DOUBLE is inferred from the array type).
//    Rank r contributes [r, 2r, 1], so the sum is [S, 2S, size] with S = 0 + 1 + ... + (size - 1).
const mine = Float64Array.of(rank, 2 * rank, 1);
const sum = new Float64Array(3);
comm.Allreduce(mine, sum, MPI.SUM);

// MPI.IN_PLACE: the receive buffer holds this rank's contribution and is overwritten.
const largest = Float64Array.of(rank * 10);
comm.Allreduce(MPI.IN_PLACE, largest, MPI.MAX);

// 2. Objects (lower-case methods): any value the structured-clone serializer handles.
//    Predefined ops work on numbers and bigints; a function (a, b) => ... on anything, applied in
//    rank order, so it need not be commutative.
const total = comm.allreduce(rank + 1, MPI.SUM);                     // 1 + 2 + ... + size
const names = comm.allreduce([`r${rank}`], (a, b) => a.concat(b));   // ['r0', 'r1', ...]

if (rank === 0) {
  console.log(`Allreduce SUM of [rank, 2*rank, 1]: [${Array.from(sum).join(', ')}]`);
  console.log(`Allreduce MAX in place of rank*10: ${largest[0]}`);
  console.log(`allreduce of rank+1: ${total}`);
  console.log(`allreduce with a function: ${names.join(' ')}`);
}

MPI.Finalize();
