/**
 * osu_bcast_persistent: OMB's persistent Broadcast latency (MPI-4 §6.13) on tsmpi: a
 * Bcast_init request made once per size, each call its Start and Wait (coll.ts: loop, output).
 */
import { runCollective } from './coll.js';

runCollective({
  name: 'osu_bcast_persistent',
  title: 'OSU MPI Persistent Broadcast Latency Test',
  prepare: (comm, size) => {
    const req = comm.Bcast_init(new Uint8Array(size), 0);
    return () => {
      req.Start();
      req.Wait();
    };
  },
});
