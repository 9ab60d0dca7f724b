/** osu_barrier: OMB's OSU MPI Barrier Latency Test on tsmpi (see coll.ts for the loop and output). */
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_barrier',
  title: 'OSU MPI Barrier Latency Test',
  sizeless: true,
  prepare: (comm) => () => comm.Barrier(),
});
