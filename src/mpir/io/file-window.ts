import type { Intracomm } from '../comm.js';
import { Ops } from '../op.js';
import { Win } from '../rma/win.js';
import { LOCK_EXCLUSIVE, LOCK_SHARED } from '../rma/win-constants.js';

/**
 * What every rank of an open file must reach, wherever it runs: the shared file pointer and the
 * mutex of atomic mode. Both live in one window of the file's communicator (MPI.Win.Allocate:
 * 8 bytes at rank 0, none elsewhere). The pointer moves by Fetch_and_op under a shared lock,
 * which is atomic against every other accumulate on it; the window goes over shared memory on
 * one host and over UCX one-sided between hosts, so the pointer is one pointer on every host
 * with no rank having to answer messages for it (a pointer owned by a rank that answers
 * requests would stall while that rank computes). The mutex is the exclusive lock of rank 0's
 * part of the window.
 */
export class FileWindow {
  private readonly win: Win;
  private readonly operand = new BigInt64Array(1);
  private readonly result = new BigInt64Array(1);
  private mutexHeld = false;

  /** Collective over `comm`. */
  constructor(comm: Intracomm) {
    this.win = Win.Allocate(comm.Get_rank() === 0 ? 8 : 0, 1, null, comm);
    if (comm.Get_rank() === 0) {
      const m = this.win.tomemory();
      (ArrayBuffer.isView(m) ? new Uint8Array(m.buffer, m.byteOffset, 8) : new Uint8Array(m, 0, 8)).fill(0);
    }
    comm.Barrier();
  }

  /** Adds `n` etypes to the shared pointer; returns its value before. */
  fetchAdd(n: number): number {
    this.operand[0] = BigInt(n);
    this.win.Lock(0, LOCK_SHARED);
    this.win.Fetch_and_op(this.operand, this.result, 0, 0, Ops.SUM);
    this.win.Unlock(0);
    return Number(this.result[0]);
  }

  /** Sets the shared pointer (one rank calls it). */
  set(value: number): void {
    this.operand[0] = BigInt(value);
    this.win.Lock(0, LOCK_SHARED);
    this.win.Fetch_and_op(this.operand, this.result, 0, 0, Ops.REPLACE);
    this.win.Unlock(0);
  }

  /** Runs `body` holding the file's mutex (atomic mode: no other rank's access overlaps it). */
  exclusive<T>(body: () => T): T {
    if (this.mutexHeld) return body();
    this.win.Lock(0, LOCK_EXCLUSIVE);
    this.mutexHeld = true;
    try {
      return body();
    } finally {
      this.mutexHeld = false;
      this.win.Unlock(0);
    }
  }

  /** Collective. */
  free(): void {
    this.win.Free();
  }
}
