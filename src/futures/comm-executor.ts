/**
 * MPICommExecutor, after mpi4py.futures.MPICommExecutor: a pool made inside a program started
 * the usual way (no --import flag), from the ranks of a communicator. Collective over `comm`:
 *
 *   const executor = await MPICommExecutor(MPI.COMM_WORLD, 0);
 *   if (executor !== null) {            // the root: the other ranks of comm are its workers
 *     console.log(await executor.map(f, xs));
 *     await executor.shutdown();        // stops the workers
 *   }                                   // the others get null once the root has shut down
 *
 * mpi4py's is a context manager (`with MPICommExecutor(comm, root) as executor:`); JavaScript
 * has none, so the root's shutdown plays the end of the `with` block. The pool talks on a Dup
 * of `comm`, so no message of the program can match one of its.
 */
import { MPI, type Intracomm } from '../index.js';
import { MPIPoolExecutor, OWN_POOL, maxWorkersOf, type MPIPoolExecutorOptions } from './executor.js';
import { WorkerPool } from './pool.js';
import { describeValue } from './task.js';
import { serve } from './worker.js';

/**
 * Collective over `comm`: on `root`, an executor whose workers are the other ranks of comm (its
 * shutdown stops them); on the others, serves tasks until then and resolves to null.
 */
export async function MPICommExecutor(comm: Intracomm = MPI.COMM_WORLD, root = 0,
                                      options: MPIPoolExecutorOptions = {}): Promise<MPIPoolExecutor | null> {
  if (!(comm instanceof MPI.Intracomm)) {
    throw new MPI.Exception(MPI.ERR_COMM, `MPICommExecutor: comm must be an MPI.Intracomm, got ${describeValue(comm)}`);
  }
  if (!(Number.isInteger(root) && root >= 0 && root < comm.size)) {
    throw new MPI.Exception(MPI.ERR_ROOT, `MPICommExecutor: root ${describeValue(root)} is out of range for a communicator ` +
      `of size ${comm.size} (expected 0..${comm.size - 1})`);
  }
  if (comm.size < 2) {
    throw new MPI.Exception(MPI.ERR_COMM, 'MPICommExecutor: comm has 1 rank; it needs at least one worker besides the root');
  }
  // Every rank checks the same arguments, so a bad one raises everywhere before anyone waits.
  maxWorkersOf(options);
  const own = comm.Dup();
  if (own.rank !== root) {
    await serve(own, root);
    own.Free();
    return null;
  }
  const workers = Array.from({ length: own.size }, (_, i) => i).filter((r) => r !== root);
  const pool = new WorkerPool(own, workers);
  const release = (): void => {
    pool.stop();
    own.Free();
  };
  return new MPIPoolExecutor({ ...options, [OWN_POOL]: { pool, release } } as MPIPoolExecutorOptions);
}
