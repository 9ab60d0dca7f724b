/**
 * The distributed tree of queues (DT) of [SBH16] with two levels (research 001 §3.1, §3.3–3.5,
 * §3.8; research 000 §2.5): a D-MCS queue (DQ) per node (level 2, N = 2) and one over the
 * nodes (level 1, the machine). RMA-MCS is this tree alone (rma-mcs.ts); RMA-RW adds the
 * distributed counter at level 1 through the hooks below (rma-rw.ts).
 *
 * Windows (both LockWindow, disp_unit 1, fields 64-byte aligned, int32):
 *   local  (over ctx.node, addressed by node rank): lstatus @0, lnext @64, ltail @128 (node rank 0)
 *   global (over ctx.comm):  gnext @0, gstatus @64 (the node's level-1 queue node, at the node's
 *          leader), gtail @128 (rank 0), and for RMA-RW arrive @192, depart @256, reset @320 (at
 *          the counter hosts).
 * STATUS (001 §3.3, open question 4 answered): 0 = WAIT, -1 = ACQUIRE_PARENT, -2 = MODE_CHANGE;
 * any value ≥ 1 = "enter", and is the count of consecutive acquisitions at that level. Counts
 * only grow from 1 and stop at the threshold, so they never meet a sentinel.
 *
 * Writer acquire (Listing 4, level 2, then level 1):
 *   own lstatus := WAIT, lnext := ∅; pred := Fetch_and_op(r → ltail@0, REPLACE); Flush
 *   pred ≠ ∅: Put(r → pred.lnext); Flush; spin (pause) on own lstatus; ≠ ACQUIRE_PARENT → enter (shortcut)
 *   own lstatus := 1 (ACQUIRE_START); level 1 with the node's queue node at leader L:
 *   Put(∅ → L.gnext), Put(WAIT → L.gstatus); Flush(L); gpred := Fetch_and_op(L → gtail@0); Flush(0)
 *   gpred ≠ ∅: Put(L → gpred.gnext); Flush; spin on L.gstatus (direct load at L, else
 *   Fetch_and_op(NO_OP) + Flush(L), as the [repo] port does) until ≠ WAIT; then the level-1 hook.
 * Writer release (Listing 5 reconstructed, 001 §3.5): own count c, successor s at level 2:
 *   s ≠ ∅ and c < T_L → Put(c + 1 → s.lstatus); Flush (a local release, stats.localReleases)
 *   else release level 1 (stats.globalReleases), then pass ACQUIRE_PARENT to s (after the
 *   Compare_and_swap(ltail@0: r → ∅) found a successor enqueuing, waiting for its lnext).
 *   Level 1: s1 := L.gnext; s1 = ∅ → Compare_and_swap(gtail@0: L → ∅) … ; Put(value → s1.gstatus).
 *
 * Deviation (open question 1 of 001 §4.3): the level-1 queue node belongs to the node (lives at
 * its leader), not to the process that climbed, as in HMCS and the thesis' [repo] port: whoever
 * of the node holds the lock releases level 1 through it. Ranks in the level-1 queue are leaders.
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import type { LockContext } from '../context.js';
import { LockWindow, WindowLayout } from '../context.js';
import { LockStats } from '../lock.js';
import type { Waiter } from '../wait.js';
import { NIL, Rma32 } from './rma32.js';

export const WAIT = 0;
export const ACQUIRE_PARENT = -1;
export const MODE_CHANGE = -2;

const LOCAL = new WindowLayout().field('lstatus', 4).field('lnext', 4).field('ltail', 4);
const LSTATUS = LOCAL.at('lstatus');
const LNEXT = LOCAL.at('lnext');
const LTAIL = LOCAL.at('ltail');

export const GLOBAL = new WindowLayout().field('gnext', 4).field('gstatus', 4).field('gtail', 4)
  .field('arrive', 4).field('depart', 4).field('reset', 4);
const GNEXT = GLOBAL.at('gnext');
const GSTATUS = GLOBAL.at('gstatus');
export const GTAIL = GLOBAL.at('gtail');
const ROOT = 0;

export abstract class HierLock {
  readonly stats = new LockStats();
  protected readonly local: LockWindow;
  protected readonly global: LockWindow;
  protected readonly lrma: Rma32;
  protected readonly grma: Rma32;
  protected readonly waiter: Waiter;
  protected readonly rank: number;
  private readonly nodeRank: number;
  /** The node's leader, holder of its level-1 queue node. */
  protected readonly leader: number;
  private readonly isLeader: boolean;

  constructor(protected readonly ctx: LockContext, private readonly tLocal: number) {
    if (!(tLocal >= 1)) throw new Error(`locality threshold T_L must be ≥ 1, got ${tLocal}`);
    this.rank = ctx.rank;
    this.nodeRank = ctx.nodeRank;
    this.leader = ctx.leaderOf[ctx.nodeIndex]!;
    this.isLeader = this.leader === this.rank;
    this.local = new LockWindow(ctx.node, LOCAL.size);
    this.global = new LockWindow(ctx.comm, GLOBAL.size);
    this.lrma = new Rma32(this.local.win);
    this.grma = new Rma32(this.global.win);
    this.local.i32[LNEXT >> 2] = NIL;
    this.local.i32[LTAIL >> 2] = NIL;
    this.global.i32[GNEXT >> 2] = NIL;
    this.global.i32[GTAIL >> 2] = NIL;
    this.waiter = ctx.waiter();
    ctx.comm.Barrier(); // every tail/next initialised before anyone enqueues
  }

  private lload(disp: number): number {
    return Atomics.load(this.local.i32, disp >> 2);
  }

  private lstore(disp: number, v: number): void {
    Atomics.store(this.local.i32, disp >> 2, v);
  }

  /** The node's level-1 queue node field (direct at the leader, atomic RMA read otherwise). */
  protected gload(disp: number): number {
    return this.isLeader ? Atomics.load(this.global.i32, disp >> 2) : this.grma.load(this.leader, disp);
  }

  protected gstore(disp: number, v: number): void {
    if (this.isLeader) Atomics.store(this.global.i32, disp >> 2, v);
    else this.grma.put(v, this.leader, disp);
  }

  /** Level 1 acquired: gpredStatus is the status handed over, or null without a predecessor. Returns the level-1 count to keep. */
  protected abstract globalAcquired(gpredStatus: number | null): number;
  /** Level 1 about to be released (count c1 kept at acquire): the value for a known successor. */
  protected abstract globalHandover(c1: number, succKnown: boolean): number;

  acquire(): void {
    this.lstore(LSTATUS, WAIT);
    this.lstore(LNEXT, NIL);
    const pred = this.lrma.fao(this.nodeRank, 0, LTAIL, MPI.REPLACE);
    let waited = false;
    if (pred !== NIL) {
      this.lrma.put(this.nodeRank, pred, LNEXT);
      let st: number;
      this.waiter.reset();
      while ((st = this.lload(LSTATUS)) === WAIT) this.waiter.pause();
      this.waiter.reset();
      this.stats.localDelayed++;
      if (st !== ACQUIRE_PARENT) {
        this.stats.delayed++; // inherited inside the node (the shortcut)
        return;
      }
      waited = true;
    } else this.stats.localImmediate++;
    this.lstore(LSTATUS, 1); // ACQUIRE_START
    // Level 1 through the node's queue node.
    this.gstore(GNEXT, NIL);
    this.gstore(GSTATUS, WAIT);
    const gpred = this.grma.fao(this.leader, ROOT, GTAIL, MPI.REPLACE);
    let handed: number | null = null;
    if (gpred !== NIL) {
      this.grma.put(this.leader, gpred, GNEXT);
      this.waiter.reset();
      while ((handed = this.gload(GSTATUS)) === WAIT) this.waiter.pause();
      this.waiter.reset();
      this.stats.globalDelayed++;
      waited = true;
    } else this.stats.globalImmediate++;
    this.gstore(GSTATUS, this.globalAcquired(handed));
    if (waited) this.stats.delayed++;
    else this.stats.immediate++;
  }

  release(): void {
    const c = this.lload(LSTATUS);
    let succ = this.lload(LNEXT);
    if (succ !== NIL && c < this.tLocal) {
      this.lrma.put(c + 1, succ, LSTATUS);
      this.stats.localReleases++;
      return;
    }
    this.releaseGlobal();
    this.stats.globalReleases++;
    if (succ === NIL) {
      if (this.lrma.cas(NIL, this.nodeRank, 0, LTAIL) === this.nodeRank) return;
      this.waiter.reset();
      while ((succ = this.lload(LNEXT)) === NIL) this.waiter.pause();
      this.waiter.reset();
    }
    this.lrma.put(ACQUIRE_PARENT, succ, LSTATUS);
  }

  private releaseGlobal(): void {
    const c1 = this.gload(GSTATUS);
    let gsucc = this.gload(GNEXT);
    const value = this.globalHandover(c1, gsucc !== NIL);
    if (gsucc === NIL) {
      if (this.grma.cas(NIL, this.leader, ROOT, GTAIL) === this.leader) return;
      this.waiter.reset();
      while ((gsucc = this.gload(GNEXT)) === NIL) this.waiter.pause();
      this.waiter.reset();
    }
    this.grma.put(value, gsucc, GSTATUS);
  }

  free(): void {
    this.global.free();
    this.local.free();
  }
}
