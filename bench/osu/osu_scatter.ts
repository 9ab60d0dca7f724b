/** osu_scatter: OMB's OSU MPI Scatter Latency Test on tsmpi (see coll.ts for the loop and output). */
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_scatter',
  title: 'OSU MPI Scatter Latency Test',
  prepare: (comm, size) => {
    const s = new Uint8Array(comm.rank === 0 ? size * comm.size : 0);
    const r = new Uint8Array(size);
    return () => comm.Scatter(comm.rank === 0 ? s : null, r, 0);
  },
});
