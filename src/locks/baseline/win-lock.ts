import { MPI, type Win } from '../../index.js';
import type { LockContext } from '../context.js';
import { type Lock, LockStats, type LockSpec } from '../lock.js';

/**
 * The "MPI" baseline of the thesis (research 000 §2.2): MPI_Win_lock(EXCLUSIVE) on a one-byte window at
 * the master (rank 0). MPI lets Lock return before the lock is held (it may be deferred to the
 * first operation), so acquire issues a one-byte Get and flushes it. A library lock: its
 * contention cannot be counted from outside, so stats stay 0.
 *
 * Research ids cited here: see docs/references.md.
 */
export class WinLock implements Lock {
  readonly name = 'mpi-win-lock';
  readonly stats = new LockStats();
  private readonly win: Win;
  private readonly probe = new Uint8Array(1);

  constructor(ctx: LockContext) {
    this.win = MPI.Win.Allocate(ctx.rank === 0 ? 1 : 0, 1, MPI.INFO_NULL, ctx.comm);
  }

  acquire(): void {
    this.win.Lock(0, MPI.LOCK_EXCLUSIVE);
    this.win.Get(this.probe, 0, [0, 1, MPI.BYTE]);
    this.win.Flush(0);
  }

  release(): void {
    this.win.Unlock(0);
  }

  free(): void {
    this.win.Free();
  }
}

export const WIN_LOCK: LockSpec = {
  name: 'mpi-win-lock',
  family: 'baseline',
  description: 'MPI_Win_lock(EXCLUSIVE) at rank 0 + 1-byte Get + Flush (research 000 §2.2)',
  rw: false,
  tryable: false,
  hierarchical: false,
  defaults: {},
  make: (ctx) => new WinLock(ctx),
};
