/** osu_alltoall: OMB's OSU MPI All-to-All Personalized Exchange Latency Test on tsmpi (see coll.ts for the loop and output). */
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_alltoall',
  title: 'OSU MPI All-to-All Personalized Exchange Latency Test',
  prepare: (comm, size) => {
    const s = new Uint8Array(size * comm.size);
    const r = new Uint8Array(size * comm.size);
    return () => comm.Alltoall(s, r);
  },
});
