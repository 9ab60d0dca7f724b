/**
 * RMA-RW (research 001 §3): the topology-aware distributed reader-writer lock of [SBH16] with
 * N = 2 levels (machine, node). Writers climb the distributed tree of queues of hier.ts (DQ per
 * node with threshold T_L2, machine queue with threshold T_L1); at level 1 they synchronise with
 * readers through the distributed counter (DC). Readers touch only their counter and the
 * level-1 TAIL.
 *
 * Parameters (LockSpec defaults): T_DC = 0: one physical counter per node, at its leader (the
 * paper's recommended "one counter per compute node"); T_DC > 0: a counter on every T_DC-th rank
 * (0, T_DC, 2·T_DC, …; reader p uses rank ⌊p/T_DC⌋·T_DC, 001 §3.2's ⌈p/T_DC⌉ read as a host).
 * T_L2 = 50 (node), T_L1 = 20 (machine), T_R = 1000 (readers per counter before a waiting
 * writer gets its turn). T_W = T_L1·T_L2 (see deviation 2). As in the paper (a reset subtracts
 * only the departed readers), T_R also caps the readers inside at once on one counter: choose
 * T_R ≥ the readers that share a counter and must hold the lock together.
 *
 * Window layout: hier.ts (global window: arrive @192, depart @256, reset @320 at counter hosts).
 *
 * Mode flag encoding (deviation 1): the paper adds INT64_MAX/2 (> 2^53) to ARRIVE. Here ARRIVE,
 * DEPART are int32 words and WRITE = 2^30 is added to ARRIVE; "WRITE mode" is ARRIVE ≥ 2^30.
 * Exact in JS numbers, no BigInt on any path. It needs T_R + P < 2^29 (checked): ARRIVE then
 * stays below 2^30 + T_R + P < 2^31, and at most one writer flag is present at any time (a flag
 * is added only by the writer that got level 1 without a predecessor or with MODE_CHANGE, after
 * the previous holder removed its own).
 *
 * Reader acquire (Listing 9, completed):
 *   cs := Fetch_and_op(+1, c(p).arrive, SUM); Flush; cs < T_R → enter (READ mode, below T_R)
 *   else Accumulate(-1, arrive); Flush (back off); the reader that got exactly T_R is a "hitter";
 *   wait (pause): arrive := Fetch_and_op(NO_OP); < T_R → retry; a hitter also reads the level-1
 *   TAIL while arrive < WRITE, and with TAIL = ∅ (no writer at level 1) resets the counter, then retries.
 * Reader release (Listing 10): Accumulate(+1, c(p).depart, SUM); Flush.
 * Writer, level 1 acquired without predecessor or with MODE_CHANGE: set_counters_to_WRITE =
 *   Accumulate(+WRITE, arrive) at every counter, then drain: per counter, read arrive, then depart,
 *   until arrive - WRITE - depart ≤ 0 (deviation 3). With a count from a writer: enter, the
 *   counters are still WRITE.
 * Writer, level 1 release (Listing 8): c1 ≥ T_L1 or no known successor → reset_counters, hand
 *   MODE_CHANGE; else hand c1 + 1.
 * reset_counter(q) (Listing 6): take q.reset (Compare_and_swap 0 → 1, spinning for a writer,
 *   giving up for a reader); d := depart; Accumulate(-d, depart); Flush; Accumulate(-d (- WRITE
 *   for the writer), arrive); Flush; Put(0 → q.reset).
 *
 * Deviations from 001 (its open questions, §4.3):
 *  1. the flag encoding above;
 *  2. T_W = ∏T_L,i (Q2): the level-1 STATUS counts level-1 hand-overs (between nodes), compared
 *     with T_L1; each level-1 tenure covers at most T_L2 writers of one node, so at most
 *     T_L1·T_L2 = T_W writer acquisitions pass before readers get the lock;
 *  3. drain (Listing 6 lines 7–9 lost): set the flag on every counter first, then wait per
 *     counter (001 §4.1's order). Reading arrive before depart, and every reset subtracting from
 *     depart before arrive, make the computed count never below the true one;
 *  4. reset races (Q3): readers never remove the WRITE flag (they subtract only d from both
 *     words, which keeps arrive - depart); resets of one counter are serialised by its reset
 *     word, so depart never goes negative; the writer removes exactly its own flag;
 *  5. a reader that hit T_R keeps re-reading TAIL while it waits (Listing 9 reads it once): a
 *     writer releases with reset_counters before its CAS on TAIL, so a hitter that saw that
 *     writer still in TAIL would otherwise wait for a reset nobody makes;
 *  6. level-1 queue nodes are owned by nodes (hier.ts); int32 fields (ranks, counts).
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import type { LockContext } from '../context.js';
import type { LockParams, LockSpec, RWLock } from '../lock.js';
import { GLOBAL, GTAIL, HierLock, MODE_CHANGE } from './hier.js';
import { NIL } from './rma32.js';

const ARRIVE = GLOBAL.at('arrive');
const DEPART = GLOBAL.at('depart');
const RESET = GLOBAL.at('reset');
export const WRITE = 2 ** 30;

export class RmaRw extends HierLock implements RWLock {
  readonly name = 'rma-rw';
  /** The counter hosts (ranks). */
  private readonly counters: Int32Array;
  /** This rank's counter host c(p). */
  private readonly mine: number;

  constructor(ctx: LockContext, private readonly p: { T_DC: number; T_L1: number; T_L2: number; T_R: number }) {
    super(ctx, p.T_L2);
    if (!(p.T_L1 >= 1)) throw new Error(`rma-rw: T_L1 must be ≥ 1, got ${p.T_L1}`);
    if (!(p.T_R >= 1 && p.T_R + ctx.size < 2 ** 29)) throw new Error(`rma-rw: T_R must be in [1, 2^29 - P), got ${p.T_R}`);
    if (p.T_DC > 0) {
      const t = Math.floor(p.T_DC);
      this.counters = Int32Array.from({ length: Math.ceil(ctx.size / t) }, (_, k) => k * t);
      this.mine = Math.floor(ctx.rank / t) * t;
    } else {
      this.counters = Int32Array.from(ctx.leaderOf);
      this.mine = this.leader;
    }
  }

  // ---- writers: the level-1 hooks ----

  protected globalAcquired(handed: number | null): number {
    if (handed !== null && handed !== MODE_CHANGE) return handed; // writer to writer: still WRITE
    const n = this.counters.length;
    for (let k = 0; k < n; k++) this.grma.acc(WRITE, this.counters[k]!, ARRIVE, MPI.SUM);
    for (let k = 0; k < n; k++) {
      const q = this.counters[k]!;
      this.waiter.reset();
      for (;;) {
        const arr = this.grma.load(q, ARRIVE);
        const dep = this.grma.load(q, DEPART);
        if (arr - WRITE - dep <= 0) break;
        this.waiter.pause();
      }
    }
    this.waiter.reset();
    return 1;
  }

  protected globalHandover(c1: number, succKnown: boolean): number {
    if (succKnown && c1 < this.p.T_L1) return c1 + 1;
    for (let k = 0; k < this.counters.length; k++) this.resetCounter(this.counters[k]!, true);
    return MODE_CHANGE;
  }

  /** Listing 6 reset_counter, serialised per counter; false when a reader found it busy. */
  private resetCounter(q: number, writer: boolean): boolean {
    if (this.grma.cas(1, 0, q, RESET) !== 0) {
      if (!writer) return false;
      this.waiter.reset();
      do this.waiter.pause();
      while (this.grma.cas(1, 0, q, RESET) !== 0);
      this.waiter.reset();
    }
    const d = this.grma.load(q, DEPART);
    if (d !== 0) this.grma.acc(-d, q, DEPART, MPI.SUM);
    this.grma.acc(-d - (writer ? WRITE : 0), q, ARRIVE, MPI.SUM);
    this.grma.acc(0, q, RESET, MPI.REPLACE);
    return true;
  }

  // ---- readers ----

  acquireShared(): void {
    const q = this.mine;
    const tR = this.p.T_R;
    let delayed = false;
    for (;;) {
      const cs = this.grma.fao(1, q, ARRIVE, MPI.SUM);
      if (cs < tR) break;
      delayed = true;
      this.grma.acc(-1, q, ARRIVE, MPI.SUM); // back off
      const hitter = cs === tR;
      this.waiter.reset();
      for (;;) {
        this.waiter.pause();
        const arr = this.grma.load(q, ARRIVE);
        if (arr < tR) break;
        if (hitter && arr < WRITE && this.grma.load(0, GTAIL) === NIL) {
          this.resetCounter(q, false);
          break;
        }
      }
      this.waiter.reset();
    }
    if (delayed) this.stats.delayed++;
    else this.stats.immediate++;
  }

  tryAcquireShared(): boolean {
    const q = this.mine;
    if (this.grma.fao(1, q, ARRIVE, MPI.SUM) < this.p.T_R) {
      this.stats.immediate++;
      return true;
    }
    this.grma.acc(-1, q, ARRIVE, MPI.SUM);
    return false;
  }

  releaseShared(): void {
    this.grma.acc(1, this.mine, DEPART, MPI.SUM);
  }
}

const DEFAULTS = { T_DC: 0, T_L1: 20, T_L2: 50, T_R: 1000 };

export const RMA_RW: LockSpec = {
  name: 'rma-rw',
  family: 'paper',
  description: 'RMA-RW: 2-level tree of D-MCS queues + distributed reader counter, T_DC/T_L1/T_L2/T_R (001 §3)',
  rw: true,
  tryable: false,
  hierarchical: true,
  defaults: DEFAULTS,
  make: (ctx: LockContext, params?: LockParams) => new RmaRw(ctx, { ...DEFAULTS, ...params }),
};
