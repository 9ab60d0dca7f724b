/** osu_gather: OMB's OSU MPI Gather Latency Test on tsmpi (see coll.ts for the loop and output). */
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_gather',
  title: 'OSU MPI Gather Latency Test',
  prepare: (comm, size) => {
    const s = new Uint8Array(size);
    const r = new Uint8Array(comm.rank === 0 ? size * comm.size : 0);
    return () => comm.Gather(s, comm.rank === 0 ? r : null, 0);
  },
});
