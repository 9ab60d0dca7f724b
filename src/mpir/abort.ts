import { userCallSiteSuffix } from './call-site.js';
import { runtime } from './runtime.js';

/**
 * Ends the whole job: the process manager is asked to stop every rank, then this process
 * exits with `code`. Works in any phase (an error before Init still ends the job). The message
 * ends with the user's line that led here (`at /home/u/app.js:12:8`: the first stack frame
 * outside tsmpi), for MPI.Abort and for errors under MPI.ERRORS_ARE_FATAL alike.
 */
export function abortJob(code: number, message: string): never {
  const world = runtime.phase === 'running' ? runtime.requireRunning('MPI.Abort') : null;
  message += userCallSiteSuffix();
  try {
    world?.pm.abort(code, message);
    if (world === null || world.pm.kind === 'singleton') process.stderr.write(`${message}\n`);
  } finally {
    process.exit(code);
  }
}
