/** osu_allreduce: OMB's OSU MPI Allreduce Latency Test on tsmpi (see coll.ts for the loop and output). */
import { MPI } from '../../src/index.js';
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_allreduce',
  title: 'OSU MPI Allreduce Latency Test',
  prepare: (comm, size) => {
    const n = Math.max(1, size >> 2);
    const s = new Float32Array(n);
    const r = new Float32Array(n);
    return () => comm.Allreduce(s, r, MPI.SUM);
  },
});
