/** Rank 1 sends 19 bytes with tag 5; rank 0 receives them into 16 (MPI.ERR_TRUNCATE, fatal by default). */
import { MPI } from '../../../src/index.js';

MPI.Init();
const comm = MPI.COMM_WORLD;
if (comm.rank === 1) {
  comm.Send(new Uint8Array(19), 0, 5);
} else {
  comm.Recv(new Uint8Array(16), 1, 5);
}
MPI.Finalize();
