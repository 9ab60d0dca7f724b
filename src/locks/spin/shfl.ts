/**
 * SHFL lock [KCC+19] as the thesis ported it (research 000 §2.13, thesis §5.7, the
 * repository's `ShflLockGlobalTas`): a global spin lock word that alone protects the critical
 * section, plus an MCS queue that limits the spinning on it and whose waiters are shuffled so
 * that waiters of one node follow each other. `shfl` has the TTS fast path and spin; `shfl-tas`
 * the TAS variant (Fig. 5.5 without the test read of line 1 and the spin of line 12).
 *
 * Window layout (LockWindow, disp_unit 1, every rank, each field on its own 64-byte line):
 *   rank 0: `glock` uint16 at 0: byte 0 `locked`, byte 1 `noSteal`; `tail` int32 at 64 (-1 empty);
 *   every rank, its MCS queue node: `locked` uint8 at 128 (1 = wait), `batch` int32 at 192
 *   (0 = never shuffled, else its number in a shuffled batch), `shuffler` uint8 at 256
 *   (the shuffler role), `next` int32 at 320 (-1 none).
 *
 * Acquire: steal = (TTS: glock reads {0,0}, then) Compare_and_swap(uint16 1, 0 → glock). Else
 * init the own node, pred = Fetch_and_op(REPLACE rank → tail); with a pred: Accumulate(REPLACE
 * rank → pred.next), spin on the own `locked` (direct load + pause); without: set `noSteal`
 * (Accumulate uint8 1). As MCS head: repeat { shuffle if batch == 0 or shuffler; (TTS: spin
 * until byte `locked` reads 0;) } until Compare_and_swap(uint8 1, 0 → glock byte 0) succeeds
 * (ignores noSteal); then MCS release (Put(0 → succ.locked) + Flush, or CAS(tail: me → -1));
 * when the queue became empty, clear `noSteal`. Release: Accumulate(REPLACE uint8 0 → locked).
 * tryAcquire: the steal alone.
 *
 * Shuffle (head only): walk from the own node; every waiter of the own node is moved right
 * behind the last moved one (`qlast`, starting at the shuffler) and numbered in `batch`;
 * never the tail (new waiters link there), stop when the successor link is not yet written,
 * when batch reaches MAX_SHUFFLES (1024, anti-starvation; the role is then not handed on), or
 * when glock's `locked` byte reads 0; then the role goes to qlast (`shuffler` = 1).
 * Reads of remote `next`/`tail` are Fetch_and_op(NO_OP), writes Accumulate(REPLACE), all flushed.
 *
 * Stats: immediate = held without any wait (steal, or an empty queue and a free word at the
 * first CAS); localReleases / globalReleases count the MCS hand-overs to a waiter of the own /
 * another node (globalReleases also the ones that found the queue empty): the share shows
 * what shuffling achieves.
 *
 * Deviations: (1) only the MCS head shuffles. The digest lets waiters still queued shuffle
 * when they hold the role, while a head with batch 0 may shuffle too: two shufflers could then
 * relink the same `next` fields at once, so we keep the role until its holder is head (one
 * shuffler at a time; the thesis itself found shuffling while queued costly). (2) The node
 * id (lowest rank of the node) comes from ctx.leaderOf/nodeOf, known to every rank, so the
 * queue nodes hold no `skt` field and shuffling reads no remote node id (this subsumes the
 * thesis' caching of the current node's id). (3) All lock and queue bytes that others CAS or
 * fetch are written with atomic Accumulate; only the `locked` hand-over flag uses Put.
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import { type LockContext, LockWindow, WindowLayout } from '../context.js';
import { type Lock, LockStats, type LockSpec } from '../lock.js';
import type { Waiter } from '../wait.js';
import { Rma } from './rma.js';

export const MAX_SHUFFLES = 1024;
const MASTER = 0;
const LAYOUT = new WindowLayout().field('glock', 2).field('tail', 4).field('locked', 1).field('batch', 4)
  .field('shuffler', 1).field('next', 4);
const GLOCK = LAYOUT.at('glock');
const NO_STEAL = GLOCK + 1;
const TAIL = LAYOUT.at('tail');
const LOCKED = LAYOUT.at('locked');
const BATCH = LAYOUT.at('batch');
const SHUFFLER = LAYOUT.at('shuffler');
const NEXT = LAYOUT.at('next');

export class ShflLock implements Lock {
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly rma: Rma;
  private readonly waiter: Waiter;
  private readonly rank: number;
  private readonly nodeOf: Int32Array;
  private readonly nodeIndex: number;

  constructor(ctx: LockContext, readonly name: string, private readonly tts: boolean) {
    this.rank = ctx.rank;
    this.nodeOf = ctx.nodeOf;
    this.nodeIndex = ctx.nodeIndex;
    this.lw = new LockWindow(ctx.comm, LAYOUT.size);
    this.rma = new Rma(this.lw.win);
    this.waiter = ctx.waiter();
    const i32 = this.lw.i32;
    i32[NEXT >> 2] = -1;
    if (this.rank === MASTER) i32[TAIL >> 2] = -1;
    ctx.comm.Barrier();
  }

  // Field access: direct for this rank's own memory, RMA otherwise.
  private next(r: number): number {
    return r === this.rank ? Atomics.load(this.lw.i32, NEXT >> 2) : this.rma.read32(r, NEXT);
  }

  private setNext(r: number, v: number): void {
    if (r === this.rank) Atomics.store(this.lw.i32, NEXT >> 2, v);
    else this.rma.store32(v, r, NEXT);
  }

  private tail(): number {
    return this.rank === MASTER ? Atomics.load(this.lw.i32, TAIL >> 2) : this.rma.read32(MASTER, TAIL);
  }

  /** glock's `locked` byte. */
  private locked(): number {
    return this.rank === MASTER ? Atomics.load(this.lw.mem, GLOCK) : this.rma.read8(MASTER, GLOCK);
  }

  tryAcquire(): boolean {
    if (this.tts) {
      const g = this.rank === MASTER ? this.lw.mem[GLOCK]! | (this.lw.mem[NO_STEAL]! << 8) : this.rma.read16(MASTER, GLOCK);
      if (g !== 0) return false;
    }
    return this.rma.cas16(1, 0, MASTER, GLOCK) === 0;
  }

  acquire(): void {
    if (this.tryAcquire()) {
      this.stats.immediate++;
      return;
    }
    let waited = false;
    const mem = this.lw.mem;
    const i32 = this.lw.i32;
    Atomics.store(i32, NEXT >> 2, -1);
    Atomics.store(i32, BATCH >> 2, 0);
    Atomics.store(mem, SHUFFLER, 0);
    Atomics.store(mem, LOCKED, 1);
    const pred = this.rma.fop32(this.rank, MASTER, TAIL, MPI.REPLACE);
    this.waiter.reset();
    if (pred !== -1) {
      this.rma.store32(this.rank, pred, NEXT);
      while (Atomics.load(mem, LOCKED) !== 0) {
        waited = true;
        this.waiter.pause();
      }
      this.waiter.reset();
    } else {
      this.rma.store8(1, MASTER, NO_STEAL);
    }
    // MCS head: take the word (ignoring noSteal), shuffling while it is held.
    for (;;) {
      if (Atomics.load(i32, BATCH >> 2) === 0 || Atomics.load(mem, SHUFFLER) !== 0) this.shuffle();
      if (this.tts) {
        while (this.locked() !== 0) {
          waited = true;
          this.waiter.pause();
        }
      }
      if (this.rma.cas8(1, 0, MASTER, GLOCK) === 0) break;
      waited = true;
      if (!this.tts) this.waiter.pause();
    }
    this.waiter.reset();
    this.mcsRelease();
    if (waited) this.stats.delayed++;
    else this.stats.immediate++;
  }

  private mcsRelease(): void {
    let succ = Atomics.load(this.lw.i32, NEXT >> 2);
    if (succ === -1) {
      if (this.rma.cas32(-1, this.rank, MASTER, TAIL) === this.rank) {
        this.rma.store8(0, MASTER, NO_STEAL);
        this.stats.globalReleases++;
        return;
      }
      while ((succ = Atomics.load(this.lw.i32, NEXT >> 2)) === -1) this.waiter.pause();
      this.waiter.reset();
    }
    this.rma.put8(0, succ, LOCKED);
    if (this.nodeOf[succ] === this.nodeIndex) this.stats.localReleases++;
    else this.stats.globalReleases++;
  }

  /** Moves the waiters of this rank's node behind it (or behind the last moved one). */
  private shuffle(): void {
    const i32 = this.lw.i32;
    let batch = Atomics.load(i32, BATCH >> 2);
    if (batch === 0) Atomics.store(i32, BATCH >> 2, (batch = 1));
    Atomics.store(this.lw.mem, SHUFFLER, 0);
    let qlast = this.rank;
    let prev = this.rank;
    for (;;) {
      const curr = this.next(prev);
      if (curr === -1 || curr === this.tail()) break;
      if (this.nodeOf[curr] === this.nodeIndex) {
        if (prev === qlast) {
          this.rma.store32(++batch, curr, BATCH);
          qlast = prev = curr;
        } else {
          const qnext = this.next(curr);
          if (qnext === -1) break;
          this.rma.store32(++batch, curr, BATCH);
          this.setNext(prev, qnext);
          this.setNext(curr, this.next(qlast));
          this.setNext(qlast, curr);
          qlast = curr;
        }
      } else {
        prev = curr;
      }
      if (batch >= MAX_SHUFFLES) return;
      if (this.locked() === 0) break;
    }
    if (qlast === this.rank) Atomics.store(this.lw.mem, SHUFFLER, 1);
    else this.rma.store8(1, qlast, SHUFFLER);
  }

  release(): void {
    this.rma.store8(0, MASTER, GLOCK);
  }

  free(): void {
    this.lw.free();
  }
}

export const SHFL_LOCK: LockSpec = {
  name: 'shfl',
  family: 'numa',
  description: 'SHFL lock: TTS word + MCS queue whose waiters are shuffled by node (thesis §5.7, [KCC+19])',
  rw: false,
  tryable: true,
  hierarchical: true,
  defaults: {},
  make: (ctx) => new ShflLock(ctx, 'shfl', true),
};

export const SHFL_TAS_LOCK: LockSpec = {
  name: 'shfl-tas',
  family: 'numa',
  description: 'SHFL lock with a TAS word (no test read, no spin on the word) and shuffling (thesis §5.7, ShflLockGlobalTas)',
  rw: false,
  tryable: true,
  hierarchical: true,
  defaults: {},
  make: (ctx) => new ShflLock(ctx, 'shfl-tas', false),
};
