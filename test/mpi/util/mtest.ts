import { MPI } from '../../../src/index.js';
import { EAGER_MAX, SHORT_MAX } from '../../../src/ch_shmem/config.js';

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

/** A byte pattern that differs per (seed, index), so a misplaced or stale byte shows. */
export function fillPattern(buf: Uint8Array, seed: number): void {
  for (let i = 0; i < buf.length; i++) buf[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
}

/** Index of the first byte that breaks the pattern, or -1. */
export function findPatternError(buf: Uint8Array, seed: number, length = buf.length): number {
  for (let i = 0; i < length; i++) if (buf[i] !== ((i * 31 + seed * 7 + (i >> 8)) & 0xff)) return i;
  return -1;
}

/** Message sizes that straddle every protocol limit of the configured (or default) thresholds. */
export function protocolSizes(maxBytes: number): number[] {
  const shortMax = SHORT_MAX.read();
  const eagerMax = EAGER_MAX.read();
  const sizes = new Set<number>([0, 1, 7, 96, 97, 128]);
  for (const limit of [shortMax, eagerMax]) for (const d of [-1, 0, 1]) if (limit + d >= 0) sizes.add(limit + d);
  sizes.add(1 << 20);
  sizes.add(3 * 65536 + 5);
  sizes.add(maxBytes);
  return [...sizes].filter((s) => s <= maxBytes).sort((a, b) => a - b);
}
