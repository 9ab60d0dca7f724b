/**
 * osu_allreduce_persistent: OMB's persistent Allreduce latency (MPI-4 §6.13) on tsmpi: an
 * Allreduce_init request made once per size, each call its Start and Wait (coll.ts: loop, output).
 */
import { MPI } from '../../src/index.js';
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_allreduce_persistent',
  title: 'OSU MPI Persistent Allreduce Latency Test',
  prepare: (comm, size) => {
    const n = Math.max(1, size >> 2);
    const req = comm.Allreduce_init(new Float32Array(n), new Float32Array(n), MPI.SUM);
    return () => {
      req.Start();
      req.Wait();
    };
  },
});
