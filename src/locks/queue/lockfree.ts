/**
 * The lock-free distributed queue of research seed 002 (Burachenko, Paznikov, Derzhavin 2023,
 * "nd": non-blocking decentralized) and, with `locked = true`, its decentralized lock-based twin
 * ("bd", seed 002 §3.2: the same algorithm with one lock per element and per head/tail reference;
 * see element-lock.ts). docs/locks-queue.md has the full discussion.
 *
 * ALGORITHM (seed 002 §2.4–2.7). Every rank owns a pool of K elements and enqueues only its own
 * cells. The queue is one singly linked list through the pools; dequeued elements stay in the
 * list in state D (they are not unlinked), the head is the first A element. Every rank keeps a
 * head hint h and a tail hint t (references, in its window part), from which the real head/tail
 * are found by walking `next`. After an enqueue/dequeue the changed hint is pushed to every rank
 * ("bcast": self first, then the others in random order, stop at the first FAIL, a hint only
 * moves to a newer element). The consensus cell s at rank 0 decides the very first element.
 * An element goes F (free) → A (enqueue) → D (dequeue) → F (cleaning by its owner, when its
 * pool has no free cell: every D cell older than the oldest element any rank still refers to
 * through h, t or its observation word o is freed).
 *
 * LAYOUT (disp_unit 1, every rank the same; 8-byte words; a lock word precedes each lockable
 * unit and is only used in locked mode):
 *   0: s-lock   8: s (rank 0 only)   16: h-lock  24: h   32: t-lock  40: t   48: o
 *   64 + 32 j: element j = [lock, cn, tau, v]
 *
 * ENCODINGS (one 64-bit word each, handled as two int32 halves so nothing allocates BigInts):
 *   reference (s, h, t, o, and `next` inside cn): hi = rank + 1 (0 = the empty reference
 *     (-1,-1)), lo = slot << 16 | gen. The generation makes references ABA-safe: a reference
 *     names one incarnation of a cell (seed 002 §2.8 obs. 1, §5 "ABA-safe references").
 *   cn (state + own generation + next, so ONE CAS covers "still this incarnation, still in this
 *     state, still no successor"): hi = state << 30 | gen << 12 | nextRank + 1 (12 bits),
 *     lo = nextSlot << 16 | nextGen. States F = 0, A = 1, D = 2.
 *   tau: hi = gen << 16 | tau_hi16, lo = tau_lo32. tau is a LOGICAL timestamp: the first element
 *     gets 1, an element linked behind p gets tau(p) + 1 (written before each linking CAS).
 *     So tau is the list position: strictly increasing along the list with no clock at all
 *     (the seed's synchronized clocks, 002 §2.1 and §2.8 obs. 4, are replaced; 002 §5 idea).
 *     The generation inside the tau word lets a reader check that tau belongs to the same
 *     incarnation as the cn it read (an element read is atomic only per 8-byte word).
 *   v: the value's float64 bits (safe integers are exact).
 *
 * ATOMICS. Remote access is Compare_and_swap and Get_accumulate(NO_OP) only; the owner's own writes of its cells (init, tau) are
 * Accumulate(REPLACE) to itself, its D→F release a CAS to itself, so every access to a word
 * is an MPI atomic (also on node-shared windows where peers apply atomics with CPU atomics).
 * An element is read with one Get_accumulate of [cn, tau, v]; it is valid when the generation
 * of cn and of tau equal the reference's; otherwise the reader restarts from its hints.
 * v is used only after a successful CAS A→D on the exact cn word read before it, which proves
 * the cell was not recycled in between.
 *
 * LINEARIZATION POINTS: enqueue: the successful CAS of s (first element) or of the tail's cn
 * (empty next → me); dequeue: the successful CAS A→D; empty: the read of a D element with no
 * successor (all its predecessors are D). Hint CASes are not linearization points (the seed
 * calls them so; they only move hints).
 *
 * DEVIATIONS: generations in references; logical timestamps; state and next share one word;
 * o holds the REFERENCE of the element being examined, written before it is read (a hazard
 * slot), not a copy; s is a reclamation root while any rank's h or t is still empty (else it
 * could name a recycled cell; hints never become empty again once set); a failed linking CAS
 * re-reads the same element (the seed restarts from the hint in the D case: same outcome);
 * bcast_th's flags persist across ranks and line 19's typo is fixed (check_head = false);
 * a hint already equal to the element counts as SUCCESS; the cleaner scans ranks in index
 * order (the order does not matter for the minimum). Generations wrap after 65536 reuses of
 * one cell (an ABA needs a reader stalled across exactly that many), K ≤ 65536, ranks ≤ 4094.
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import type { LockContext } from '../context.js';
import { LockWindow } from '../context.js';
import type { LockParams } from '../lock.js';
import type { Waiter } from '../wait.js';
import type { DistQueue, QueueSpec } from './queue.js';

export const ST_F = 0;
export const ST_A = 1;
export const ST_D = 2;

const S = 8;
const H = 24;
const T = 40;
const O = 48;
const ELEMS = 64;
const ELEM_BYTES = 32;
/** Offsets inside an element. */
const E_CN = 8;
const E_TAU = 16;
const E_V = 24;
const TWO32 = 4294967296;

/** Per-queue operation counters (the seed's phase metrics, counted instead of timed). */
export class QueueCounters {
  enqueues = 0;
  dequeues = 0;
  full = 0;
  empty = 0;
  enqHops = 0;
  deqHops = 0;
  casFailures = 0;
  restarts = 0;
  bcastSteps = 0;
  cleanings = 0;
  freed = 0;
}

export class DecentralizedQueue implements DistQueue {
  readonly name: string;
  readonly counters = new QueueCounters();
  private readonly lw: LockWindow;
  private readonly win;
  private readonly rank: number;
  private readonly size: number;
  private readonly K: number;
  private readonly waiter: Waiter;
  /** This rank's cells: current generation, and the stack of free slots. */
  private readonly gens: Int32Array;
  private readonly freeSlots: Int32Array;
  private nFree: number;
  /** The other ranks, shuffled for each bcast. */
  private readonly others: Int32Array;

  // Scratch words (BigInt64 for MPI, Int32 halves for arithmetic: [lo, hi], little-endian).
  private readonly snap = new BigInt64Array(3);
  private readonly snap32 = new Int32Array(this.snap.buffer);
  private readonly snapF64 = new Float64Array(this.snap.buffer);
  private readonly word = new BigInt64Array(1);
  private readonly word32 = new Int32Array(this.word.buffer);
  private readonly casNew = new BigInt64Array(1);
  private readonly casNew32 = new Int32Array(this.casNew.buffer);
  private readonly casCmp = new BigInt64Array(1);
  private readonly casCmp32 = new Int32Array(this.casCmp.buffer);
  private readonly casRes = new BigInt64Array(1);
  private readonly casRes32 = new Int32Array(this.casRes.buffer);
  private readonly valF64 = new Float64Array(1);
  private readonly val = new BigInt64Array(this.valF64.buffer);
  private readonly lockMine = new BigInt64Array(1);
  private readonly lockZero = new BigInt64Array(1);
  private readonly lockRes = new BigInt64Array(1);
  private readonly lockRes32 = new Int32Array(this.lockRes.buffer);
  private readonly target3: [number, number, typeof MPI.INT64_T] = [0, 3, MPI.INT64_T];
  private readonly target1: [number, number, typeof MPI.INT64_T] = [0, 1, MPI.INT64_T];

  // The element last read: decoded fields.
  private eState = 0;
  private eNextHi = 0;
  private eNextLo = 0;
  private eTau = 0;

  constructor(ctx: LockContext, params: LockParams | undefined, private readonly locked: boolean) {
    this.name = locked ? 'element-lock' : 'lockfree';
    this.rank = ctx.rank;
    this.size = ctx.size;
    this.K = Math.max(1, Math.floor(params?.K ?? (locked ? ELEMENT_LOCK.defaults.K! : LOCKFREE.defaults.K!)));
    if (this.K > 65536) throw new Error(`${this.name}: K ${this.K} > 65536`);
    if (this.size > 4094) throw new Error(`${this.name}: more than 4094 ranks`);
    this.waiter = ctx.waiter();
    this.lockMine[0] = BigInt(this.rank + 1);
    this.gens = new Int32Array(this.K);
    this.freeSlots = new Int32Array(this.K);
    for (let j = 0; j < this.K; j++) this.freeSlots[j] = this.K - 1 - j;
    this.nFree = this.K;
    this.others = Int32Array.from({ length: this.size - 1 }, (_, i) => (i < this.rank ? i : i + 1));
    this.lw = new LockWindow(ctx.comm, ELEMS + ELEM_BYTES * this.K);
    this.win = this.lw.win;
    this.lw.mem.fill(0);
    ctx.comm.Barrier();
  }

  // ---------------------------------------------------------------- primitives

  /** Locked mode: spin on the lock word at `lockDisp` of `rank` (CAS 0 → me). */
  private lock(rank: number, lockDisp: number): void {
    this.waiter.reset();
    for (;;) {
      this.win.Compare_and_swap(this.lockMine, this.lockZero, this.lockRes, rank, lockDisp);
      this.win.Flush(rank);
      if (this.lockRes32[0] === 0 && this.lockRes32[1] === 0) return;
      this.waiter.pause();
    }
  }

  private unlock(rank: number, lockDisp: number): void {
    this.target1[0] = lockDisp;
    this.win.Accumulate(this.lockZero, rank, this.target1, MPI.REPLACE);
    this.win.Flush(rank);
  }

  /** Reads one word (s, h, t, o) into `word`. o has no lock. */
  /** Where a walk starts: our hint at `hint` (T or H), or the consensus cell s while the hint is empty (into word32). */
  private readStart(hint: number): void {
    this.readWord(this.rank, hint);
    if (this.word32[1] === 0) this.readWord(0, S);
  }

  private readWord(rank: number, disp: number): void {
    if (this.locked && disp !== O) {
      this.lock(rank, disp - 8);
      this.target1[0] = disp;
      this.win.Get(this.word, rank, this.target1);
      this.win.Flush(rank);
      this.unlock(rank, disp - 8);
      return;
    }
    this.target1[0] = disp;
    this.win.Get_accumulate(this.word, this.word, rank, this.target1, MPI.NO_OP);
    this.win.Flush(rank);
  }

  /** Writes `casNew` to a word of this rank's own part (o, own cells' cn, tau, v). */
  private writeOwn(disp: number, src: BigInt64Array, lockDisp: number): void {
    const me = this.rank;
    if (this.locked && lockDisp >= 0) {
      this.lock(me, lockDisp);
      this.target1[0] = disp;
      this.win.Put(src, me, this.target1);
      this.win.Flush(me);
      this.unlock(me, lockDisp);
      return;
    }
    this.target1[0] = disp;
    this.win.Accumulate(src, me, this.target1, MPI.REPLACE);
    this.win.Flush(me);
  }

  /** CAS of the word at `disp` of `rank`: casCmp → casNew; the old value lands in casRes. */
  private cas(rank: number, disp: number, lockDisp: number): boolean {
    if (this.locked) {
      this.lock(rank, lockDisp);
      this.target1[0] = disp;
      this.win.Get(this.casRes, rank, this.target1);
      this.win.Flush(rank);
      const ok = this.casRes32[0] === this.casCmp32[0] && this.casRes32[1] === this.casCmp32[1];
      if (ok) {
        this.win.Put(this.casNew, rank, this.target1);
        this.win.Flush(rank);
      }
      this.unlock(rank, lockDisp);
      if (!ok) this.counters.casFailures++;
      return ok;
    }
    this.win.Compare_and_swap(this.casNew, this.casCmp, this.casRes, rank, disp);
    this.win.Flush(rank);
    const ok = this.casRes32[0] === this.casCmp32[0] && this.casRes32[1] === this.casCmp32[1];
    if (!ok) this.counters.casFailures++;
    return ok;
  }

  /**
   * Reads the element a reference names into `snap` and decodes it. False when the reference
   * is stale (the cell was recycled: its generation moved on) or the cell is free.
   */
  private readElem(refHi: number, refLo: number): boolean {
    const rank = refHi - 1;
    const slot = refLo >>> 16;
    const gen = refLo & 0xffff;
    const base = ELEMS + ELEM_BYTES * slot;
    if (this.locked) {
      this.lock(rank, base);
      this.target3[0] = base + E_CN;
      this.win.Get(this.snap, rank, this.target3);
      this.win.Flush(rank);
      this.unlock(rank, base);
    } else {
      this.target3[0] = base + E_CN;
      this.win.Get_accumulate(this.snap, this.snap, rank, this.target3, MPI.NO_OP);
      this.win.Flush(rank);
    }
    const s = this.snap32;
    const cnHi = s[1]!;
    const tauHi = s[3]!;
    if (((cnHi >>> 12) & 0xffff) !== gen || (tauHi >>> 16) !== gen) return false;
    this.eState = cnHi >>> 30;
    if (this.eState === ST_F) return false;
    this.eNextHi = cnHi & 0xfff;
    this.eNextLo = s[0]!;
    this.eTau = (tauHi & 0xffff) * TWO32 + (s[2]! >>> 0);
    return true;
  }

  /** Publishes the reference this rank is about to read in o (the seed's observation element). */
  private observe(refHi: number, refLo: number): void {
    this.casNew32[0] = refLo;
    this.casNew32[1] = refHi;
    this.writeOwn(O, this.casNew, -1);
  }

  /** Sets casCmp to the cn word of the element just read (in snap), i.e. state/gen/next as read. */
  private cmpFromSnap(): void {
    this.casCmp32[0] = this.snap32[0]!;
    this.casCmp32[1] = this.snap32[1]!;
  }

  // ---------------------------------------------------------------- enqueue

  enqueue(value: number): boolean {
    if (this.nFree === 0) this.clean();
    if (this.nFree === 0) {
      this.counters.full++;
      return false;
    }
    const slot = this.freeSlots[--this.nFree]!;
    const gen = this.gens[slot]!;
    const base = ELEMS + ELEM_BYTES * slot;
    const myHi = this.rank + 1;
    const myLo = (slot << 16) | gen;
    // init_elem: v, then cn = (A, gen, no next). Nobody holds a reference to this incarnation yet.
    this.valF64[0] = value;
    this.writeOwn(base + E_V, this.val, base);
    this.casNew32[0] = 0;
    this.casNew32[1] = (ST_A << 30) | (gen << 12);
    this.writeOwn(base + E_CN, this.casNew, base);
    this.waiter.reset();
    for (;;) {
      // Lines 4–15: start from the tail hint, or from s while the hint is empty.
      this.readStart(T);
      let curHi = this.word32[1]!;
      let curLo = this.word32[0]!;
      if (curHi === 0) {
        this.setTau(base, gen, 1);
        this.casCmp32[0] = 0;
        this.casCmp32[1] = 0;
        this.casNew32[0] = myLo;
        this.casNew32[1] = myHi;
        if (this.cas(0, S, S - 8)) {
          this.counters.enqueues++;
          this.bcast(myHi, myLo, 1, true, true);
          this.observe(0, 0);
          return true;
        }
        curHi = this.casRes32[1]!;
        curLo = this.casRes32[0]!;
      }
      // Lines 16–40: walk to the element without successor and link behind it.
      for (;;) {
        this.observe(curHi, curLo);
        if (!this.readElem(curHi, curLo)) break; // recycled or free: restart from the hint
        if (this.eNextHi !== 0) {
          curHi = this.eNextHi;
          curLo = this.eNextLo;
          this.counters.enqHops++;
          continue;
        }
        const state = this.eState;
        this.setTau(base, gen, this.eTau + 1);
        this.cmpFromSnap();
        this.casNew32[0] = myLo;
        this.casNew32[1] = (this.casCmp32[1]! & ~0xfff) | myHi;
        if (this.cas(curHi - 1, ELEMS + ELEM_BYTES * (curLo >>> 16) + E_CN, ELEMS + ELEM_BYTES * (curLo >>> 16))) {
          this.counters.enqueues++;
          // Behind an A tail only the tails move; behind a D tail the queue was empty: heads too.
          const tau = this.eTau + 1;
          this.observe(0, 0); // an idle rank's stale observation would hold reclamation back
          this.bcast(myHi, myLo, tau, true, state === ST_D);
          return true;
        }
        this.waiter.pause(); // contention: re-read the same element (someone linked, or it changed state)
      }
      this.counters.restarts++;
      this.waiter.pause();
    }
  }

  private setTau(base: number, gen: number, tau: number): void {
    this.casNew32[0] = tau % TWO32 | 0;
    this.casNew32[1] = (gen << 16) | Math.floor(tau / TWO32);
    this.writeOwn(base + E_TAU, this.casNew, base);
  }

  // ---------------------------------------------------------------- dequeue

  dequeue(): number | null {
    this.waiter.reset();
    for (;;) {
      this.readStart(H);
      let curHi = this.word32[1]!;
      let curLo = this.word32[0]!;
      if (curHi === 0) {
        this.counters.empty++;
        return null;
      }
      for (;;) {
        this.observe(curHi, curLo);
        if (!this.readElem(curHi, curLo)) break;
        if (this.eState === ST_A) {
          const value = this.snapF64[2]!;
          this.cmpFromSnap();
          this.casNew32[0] = this.casCmp32[0]!;
          this.casNew32[1] = (this.casCmp32[1]! & ~(3 << 30)) | (ST_D << 30);
          const base = ELEMS + ELEM_BYTES * (curLo >>> 16);
          if (this.cas(curHi - 1, base + E_CN, base)) {
            this.counters.dequeues++;
            // Re-read for a fresh next; propagate it as the new head.
            if (this.readElem(curHi, curLo) && this.eNextHi !== 0) {
              const nHi = this.eNextHi;
              const nLo = this.eNextLo;
              if (this.readElem(nHi, nLo)) this.bcast(nHi, nLo, this.eTau, false, true);
            }
            this.observe(0, 0);
            return value;
          }
          this.waiter.pause();
          continue; // re-read through the self reference
        }
        // D
        if (this.eNextHi === 0) {
          this.observe(0, 0);
          this.counters.empty++;
          return null;
        }
        curHi = this.eNextHi;
        curLo = this.eNextLo;
        this.counters.deqHops++;
      }
      this.counters.restarts++;
      this.waiter.pause();
    }
  }

  // ---------------------------------------------------------------- bcast (seed 002 §2.6)

  /**
   * Pushes element e (reference, tau) into the tail hints (checkTail) and/or head hints
   * (checkHead) of every rank: self first, then the others in random order; stops when a rank
   * answers FAIL (both its hints, among those still checked, already name newer elements).
   */
  private bcast(eHi: number, eLo: number, eTau: number, checkTail: boolean, checkHead: boolean): void {
    const o = this.others;
    for (let i = o.length - 1; i > 0; i--) {
      const k = Math.floor(Math.random() * (i + 1));
      const x = o[i]!;
      o[i] = o[k]!;
      o[k] = x;
    }
    for (let i = -1; i < o.length; i++) {
      const a = i < 0 ? this.rank : o[i]!;
      this.counters.bcastSteps++;
      if (checkTail && !this.updateHint(a, T, eHi, eLo, eTau)) checkTail = false;
      if (checkHead && !this.updateHint(a, H, eHi, eLo, eTau)) checkHead = false;
      if (!checkTail && !checkHead) return;
    }
  }

  /** One hint of rank a (Table 2b/2c): false (FAIL) when it already names a newer element. */
  private updateHint(a: number, disp: number, eHi: number, eLo: number, eTau: number): boolean {
    this.waiter.reset();
    for (;;) {
      this.readWord(a, disp);
      const hHi = this.word32[1]!;
      const hLo = this.word32[0]!;
      if (hHi !== 0) {
        if (hHi === eHi && hLo === eLo) return true;
        // A stale hint (its cell recycled meanwhile) is older than anything live: replace it.
        if (this.readElem(hHi, hLo) && eTau < this.eTau) return false;
      }
      this.casCmp32[0] = hLo;
      this.casCmp32[1] = hHi;
      this.casNew32[0] = eLo;
      this.casNew32[1] = eHi;
      if (this.cas(a, disp, disp - 8)) return true;
      this.waiter.pause();
    }
  }

  // ---------------------------------------------------------------- cleaning (seed 002 §2.7)

  /** tau of the element a root word names; +Infinity when empty; retries while the root moves. */
  private rootTau(a: number, disp: number): number {
    this.waiter.reset();
    for (;;) {
      this.readWord(a, disp);
      const hi = this.word32[1]!;
      const lo = this.word32[0]!;
      if (hi === 0) return Infinity;
      if (this.readElem(hi, lo)) return this.eTau;
      if (disp === O) return Infinity; // an observation of a recycled cell protects nothing
      this.waiter.pause(); // the root moved on and its old target was recycled: read it again
    }
  }

  /** Frees every own D cell older than the oldest element any rank may still reach. */
  private clean(): void {
    this.counters.cleanings++;
    let tauMin = Infinity;
    let anyEmpty = false;
    for (let a = 0; a < this.size; a++) {
      for (const disp of ROOTS) {
        const t = this.rootTau(a, disp);
        if (t === Infinity && disp !== O) anyEmpty = true;
        if (t < tauMin) tauMin = t;
      }
    }
    // While some hint is still empty its rank may read s: s's element stays.
    if (anyEmpty) {
      const t = this.rootTau(0, S);
      if (t < tauMin) tauMin = t;
    }
    const me = this.rank;
    for (let j = 0; j < this.K; j++) {
      const gen = this.gens[j]!;
      const lo = (j << 16) | gen;
      if (!this.readElem(me + 1, lo) || this.eState !== ST_D || this.eTau >= tauMin) continue;
      this.cmpFromSnap();
      const ngen = (gen + 1) & 0xffff;
      this.casNew32[0] = 0;
      this.casNew32[1] = (ST_F << 30) | (ngen << 12);
      const base = ELEMS + ELEM_BYTES * j;
      if (this.cas(me, base + E_CN, base)) {
        this.gens[j] = ngen;
        this.freeSlots[this.nFree++] = j;
        this.counters.freed++;
      }
    }
  }

  free(): void {
    this.lw.free();
  }
}

const ROOTS = [H, T, O] as const;

export const LOCKFREE: QueueSpec = {
  name: 'lockfree',
  description: 'seed 002 "nd": per-rank pools, hints + bcast, consensus cell s, CAS + Get_accumulate only, logical-timestamp reclamation',
  defaults: { K: 256 },
  make: (ctx, params) => new DecentralizedQueue(ctx, params, false),
};

export const ELEMENT_LOCK: QueueSpec = {
  name: 'element-lock',
  description: 'seed 002 "bd": the same decentralized list with one CAS spin lock per element and per hint (Get/Put under the lock)',
  defaults: { K: 256 },
  make: (ctx, params) => new DecentralizedQueue(ctx, params, true),
};
