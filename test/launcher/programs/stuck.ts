/**
 * A job that never ends, for the state reports: rank 0 blocks in Recv from rank 1 with tag 42
 * (16 bytes), which never comes; rank 1 awaits an Irecv from rank 0 with tag 7 (4 doubles).
 */
import { MPI } from '../../../src/index.js';

MPI.Init();
const comm = MPI.COMM_WORLD;
console.log(`rank ${comm.rank} pid ${process.pid} ready`);
if (comm.rank === 0) {
  comm.Recv(new Uint8Array(16), 1, 42);
} else {
  await comm.Irecv(new Float64Array(4), 0, 7);
}
