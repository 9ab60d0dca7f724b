/**
 * The cohort-lock framework (research 000 §2.9, §6.2; thesis Fig. 5.3): a global lock over RMA (all
 * ranks) × one local lock per node (node-shared memory, Atomics), with cohort detection.
 *
 *   acquire(): status = local.acquire(); if status == 0 (ACQUIRE_GLOBAL) global.acquire()
 *   release(): alone = local.alone(); may = passes < MAX_LOCAL_PASSES
 *              if (!alone && may) local.release(passes + 1)      // pass inside the node
 *              else { global.release(); local.release(0) }        // global before local
 *
 * The pass counter, one of the four variants of 000 §2.9 (parameter `counter`):
 *   0 inline (Opt. 3, default, = 2-level HMCS): the count is the status the local lock hands over.
 *   1 global ([DMS12]): one Int32 at rank 0 in an RMA window, Get/Put + Flush by the holder.
 *   2 node (Opt. 1): one Int32 per node, on the node leader, reached by RMA Get/Put + Flush.
 *   3 direct (Opt. 2): the per-node Int32 in node-shared memory, plain loads and stores (only
 *     the cohort holder touches it, so the lock itself orders the accesses).
 * With 1..3 the local lock's status is 2-valued (0 = take the global lock, 1 = passed), as in
 * the thesis before Opt. 3; the counter is reset to 0 at every global release that follows a
 * local pass (after a global acquire it is 0 already).
 *
 * Stats: an acquisition is immediate only when both levels were (a local pass, which skips
 * the global level, counts by its local level alone); global* counts global acquisitions,
 * local* every local one; localReleases/globalReleases split the releases.
 *
 * Parameters: maxLocalPasses (default 50, capped at 254 for the status byte), counter.
 * `status` is the current holder's pass count (0 after a global acquisition), for tests.
 * Hot paths allocate nothing: every RMA buffer is made once.
 *
 * Deviations: MAX_LOCAL_PASSES is a parameter; TKT/TTS/Hemlock-by-id locals carry the count in
 * their status word as well (the thesis folded it into the [DMS12] top-granted flag for TKT).
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI, type Datatype } from '../../index.js';
import { type LockContext, LockWindow, NodeSharedWindow, WindowLayout } from '../context.js';
import { type Lock, type LockParams, LockStats } from '../lock.js';
import type { Waiter } from '../wait.js';
import { ACQUIRE_GLOBAL, type GlobalLevel, type LocalLevel, MAX_STATUS } from './levels.js';

export const COUNTER_INLINE = 0;
export const COUNTER_GLOBAL = 1;
export const COUNTER_NODE = 2;
export const COUNTER_DIRECT = 3;
export const DEFAULT_MAX_LOCAL_PASSES = 50;

/** Where a separate pass counter lives (variants 1..3). */
interface PassCounter {
  read(): number;
  write(v: number): void;
  free(): void;
}

class RmaCounter implements PassCounter {
  private readonly lw: LockWindow;
  private readonly buf = new Int32Array(1);
  private readonly target: [number, number, Datatype] = [0, 1, MPI.INT];

  /** `home`: the rank holding this rank's counter; `hasOne`: whether this rank holds one. */
  constructor(ctx: LockContext, private readonly home: number, hasOne: boolean) {
    this.lw = new LockWindow(ctx.comm, hasOne ? 64 : 0);
    if (hasOne) this.lw.i32[0] = 0;
    ctx.comm.Barrier();
  }

  read(): number {
    this.lw.win.Get(this.buf, this.home, this.target);
    this.lw.win.Flush(this.home);
    return this.buf[0]!;
  }

  write(v: number): void {
    this.buf[0] = v;
    this.lw.win.Put(this.buf, this.home, this.target);
    this.lw.win.Flush(this.home);
  }

  free(): void {
    this.lw.free();
  }
}

class DirectCounter implements PassCounter {
  private readonly shm: NodeSharedWindow;
  private readonly m: Int32Array;

  constructor(ctx: LockContext) {
    this.shm = new NodeSharedWindow(ctx.node, ctx.isLeader ? new WindowLayout().field('count', 4).size : 0);
    this.m = this.shm.part(0);
    if (ctx.isLeader) this.m[0] = 0;
    ctx.node.Barrier();
  }

  read(): number {
    return this.m[0]!;
  }

  write(v: number): void {
    this.m[0] = v;
  }

  free(): void {
    this.shm.free();
  }
}

export class CohortLock implements Lock {
  readonly stats = new LockStats();
  readonly maxLocalPasses: number;
  readonly counterKind: number;
  /** The holder's pass count: 0 after a global acquisition, k after the k-th local pass in a row. */
  status = 0;
  private readonly counter: PassCounter | null;

  constructor(readonly name: string, ctx: LockContext, readonly global: GlobalLevel, readonly local: LocalLevel,
    params: LockParams = {}) {
    this.maxLocalPasses = Math.max(0, Math.min(MAX_STATUS, Math.floor(params.maxLocalPasses ?? DEFAULT_MAX_LOCAL_PASSES)));
    this.counterKind = params.counter ?? COUNTER_INLINE;
    switch (this.counterKind) {
      case COUNTER_INLINE: this.counter = null; break;
      case COUNTER_GLOBAL: this.counter = new RmaCounter(ctx, 0, ctx.rank === 0); break;
      case COUNTER_NODE: this.counter = new RmaCounter(ctx, ctx.leaderOf[ctx.nodeIndex]!, ctx.isLeader); break;
      case COUNTER_DIRECT: this.counter = new DirectCounter(ctx); break;
      default: throw new Error(`${name}: counter ${this.counterKind} is not 0 (inline), 1 (global), 2 (node) or 3 (direct)`);
    }
  }

  acquire(): void {
    const s = this.local.acquire();
    const localImmediate = this.local.immediate;
    const st = this.stats;
    if (localImmediate) st.localImmediate++;
    else st.localDelayed++;
    let immediate = localImmediate;
    if (s === ACQUIRE_GLOBAL) {
      if (this.global.acquire()) st.globalImmediate++;
      else {
        st.globalDelayed++;
        immediate = false;
      }
      this.status = 0;
    } else {
      this.status = this.counter === null ? s : this.counter.read();
    }
    if (immediate) st.immediate++;
    else st.delayed++;
  }

  release(): void {
    const passes = this.status;
    if (passes < this.maxLocalPasses && !this.local.alone()) {
      this.stats.localReleases++;
      if (this.counter === null) this.local.release(passes + 1);
      else {
        this.counter.write(passes + 1);
        this.local.release(1);
      }
      return;
    }
    this.stats.globalReleases++;
    if (this.counter !== null && passes !== 0) this.counter.write(0);
    this.global.release();
    this.local.release(ACQUIRE_GLOBAL);
  }

  free(): void {
    this.counter?.free();
    this.local.free();
    this.global.free();
  }
}

/** For factories: one waiter per level (each level's loops reset their own). */
export function waiters(ctx: LockContext): [Waiter, Waiter] {
  return [ctx.waiter(), ctx.waiter()];
}
