/** osu_bcast: OMB's OSU MPI Broadcast Latency Test on tsmpi (see coll.ts for the loop and output). */
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_bcast',
  title: 'OSU MPI Broadcast Latency Test',
  prepare: (comm, size) => {
    const buf = new Uint8Array(size);
    return () => comm.Bcast(buf, 0);
  },
});
