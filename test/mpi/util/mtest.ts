import { MPI } from '../../../src/index.js';

/**
 * The MPICH test-suite convention: a program counts its errors; at the end rank 0 prints
 * " No Errors" when nothing failed anywhere, a rank with errors prints " Found N errors" and
 * makes the job fail. (Until collectives exist the count is per rank: a failing rank exits
 * non-zero, which fails the job, so " No Errors" from rank 0 plus exit status 0 means all passed.)
 */
export class MTest {
  errors = 0;

  check(ok: boolean, what: string): void {
    if (ok) return;
    this.errors++;
    const rank = MPI.Is_initialized() && !MPI.Is_finalized() ? MPI.COMM_WORLD.rank : '?';
    process.stdout.write(`rank ${rank}: FAILED: ${what}\n`);
  }

  equal<T>(actual: T, expected: T, what: string): void {
    this.check(Object.is(actual, expected), `${what}: expected ${String(expected)}, got ${String(actual)}`);
  }

  /** Runs fn and checks that it throws an MPI.Exception of errorClass whose message matches. */
  throws(fn: () => unknown, errorClass: number, message: RegExp, what: string): void {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof MPI.Exception)) {
        this.check(false, `${what}: threw ${String(e)}, not an MPI.Exception`);
        return;
      }
      this.equal(e.Get_error_class(), errorClass, `${what}: error class`);
      this.check(message.test(e.message), `${what}: message ${JSON.stringify(e.message)} does not match ${message}`);
      return;
    }
    this.check(false, `${what}: did not throw`);
  }

  /** Call after MPI.Finalize (or instead of it when the test finalizes itself). */
  finish(rank: number): void {
    if (this.errors > 0) {
      process.stdout.write(` Found ${this.errors} errors\n`);
      process.exitCode = 1;
    } else if (rank === 0) {
      process.stdout.write(' No Errors\n');
    }
  }
}
