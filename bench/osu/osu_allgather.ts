/** osu_allgather: OMB's OSU MPI Allgather Latency Test on tsmpi (see coll.ts for the loop and output). */
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_allgather',
  title: 'OSU MPI Allgather Latency Test',
  prepare: (comm, size) => {
    const s = new Uint8Array(size);
    const r = new Uint8Array(size * comm.size);
    return () => comm.Allgather(s, r);
  },
});
