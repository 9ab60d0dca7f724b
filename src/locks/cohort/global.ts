/**
 * Global levels of the cohort locks (research 000 §2.9 "Concrete components", §2.1, §2.4,
 * Opt. 4): TAS with exponential backoff, TKT, and the p2p MCS with one queue node per node.
 *
 * TAS ([repo] TasLockCasBo): window (LockWindow, disp unit 1) with one Int32 `flag` at rank 0
 * (the "main process"). acquire: Compare_and_swap(1 over 0) + Flush(0); on failure back off
 * (Backoff, default 1..32 pauses; the thesis spun 1..2^8 ns with Iprobe, but one pause here is an
 * Iprobe of a microsecond or a nap, so its nanosecond range maps to a few pauses) and retry. release: Accumulate(REPLACE 0) + Flush(0). TAS, not TTS: remote test reads cost more
 * than they save (000 §2.9).
 *
 * TKT ([repo] TktLock, Fig. 5.4): Int32 `next` and `serving` at rank 0, each on its own line.
 * acquire: Fetch_and_op(SUM 1, next) + Flush(0), then poll Fetch_and_op(NO_OP, serving) +
 * Flush(0) until it equals the ticket. release: Accumulate(SUM 1, serving) + Flush(0). The
 * release does not need the ticket, so the lock is thread-oblivious.
 *
 * MCS (Opt. 4; [repo] McsLockTwoSidedWithCohortDetection, built on the optimised dash::Mutex
 * p2p MCS of 000 §2.4): one queue node per NODE, in node-shared memory on the node's leader
 * ("local master"); `tail` at rank 0 holds the queue id = the leader's rank. The leaders'
 * parts of a NodeSharedWindow are re-exposed to all ranks with Win.Create (the [repo]'s
 * allocate_per_node), so remote ranks Put into them while node-mates read them directly.
 *   layout per leader part: tail (Int32, used at rank 0 only) | next (Int32, a REAL rank)
 *   acquire (rank r, leader L): next = -1 (direct Atomics.store); pred = Fetch_and_op(REPLACE
 *     L, tail) + Flush(0); if pred != -1: Fetch_and_op(REPLACE r, pred's next) + Flush(pred), then
 *     Recv(1 status byte, ANY_SOURCE) on the lock's own communicator (r knows only the
 *     predecessor's leader, not which rank of that node will release).
 *   release (any rank of the holding node): succ = next (direct Atomics.load); if -1:
 *     Compare_and_swap(-1 over L, tail) + Flush(0), done when it was L, else wait (pause)
 *     until next != -1; Send(status byte, succ).
 *
 * Deviations: the registration in the predecessor's `next` is an atomic Fetch_and_op(REPLACE)
 * (dash::Mutex's original form, Fig. 4.3), not the thesis' optimised Put (000 §2.4 step 3): the
 * releaser polls `next` directly, and MPI guarantees nothing for a concurrently updated word
 * wider than one byte (000 §1.5). Here it bit: a Put is copied byte by byte, and a releaser read
 * rank 2 over -1 half-written as 0xFF000002 (3 ranks, 2 nodes). Atomic operations are applied
 * with JS Atomics on the window memory, so the direct Atomics.load never sees them torn.
 * Int32 words instead of C bools/uint8 (Atomics needs Int32Array; RMA on one
 * aligned word is as good); TAS release with Accumulate(REPLACE) rather than Put, since MPI
 * gives no atomicity between a Put and a concurrent Compare_and_swap on the same location;
 * the p2p messages travel on a Dup of ctx.comm so they can never match a program's receives
 * (the thesis used the lock's communicator with tag 0); the hand-over byte is always 1 here:
 * a global hand-over starts a new cohort, whose pass count restarts from the global level.
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI, type Datatype, type Intracomm, type Win } from '../../index.js';
import { type LockContext, LockWindow, NodeSharedWindow, WindowLayout } from '../context.js';
import { Backoff, type Waiter } from '../wait.js';
import { type GlobalLevel, word } from './levels.js';

export class GlobalTas implements GlobalLevel {
  readonly kind = 'tas';
  private readonly lw: LockWindow;
  private readonly flagDisp: number;
  private readonly one = Int32Array.of(1);
  private readonly zero = Int32Array.of(0);
  private readonly result = new Int32Array(1);
  private readonly backoff: Backoff;
  private readonly flagTarget: [number, number, Datatype];

  constructor(ctx: LockContext, waiter: Waiter, minBackoff = 1, maxBackoff = 32) {
    const layout = new WindowLayout().field('flag', 4);
    this.flagDisp = layout.at('flag');
    this.flagTarget = [this.flagDisp, 1, MPI.INT];
    this.lw = new LockWindow(ctx.comm, ctx.rank === 0 ? layout.size : 0);
    this.backoff = new Backoff(waiter, minBackoff, maxBackoff);
  }

  acquire(): boolean {
    const win = this.lw.win;
    let first = true;
    for (;;) {
      win.Compare_and_swap(this.one, this.zero, this.result, 0, this.flagDisp);
      win.Flush(0);
      if (this.result[0] === 0) break;
      first = false;
      this.backoff.backoff();
    }
    this.backoff.reset();
    return first;
  }

  release(): void {
    this.lw.win.Accumulate(this.zero, 0, this.flagTarget, MPI.REPLACE);
    this.lw.win.Flush(0);
  }

  free(): void {
    this.lw.free();
  }
}

export class GlobalTkt implements GlobalLevel {
  readonly kind = 'tkt';
  private readonly lw: LockWindow;
  private readonly nextDisp: number;
  private readonly servingDisp: number;
  private readonly one = Int32Array.of(1);
  private readonly ticket = new Int32Array(1);
  private readonly serving = new Int32Array(1);
  private readonly servingTarget: [number, number, Datatype];

  constructor(ctx: LockContext, private readonly waiter: Waiter) {
    const layout = new WindowLayout().field('next', 4).field('serving', 4);
    this.nextDisp = layout.at('next');
    this.servingDisp = layout.at('serving');
    this.servingTarget = [this.servingDisp, 1, MPI.INT];
    this.lw = new LockWindow(ctx.comm, ctx.rank === 0 ? layout.size : 0);
  }

  acquire(): boolean {
    const win = this.lw.win;
    win.Fetch_and_op(this.one, this.ticket, 0, this.nextDisp, MPI.SUM);
    win.Flush(0);
    const mine = this.ticket[0]!;
    let first = true;
    this.waiter.reset();
    for (;;) {
      win.Fetch_and_op(null, this.serving, 0, this.servingDisp, MPI.NO_OP);
      win.Flush(0);
      if (this.serving[0] === mine) break;
      first = false;
      this.waiter.pause();
    }
    this.waiter.reset();
    return first;
  }

  release(): void {
    this.lw.win.Accumulate(this.one, 0, this.servingTarget, MPI.SUM);
    this.lw.win.Flush(0);
  }

  free(): void {
    this.lw.free();
  }
}

const HANDOVER_TAG = 7;

export class GlobalMcs implements GlobalLevel {
  readonly kind = 'mcs';
  private readonly shared: NodeSharedWindow;
  private readonly win: Win;
  /** The leader's part, seen by every rank of the node. */
  private readonly q: Int32Array;
  private readonly nextIx: number;
  private readonly tailDisp: number;
  private readonly nextDisp: number;
  private readonly leader: number;
  private readonly comm: Intracomm;
  private readonly me: Int32Array;
  private readonly id: Int32Array;
  private readonly none = Int32Array.of(-1);
  private readonly result = new Int32Array(1);
  private readonly status = new Uint8Array(1);
  private readonly grant = Uint8Array.of(1);

  constructor(ctx: LockContext, private readonly waiter: Waiter) {
    const layout = new WindowLayout().field('tail', 4).field('next', 4);
    this.tailDisp = layout.at('tail');
    this.nextDisp = layout.at('next');
    this.nextIx = word(this.nextDisp);
    // Node-shared memory: only the leader has a part; re-exposed globally by Win.Create.
    this.shared = new NodeSharedWindow(ctx.node, ctx.isLeader ? layout.size : 0);
    this.q = this.shared.part(0);
    if (ctx.isLeader) {
      Atomics.store(this.q, word(this.tailDisp), -1);
      Atomics.store(this.q, this.nextIx, -1);
    }
    const exposed = ctx.isLeader ? new Uint8Array(this.q.buffer, this.q.byteOffset, layout.size) : new Uint8Array(0);
    ctx.node.Barrier();
    this.win = MPI.Win.Create(exposed, 1, MPI.INFO_NULL, ctx.comm);
    this.win.Lock_all(0);
    this.comm = ctx.comm.Dup();
    this.leader = ctx.leaderOf[ctx.nodeIndex]!;
    this.me = Int32Array.of(ctx.rank);
    this.id = Int32Array.of(this.leader);
    ctx.comm.Barrier();
  }

  acquire(): boolean {
    Atomics.store(this.q, this.nextIx, -1);
    this.win.Fetch_and_op(this.id, this.result, 0, this.tailDisp, MPI.REPLACE);
    this.win.Flush(0);
    const pred = this.result[0]!;
    if (pred === -1) return true;
    // Atomic registration (see the header): a Put here can be seen half-written by the poller.
    this.win.Fetch_and_op(this.me, this.result, pred, this.nextDisp, MPI.REPLACE);
    this.win.Flush(pred);
    this.comm.Recv(this.status, MPI.ANY_SOURCE, HANDOVER_TAG);
    return false;
  }

  release(): void {
    let succ = Atomics.load(this.q, this.nextIx);
    if (succ === -1) {
      this.win.Compare_and_swap(this.none, this.id, this.result, 0, this.tailDisp);
      this.win.Flush(0);
      if (this.result[0] === this.leader) return;
      this.waiter.reset();
      while ((succ = Atomics.load(this.q, this.nextIx)) === -1) this.waiter.pause();
      this.waiter.reset();
    }
    this.comm.Send(this.grant, succ, HANDOVER_TAG);
  }

  free(): void {
    this.win.Unlock_all();
    this.win.Free();
    this.comm.Free();
    this.shared.free();
  }
}
