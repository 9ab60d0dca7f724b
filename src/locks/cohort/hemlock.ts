/**
 * Hemlock [DK22] as the local level of a cohort lock (research 000 §2.10, thesis §5.4.4),
 * with its variants: base, Overlap, CTR, CTR+AH; and the thesis' adaptation to the inline
 * counter (the grant word carries the status byte instead of the lock id).
 *
 * Layout (NodeSharedWindow over ctx.node, Int32 words on their own lines):
 *   part(r): grant of node rank r (its single queue node);
 *   part(0): also tail (a node rank, -1 = none) and, without the inline counter, status (the
 *   pass count handed over next to the lock-id grant, the thesis' first "separate field").
 * Grant encoding: inline counter: EMPTY = WAIT (255), a grant = the status 0..254;
 *   lock-id grant: EMPTY = 0, a grant = this instance's id (> 0, agreed at construction).
 *
 * acquire (all variants): pred = exchange(tail, me); none: status 0 (take the global lock).
 *   Otherwise wait for pred.grant to hold a grant and consume it:
 *     base/Overlap: while ((g = load(pred.grant)) == EMPTY) pause; store(pred.grant, EMPTY);
 *     CTR/CTR+AH:   while ((g = exchange(pred.grant, EMPTY)) == EMPTY) pause
 *                   (CTR: the read-modify-write takes the line exclusive once, not S then M).
 *   With lock-id grants a value other than this lock's id is put back (it cannot occur here,
 *   one queue node per lock instance, but it keeps [DK22]'s multi-lock check honest).
 * release(s) (the status s goes into the separate status field first, without inline):
 *   base:    if CAS(tail, me, -1) == me: done; store(grant, G); wait until grant == EMPTY.
 *   Overlap: if CAS(tail, me, -1) fails: store(grant, G) and return at once; the wait for
 *            the consumer moves to the start of this rank's next acquire (before it enqueues).
 *            It must be there: a rank that re-enqueues while its old grant is unconsumed can get
 *            a new successor, which takes the grant meant for the old one (a lock-id grant, or
 *            the same status, looks the same) while the old one waits for ever; with the wait at
 *            the start of release instead, the hammer deadlocked exactly so (4 ranks, 1 node).
 *   CTR:     as base, but the wait for the consumer is a read-modify-write (add(grant, 0)).
 *   CTR+AH:  store(grant, G) first (aggressive hand-over, off the critical path's CAS), then
 *            CAS(tail, me, -1); succeeded: store(grant, EMPTY) (nobody will look: no
 *            successor was queued and new arrivals see tail == -1); failed: wait until the
 *            successor consumed it. Safe here: window memory lives until a collective free().
 * alone(): tail == me (nobody queued behind the holder).
 *
 * Deviations: Int32 words instead of uintptr_t/uint8_t; the lock id is a small integer made
 * collectively (the thesis broadcast the master's address); [repo] CTR+AH polls the consumer
 * with fetch_add(0), done here too with Atomics.add(.., 0); [DK22]'s Overlap pseudocode had a
 * deadlock the thesis found (fixed in its v4); the digest does not give the fix, so the placement
 * above is ours, argued from the stale-grant race it must exclude. Queue nodes are per lock
 * instance in every variant, as in the [repo] (the thesis' memory argument is not realised).
 *
 * Research ids cited here: see docs/references.md.
 */
import { type LockContext, NodeSharedWindow, WindowLayout } from '../context.js';
import type { Waiter } from '../wait.js';
import { ACQUIRE_GLOBAL, type LocalLevel, WAIT, word } from './levels.js';

export const HEM_BASE = 0;
export const HEM_OVERLAP = 1;
export const HEM_CTR = 2;
export const HEM_CTR_AH = 3;
export const HEM_VARIANTS = ['base', 'overlap', 'ctr', 'ctr-ah'] as const;

let nextLockId = 1;

export class LocalHemlock implements LocalLevel {
  readonly kind: string;
  immediate = false;
  private readonly shm: NodeSharedWindow;
  private readonly parts: Int32Array[] = [];
  private readonly mine: Int32Array;
  private readonly home: Int32Array;
  private readonly grantIx: number;
  private readonly tailIx: number;
  private readonly statusIx: number;
  private readonly me: number;
  private readonly empty: number;
  private readonly lockId: number;

  constructor(ctx: LockContext, private readonly waiter: Waiter, private readonly variant = HEM_CTR_AH,
    private readonly inline = true) {
    if (!(variant >= 0 && variant <= 3)) throw new Error(`hemlock: variant ${variant} is not 0..3`);
    this.kind = `hem-${HEM_VARIANTS[variant]}${inline ? '' : '-id'}`;
    const layout = new WindowLayout().field('grant', 4).field('tail', 4).field('status', 4);
    this.grantIx = word(layout.at('grant'));
    this.tailIx = word(layout.at('tail'));
    this.statusIx = word(layout.at('status'));
    this.shm = new NodeSharedWindow(ctx.node, layout.size);
    for (let r = 0; r < ctx.nodeSize; r++) this.parts.push(this.shm.part(r));
    this.me = ctx.nodeRank;
    this.mine = this.parts[this.me]!;
    this.home = this.parts[0]!;
    // The same id on every rank: instances are made collectively, in the same order.
    const id = new Int32Array(1);
    if (ctx.isLeader) id[0] = nextLockId;
    ctx.node.Bcast(id, 0);
    nextLockId = Math.max(nextLockId, id[0]!) + 1;
    this.lockId = id[0]!;
    this.empty = inline ? WAIT : 0;
    Atomics.store(this.mine, this.grantIx, this.empty);
    if (ctx.isLeader) {
      Atomics.store(this.home, this.tailIx, -1);
      Atomics.store(this.home, this.statusIx, ACQUIRE_GLOBAL);
    }
    ctx.node.Barrier();
  }

  acquire(): number {
    // Overlap: the last hand-over must be consumed before this rank can get a new successor.
    if (this.variant === HEM_OVERLAP && Atomics.load(this.mine, this.grantIx) !== this.empty) this.awaitConsumed(false);
    const pred = Atomics.exchange(this.home, this.tailIx, this.me);
    if (pred === -1) {
      this.immediate = true;
      return ACQUIRE_GLOBAL;
    }
    this.immediate = false;
    const pm = this.parts[pred]!;
    const ix = this.grantIx;
    const empty = this.empty;
    const want = this.inline ? -1 : this.lockId;
    let g: number;
    this.waiter.reset();
    if (this.variant >= HEM_CTR) {
      for (;;) {
        g = Atomics.exchange(pm, ix, empty);
        if (g !== empty) {
          if (want === -1 || g === want) break;
          Atomics.store(pm, ix, g); // another lock's grant: put it back
        }
        this.waiter.pause();
      }
    } else {
      for (;;) {
        g = Atomics.load(pm, ix);
        if (g !== empty && (want === -1 || g === want)) break;
        this.waiter.pause();
      }
      Atomics.store(pm, ix, empty);
    }
    this.waiter.reset();
    return this.inline ? g : Atomics.load(this.home, this.statusIx);
  }

  release(status: number): void {
    const mine = this.mine;
    const ix = this.grantIx;
    const empty = this.empty;
    let grant = status;
    if (!this.inline) {
      Atomics.store(this.home, this.statusIx, status);
      grant = this.lockId;
    }
    switch (this.variant) {
      case HEM_BASE:
        if (Atomics.compareExchange(this.home, this.tailIx, this.me, -1) === this.me) return;
        Atomics.store(mine, ix, grant);
        this.awaitConsumed(false);
        return;
      case HEM_OVERLAP:
        if (Atomics.compareExchange(this.home, this.tailIx, this.me, -1) === this.me) return;
        Atomics.store(mine, ix, grant);
        return;
      case HEM_CTR:
        if (Atomics.compareExchange(this.home, this.tailIx, this.me, -1) === this.me) return;
        Atomics.store(mine, ix, grant);
        this.awaitConsumed(true);
        return;
      default: // HEM_CTR_AH
        Atomics.store(mine, ix, grant);
        if (Atomics.compareExchange(this.home, this.tailIx, this.me, -1) === this.me) {
          Atomics.store(mine, ix, empty);
          return;
        }
        this.awaitConsumed(true);
    }
  }

  private awaitConsumed(rmw: boolean): void {
    const mine = this.mine;
    const ix = this.grantIx;
    const empty = this.empty;
    this.waiter.reset();
    if (rmw) while (Atomics.add(mine, ix, 0) !== empty) this.waiter.pause();
    else while (Atomics.load(mine, ix) !== empty) this.waiter.pause();
    this.waiter.reset();
  }

  alone(): boolean {
    return Atomics.load(this.home, this.tailIx) === this.me;
  }

  free(): void {
    this.shm.free();
  }
}
