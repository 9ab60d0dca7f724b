/** osu_reduce: OMB's OSU MPI Reduce Latency Test on tsmpi (see coll.ts for the loop and output). */
import { MPI } from '../../src/index.js';
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_reduce',
  title: 'OSU MPI Reduce Latency Test',
  prepare: (comm, size) => {
    const n = Math.max(1, size >> 2);
    const s = new Float32Array(n);
    const r = new Float32Array(n);
    return () => comm.Reduce(s, r, MPI.SUM, 0);
  },
});
