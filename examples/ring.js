// Ring: a token goes once around all ranks with blocking Send and Recv.
//   npx tsmpiexec -n 4 node examples/ring.js
// Rank 0 starts the token at 0; every other rank receives it from its left neighbour, adds its
// own rank and passes it to the right. When it comes back, rank 0 holds 0 + 1 + ... + (size - 1).
import { MPI } from 'tsmpi';

MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const TAG = 42; // any tag up to MPI.TAG_UB; both sides must agree on it

// A buffer is a typed array: Int32Array travels as MPI.INT, its length is the count.
const token = new Int32Array(1);
if (rank === 0) {
  comm.Send(token, right, TAG);             // start the token at 0
  comm.Recv(token, left, TAG);              // ...and wait for it to come back
  console.log(`rank 0: token came back with ${token[0]} after visiting ${size} ranks`);
} else {
  comm.Recv(token, left, TAG);              // blocks until the left neighbour has sent
  token[0] += rank;
  console.log(`rank ${rank}: got the token from rank ${left}, passing ${token[0]} to rank ${right}`);
  comm.Send(token, right, TAG);
}

MPI.Finalize();
