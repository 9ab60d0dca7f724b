/**
 * Rank 0 waits on the last rank; every other rank idles in JavaScript after a barrier (so each
 * pair has talked once). A job in which losing the last rank's host must surface in rank 0 as
 * a lost peer, not as a wait that never ends. Two ways to wait:
 *  - (no argument) a receive from the last rank, which never sends: the connection is idle
 *    at the cut;
 *  - `stream`: rank 0 sends the last rank 16 MiB messages without end, so data is in flight at
 *    the cut and TCP retransmits instead of probing (its keepalive then never fires);
 *  - `return`: as the first, under MPI.ERRORS_RETURN: rank 0 catches the MPI.Exception.
 */
import os from 'node:os';
import { MPI } from '../../../src/index.js';

const stream = process.argv[2] === 'stream';
const returns = process.argv[2] === 'return';
MPI.Init();
const comm = MPI.COMM_WORLD;
if (returns) comm.Set_errhandler(MPI.ERRORS_RETURN);
const last = comm.size - 1;
comm.Barrier();
const big = new Uint8Array(16 << 20);
if (stream && (comm.rank === 0 || comm.rank === last)) {
  // One whole message first, so the stream runs before anyone says ready.
  if (comm.rank === 0) comm.Send(big, last, 1);
  else comm.Recv(big, 0, 1);
}
console.log(`rank ${comm.rank} on ${os.hostname()} pid ${process.pid} ready`);
if (comm.rank === 0) {
  if (stream) for (;;) comm.Send(big, last, 1);
  try {
    comm.Recv(new Uint8Array(8), last, 0);
    console.log('rank 0 received what was never sent');
  } catch (e) {
    if (!(e instanceof MPI.Exception)) throw e;
    // Under ERRORS_RETURN the lost peer is an MPI.Exception the program may catch.
    console.log(`rank 0 caught MPI.Exception of class ${e.Get_error_class() === MPI.ERR_OTHER ? 'ERR_OTHER' : e.Get_error_class()}: ${e.message}`);
    process.exit(3);
  }
} else if (stream && comm.rank === last) {
  for (;;) comm.Recv(big, 0, 1);
} else {
  setInterval(() => {}, 1 << 30);
}
