/**
 * Ranks 0 and 1 exchange 8-byte messages until killed (the other ranks wait in a barrier that
 * never ends): a job to lose a rank or a host under. Prints "pingpong ready" once the first
 * 100 round trips are done.
 */
import { MPI } from '../../../src/index.js';

MPI.Init();
const comm = MPI.COMM_WORLD;
const buf = new Float64Array(1);
for (let i = 0; ; i++) {
  if (i === 100 && comm.rank === 0) console.log(`pingpong ready (ranks on ${comm.size} processes)`);
  if (comm.rank === 0) {
    comm.Send(buf, 1, 0);
    comm.Recv(buf, 1, 0);
  } else if (comm.rank === 1) {
    comm.Recv(buf, 0, 0);
    comm.Send(buf, 0, 0);
  } else comm.Barrier();
}
