/**
 * D-MCS, the original (research 001 §2, Listings 2/3; research 000 §2.3 "Original"): the
 * topology-oblivious MPI-3 MCS lock of [SBH16], after "Using Advanced MPI" [GHTL14] §4.7, with
 * MPI_Iprobe in every wait loop (thesis §3.3, here Waiter.pause()).
 *
 * Window (LockWindow, disp_unit 1), packed int64 words as in the original, on every rank:
 *   blocked @0 (1 while waiting), next @8 (successor rank, -1 = ∅), tail @16 (used at rank 0 only).
 *
 * acquire: blocked := 1, next := -1 (direct stores to the own part)
 *          pred := Fetch_and_op(rank → tail@0, REPLACE); Flush(0)
 *          pred ≠ ∅: Accumulate(REPLACE rank → pred.next); Flush(pred); spin (pause) on own blocked
 * release: next = ∅: Compare_and_swap(tail@0: rank → ∅); Flush(0); old = rank → done;
 *                    else spin (pause) on own next
 *          Accumulate(REPLACE 0 → succ.blocked); Flush(succ)
 * tryAcquire: Compare_and_swap(tail@0: ∅ → rank); Flush(0) (never enqueues behind anyone).
 *
 * Deviations (the thesis' two defects of the original, 000 §2.3, fixed):
 *  1. each Accumulate is followed by Flush(target): unflushed, MPI need not perform it before the
 *     next synchronisation call, so a hand-over could wait for the releaser's next acquire;
 *  2. origin buffers are preallocated members, never stack buffers freed on return: no origin
 *     buffer is reused before the operation completes (and each operation is flushed anyway).
 * Polling reads the low 32 bits of the own int64 words (little-endian; every value is a rank or
 * 0/1, so exact) to allocate no BigInt per poll; RMA operations use BigInt64Array buffers, i.e.
 * MPI.INT64_T, as the original.
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import type { LockContext } from '../context.js';
import { LockWindow } from '../context.js';
import { type Lock, LockStats, type LockSpec } from '../lock.js';
import type { Waiter } from '../wait.js';

const BLOCKED = 0;
const NEXT = 8;
const TAIL = 16;
const MASTER = 0;
const NIL64 = -1n;

export class DMcs implements Lock {
  readonly name = 'dmcs';
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly own64: BigInt64Array;
  private readonly waiter: Waiter;
  private readonly rank: number;
  /** Preallocated origins/results (int64) and their low-word views. */
  private readonly myRank64: BigInt64Array;
  private readonly nil64 = BigInt64Array.of(NIL64);
  private readonly zero64 = BigInt64Array.of(0n);
  private readonly result64 = new BigInt64Array(1);
  private readonly resultLo: Int32Array;

  constructor(ctx: LockContext) {
    this.rank = ctx.rank;
    this.lw = new LockWindow(ctx.comm, 64);
    this.own64 = new BigInt64Array(this.lw.mem.buffer, this.lw.mem.byteOffset, 3);
    this.own64[0] = 0n;
    this.own64[1] = NIL64;
    this.own64[2] = NIL64;
    this.myRank64 = BigInt64Array.of(BigInt(ctx.rank));
    this.resultLo = new Int32Array(this.result64.buffer, 0, 1);
    this.waiter = ctx.waiter();
    ctx.comm.Barrier(); // every tail/next initialised before anyone enqueues
  }

  private ownLo(disp: number): number {
    return Atomics.load(this.lw.i32, disp >> 2);
  }

  private enqueue(): number {
    this.own64[0] = 1n;
    this.own64[1] = NIL64;
    this.lw.win.Fetch_and_op(this.myRank64, this.result64, MASTER, TAIL, MPI.REPLACE);
    this.lw.win.Flush(MASTER);
    return this.resultLo[0]!;
  }

  acquire(): void {
    const pred = this.enqueue();
    if (pred === -1) {
      this.stats.immediate++;
      return;
    }
    this.stats.delayed++;
    this.lw.win.Accumulate(this.myRank64, pred, NEXT, MPI.REPLACE);
    this.lw.win.Flush(pred); // defect 1 fixed
    this.waiter.reset();
    while (this.ownLo(BLOCKED) !== 0) this.waiter.pause();
    this.waiter.reset();
  }

  tryAcquire(): boolean {
    this.own64[0] = 0n;
    this.own64[1] = NIL64;
    this.lw.win.Compare_and_swap(this.myRank64, this.nil64, this.result64, MASTER, TAIL);
    this.lw.win.Flush(MASTER);
    if (this.resultLo[0] !== -1) return false;
    this.stats.immediate++;
    return true;
  }

  release(): void {
    let succ = this.ownLo(NEXT);
    if (succ === -1) {
      this.lw.win.Compare_and_swap(this.nil64, this.myRank64, this.result64, MASTER, TAIL);
      this.lw.win.Flush(MASTER);
      if (this.resultLo[0] === this.rank) return;
      this.waiter.reset();
      while ((succ = this.ownLo(NEXT)) === -1) this.waiter.pause();
      this.waiter.reset();
    }
    this.lw.win.Accumulate(this.zero64, succ, BLOCKED, MPI.REPLACE);
    this.lw.win.Flush(succ); // defect 1 fixed; zero64 is a member (defect 2 fixed)
  }

  free(): void {
    this.lw.free();
  }
}

export const DMCS: LockSpec = {
  name: 'dmcs',
  family: 'paper',
  description: 'D-MCS original: int64 MCS with Fetch_and_op/CAS/Accumulate, Iprobe, flushes added (001 §2, 000 §2.3)',
  rw: false,
  tryable: true,
  hierarchical: false,
  defaults: {},
  make: (ctx) => new DMcs(ctx),
};
