/**
 * Running-job mode: `tsmpiexec -n N node --import tsmpi/futures script.js`, Node's spelling of
 * `mpiexec -n N python -m mpi4py.futures script.py`. Node preloads the module named by --import
 * on every rank before the script, and awaits it:
 *
 * - every rank opens an MPI Session and makes the pool's communicator from the process set
 *   mpi://WORLD (a Session, not MPI.Init, so the script may call MPI.Init or not, as it likes);
 * - ranks 1..N-1 serve tasks until rank 0 stops them, then free the communicator, finalize
 *   the Session and exit with status 0: they never run the script;
 * - rank 0 goes on to run the script, whose MPIPoolExecutors share ranks 1..N-1 as workers.
 *   When the script is over (the event loop is empty, or process.exit(0)), rank 0 stops the
 *   workers and finalizes its Session, so every rank of the job ends cleanly. A script that
 *   fails leaves rank 0 with its error status, and the launcher ends the job.
 *
 * Importing 'tsmpi/futures' without the flag (`import { MPIPoolExecutor } from ...` in a
 * script started the usual way) starts nothing: that process has no pool of the job.
 */
import { MPI, type Intracomm, type Session } from '../index.js';
import { WorkerPool } from './pool.js';
import { serve } from './worker.js';

/** The specifier that, given to node's --import, starts running-job mode. */
export const IMPORT_SPECIFIER = 'tsmpi/futures';

let jobPool: WorkerPool | null = null;

/** The pool of the job's other ranks (on rank 0 in running-job mode), else null. */
export function runningJobPool(): WorkerPool | null {
  return jobPool;
}

/** Whether node was told `--import tsmpi/futures` (on its command line or in NODE_OPTIONS). */
export function startedByImportFlag(execArgv: readonly string[] = process.execArgv,
                                    nodeOptions: string = process.env.NODE_OPTIONS ?? ''): boolean {
  const names = (args: readonly string[]): boolean => args.some((a, i) =>
    a === `--import=${IMPORT_SPECIFIER}` || (a === '--import' && args[i + 1] === IMPORT_SPECIFIER));
  return names(execArgv) || names(nodeOptions.split(/\s+/).filter((a) => a.length > 0));
}

/**
 * Running-job mode's start on this rank, when node was started with the flag: a worker serves
 * and exits here; rank 0 returns with the pool set up. Without the flag it does nothing.
 */
export async function startRunningJob(): Promise<void> {
  if (!startedByImportFlag()) return;
  const session = MPI.Session.Init();
  const comm = MPI.Intracomm.Create_from_group(session.Create_group('mpi://WORLD'), 'org.tsmpi.futures');
  if (comm.rank !== 0) {
    await serve(comm, 0);
    end(comm, session);
    process.exit(0);
  }
  const workers = Array.from({ length: comm.size - 1 }, (_, i) => i + 1);
  const pool = new WorkerPool(comm, workers);
  jobPool = pool;
  let ended = false;
  const release = (): void => {
    if (ended) return;
    ended = true;
    pool.stop();
    end(comm, session);
  };
  process.once('beforeExit', release);
  // process.exit() skips beforeExit; 'exit' still lets synchronous MPI calls run. A script that
  // failed (an uncaught error, a non-zero exit) ends at once instead, and the launcher ends the
  // job: a clean end would wait for the workers to finish their tasks first.
  process.once('exit', (code) => {
    if (code === 0) release();
  });
}

function end(comm: Intracomm, session: Session): void {
  comm.Free();
  session.Finalize();
}
