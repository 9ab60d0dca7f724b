/**
 * dash::Mutex, re-implemented with its own window (research 000 §2.4, thesis Fig. 4.3), and the
 * thesis' optimised variant (§4.3.2): an MCS queue whose hand-over is a point-to-point message
 * (thesis §3.5): the waiter Recv's an empty message from its predecessor, the releaser Sends it.
 *
 * Window (LockWindow, disp_unit 1), every rank: next @0 (int32 successor, -1 = ∅), tail @64
 * (int32, used at rank 0, the main process). Messages: empty Uint8Array on a communicator
 * duplicated from ctx.comm for this lock (its own context, so hand-overs never match anyone
 * else's messages), tag 0.
 *
 * `dash` (Fig. 4.3):
 *   acquire: next := -1 (direct store); pred := Fetch_and_op(rank → tail@0, REPLACE); Flush(0)
 *            pred ≠ ∅: Fetch_and_op(rank → pred.next, REPLACE) (result unused); Flush(pred);
 *                      Recv(empty, pred)
 *   release: old := Compare_and_swap(tail@0: rank → ∅); Flush(0); old = rank → done
 *            else loop { pause (Iprobe); succ := Fetch_and_op(NO_OP, own next); Flush(rank) } until ≠ ∅
 *            Send(empty, succ)
 * `dash-opt` (the thesis' optimisations 1–3, in order):
 *   1. release reads `next` first and skips the CAS on the main process when a successor is known;
 *   2. that read and the wait-for-successor loop are direct loads of the own window part;
 *   3. registration at the predecessor is a Put (+ Flush) instead of a Fetch_and_op.
 * tryAcquire (both): Compare_and_swap(tail@0: ∅ → rank); Flush(0).
 *
 * Deviations: DASH's team metadata loads are left out (as in the thesis' re-implementation);
 * the message goes over a duplicated communicator instead of the user's (DASH uses its team's);
 * the release's wait loop uses Waiter.pause() (Iprobe, then naps) like every loop here; the
 * thesis' optimisation 1 reads `next` with Fetch_and_op(NO_OP) before optimisation 2 replaces it
 * by a direct load: we implement the end state (2) only.
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI, type Intracomm } from '../../index.js';
import type { LockContext } from '../context.js';
import { LockWindow, WindowLayout } from '../context.js';
import { type Lock, LockStats, type LockSpec } from '../lock.js';
import type { Waiter } from '../wait.js';
import { NIL, Rma32 } from './rma32.js';

const LAYOUT = new WindowLayout().field('next', 4).field('tail', 4);
const NEXT = LAYOUT.at('next');
const TAIL = LAYOUT.at('tail');
const MAIN = 0;
const TAG = 0;

export class DashMutex implements Lock {
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly rma: Rma32;
  private readonly waiter: Waiter;
  private readonly rank: number;
  private readonly comm: Intracomm;
  private readonly empty = new Uint8Array(0);

  constructor(ctx: LockContext, readonly name: 'dash' | 'dash-opt') {
    this.rank = ctx.rank;
    this.comm = ctx.comm.Dup();
    this.lw = new LockWindow(ctx.comm, LAYOUT.size);
    this.rma = new Rma32(this.lw.win);
    this.lw.i32[NEXT >> 2] = NIL;
    this.lw.i32[TAIL >> 2] = NIL;
    this.waiter = ctx.waiter();
    ctx.comm.Barrier();
  }

  private get opt(): boolean {
    return this.name === 'dash-opt';
  }

  acquire(): void {
    Atomics.store(this.lw.i32, NEXT >> 2, NIL);
    const pred = this.rma.fao(this.rank, MAIN, TAIL, MPI.REPLACE);
    if (pred === NIL) {
      this.stats.immediate++;
      return;
    }
    this.stats.delayed++;
    if (this.opt) this.rma.put(this.rank, pred, NEXT);
    else this.rma.fao(this.rank, pred, NEXT, MPI.REPLACE);
    this.comm.Recv(this.empty, pred, TAG);
  }

  tryAcquire(): boolean {
    Atomics.store(this.lw.i32, NEXT >> 2, NIL);
    if (this.rma.cas(this.rank, NIL, MAIN, TAIL) !== NIL) return false;
    this.stats.immediate++;
    return true;
  }

  release(): void {
    let succ: number;
    if (this.opt) {
      succ = Atomics.load(this.lw.i32, NEXT >> 2);
      if (succ === NIL) {
        if (this.rma.cas(NIL, this.rank, MAIN, TAIL) === this.rank) return;
        this.waiter.reset();
        while ((succ = Atomics.load(this.lw.i32, NEXT >> 2)) === NIL) this.waiter.pause();
        this.waiter.reset();
      }
    } else {
      if (this.rma.cas(NIL, this.rank, MAIN, TAIL) === this.rank) return;
      this.waiter.reset();
      for (;;) {
        this.waiter.pause();
        succ = this.rma.load(this.rank, NEXT);
        if (succ !== NIL) break;
      }
      this.waiter.reset();
    }
    this.comm.Send(this.empty, succ, TAG);
  }

  free(): void {
    this.lw.free();
    this.comm.Free();
  }
}

export const DASH: LockSpec = {
  name: 'dash',
  family: 'paper',
  description: 'dash::Mutex re-implementation: MCS with Send/Recv hand-over (thesis Fig. 4.3, 000 §2.4)',
  rw: false,
  tryable: true,
  hierarchical: false,
  defaults: {},
  make: (ctx) => new DashMutex(ctx, 'dash'),
};

export const DASH_OPT: LockSpec = {
  name: 'dash-opt',
  family: 'paper',
  description: 'dash::Mutex optimised: next checked first (direct load), Put registration (000 §2.4, thesis §4.3.2)',
  rw: false,
  tryable: true,
  hierarchical: false,
  defaults: {},
  make: (ctx) => new DashMutex(ctx, 'dash-opt'),
};
