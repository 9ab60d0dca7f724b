/**
 * tsmpi/futures: a pool of MPI worker processes for tasks, after mpi4py.futures.
 *
 *   tsmpiexec -n 5 node --import tsmpi/futures script.js
 *
 *   // script.js (runs on rank 0; ranks 1..4 are the workers)
 *   import { MPIPoolExecutor } from 'tsmpi/futures';
 *   const executor = new MPIPoolExecutor();
 *   const squares = await executor.map((x) => x * x, [1, 2, 3]);
 *   await executor.shutdown();
 *
 * In a program started without the flag (`tsmpiexec -n 1 node script.js`), MPIPoolExecutor
 * spawns its workers (spawn mode, spawn.ts), and MPICommExecutor(comm, root) makes the same pool
 * from the ranks of a communicator. docs/futures.md describes the modes, the task rules and the
 * protocol.
 */
import { startRunningJob } from './job.js';
import { setWorkerScript } from './spawn.js';

export * from './api.js';

// This module is an entry point (of dist/src and of the bundle), so the worker program of spawn
// mode is beside it, whichever chunk spawn.ts ended up in.
setWorkerScript(new URL('./spawned-worker.js', import.meta.url));

// Loaded by `node --import tsmpi/futures`, this is where the workers serve (and exit) and
// rank 0 sets up the pool before the script runs; imported otherwise, it does nothing.
await startRunningJob();
