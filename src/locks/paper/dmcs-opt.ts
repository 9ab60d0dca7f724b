/**
 * Optimised D-MCS (research 000 §2.3, thesis Fig. 3.5 and §4.3.1): the D-MCS queue with a
 * one-byte waiting flag, 64-byte aligned fields (Fig. 3.4 idiom), both local resets before one
 * (here no-op) Win_sync, a flush after every remote write, and the non-atomic MPI_Put for
 * registration and hand-over (thesis §3.4: under MPI.WIN_UNIFIED a waiter may poll a location for a
 * change; one byte for the flag, an aligned int32 for `next`).
 *
 * Window (LockWindow, disp_unit 1), every rank:
 *   locked @0 (uint8, 1 while waiting), next @64 (int32 successor rank, -1 = ∅), tail @128 (int32,
 *   used at rank 0, the main process).
 *
 * acquire: locked := 1; next := -1 (direct stores)
 *          pred := Fetch_and_op(rank → tail@0, REPLACE); Flush(0)
 *          pred ≠ ∅: Put(rank → pred.next); Flush(pred); spin (pause) on own locked
 * release: succ := own next (direct load); succ = ∅: Compare_and_swap(tail@0: rank → ∅); Flush(0);
 *          old = rank → done, else spin (pause) until own next ≠ ∅
 *          Put(uint8 0 → succ.locked); Flush(succ)
 * tryAcquire: Compare_and_swap(tail@0: ∅ → rank); Flush(0).
 *
 * Deviations: int32 instead of C int for ranks (same width); Win_sync is a no-op in tsmpi
 * (window memory is unified), so it is not called; the waiting loops call Waiter.pause() (Iprobe
 * and naps) instead of a bare Iprobe.
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import type { LockContext } from '../context.js';
import { LockWindow, WindowLayout } from '../context.js';
import { type Lock, LockStats, type LockSpec } from '../lock.js';
import type { Waiter } from '../wait.js';
import { NIL, Rma32 } from './rma32.js';

const LAYOUT = new WindowLayout().field('locked', 1).field('next', 4).field('tail', 4);
const LOCKED = LAYOUT.at('locked');
const NEXT = LAYOUT.at('next');
const TAIL = LAYOUT.at('tail');
const MAIN = 0;

export class DMcsOpt implements Lock {
  readonly name = 'dmcs-opt';
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly rma: Rma32;
  private readonly waiter: Waiter;
  private readonly rank: number;
  private readonly unlock = Uint8Array.of(0);

  constructor(ctx: LockContext) {
    this.rank = ctx.rank;
    this.lw = new LockWindow(ctx.comm, LAYOUT.size);
    this.rma = new Rma32(this.lw.win);
    this.lw.i32[NEXT >> 2] = NIL;
    this.lw.i32[TAIL >> 2] = NIL;
    this.waiter = ctx.waiter();
    ctx.comm.Barrier();
  }

  private get next(): number {
    return Atomics.load(this.lw.i32, NEXT >> 2);
  }

  acquire(): void {
    const mem = this.lw.mem;
    mem[LOCKED] = 1;
    Atomics.store(this.lw.i32, NEXT >> 2, NIL);
    const pred = this.rma.fao(this.rank, MAIN, TAIL, MPI.REPLACE);
    if (pred === NIL) {
      this.stats.immediate++;
      return;
    }
    this.stats.delayed++;
    this.rma.put(this.rank, pred, NEXT);
    this.waiter.reset();
    while (Atomics.load(mem, LOCKED) !== 0) this.waiter.pause();
    this.waiter.reset();
  }

  tryAcquire(): boolean {
    this.lw.mem[LOCKED] = 0;
    Atomics.store(this.lw.i32, NEXT >> 2, NIL);
    if (this.rma.cas(this.rank, NIL, MAIN, TAIL) !== NIL) return false;
    this.stats.immediate++;
    return true;
  }

  release(): void {
    let succ = this.next;
    if (succ === NIL) {
      if (this.rma.cas(NIL, this.rank, MAIN, TAIL) === this.rank) return;
      this.waiter.reset();
      while ((succ = this.next) === NIL) this.waiter.pause();
      this.waiter.reset();
    }
    this.lw.win.Put(this.unlock, succ, LOCKED);
    this.lw.win.Flush(succ);
  }

  free(): void {
    this.lw.free();
  }
}

export const DMCS_OPT: LockSpec = {
  name: 'dmcs-opt',
  family: 'paper',
  description: 'D-MCS optimised (thesis Fig. 3.5): 1-byte flag, Put registration/hand-over, flushes, 64-B fields (000 §2.3)',
  rw: false,
  tryable: true,
  hierarchical: false,
  defaults: {},
  make: (ctx) => new DMcsOpt(ctx),
};
