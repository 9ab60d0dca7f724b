import { runtime } from './runtime.js';

/**
 * Ends the whole job: the process manager is asked to stop every rank, then this process
 * exits with `code`. Works in any phase (an error before Init still ends the job).
 */
export function abortJob(code: number, message: string): never {
  const world = runtime.phase === 'running' ? runtime.requireRunning('MPI.Abort') : null;
  try {
    world?.pm.abort(code, message);
    if (world === null || world.pm.kind === 'singleton') process.stderr.write(`${message}\n`);
  } finally {
    process.exit(code);
  }
}
