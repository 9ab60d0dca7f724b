/**
 * Rank 0 waits in a receive from the last rank, which never sends: every other rank idles in
 * JavaScript after a barrier (so each pair has talked once). A job in which losing the last
 * rank's host must surface in rank 0 as a lost peer, not as a wait that never ends.
 */
import os from 'node:os';
import { MPI } from '../../../src/index.js';

MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Barrier();
console.log(`rank ${comm.rank} on ${os.hostname()} pid ${process.pid} ready`);
if (comm.rank === 0) {
  comm.Recv(new Uint8Array(8), comm.size - 1, 0);
  console.log('rank 0 received what was never sent');
} else {
  setInterval(() => {}, 1 << 30);
}
