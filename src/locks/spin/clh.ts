/**
 * CLH queue lock and Craig's NUMA CLH variant over MPI RMA (research 000 §2.8, thesis §5.3,
 * Fig. 5.1 and 5.2; [Cra93]).
 *
 * Queue nodes rotate (a releaser adopts its predecessor's node), so a "pointer" names a node
 * in any rank's window: rank * 2^16 + byte displacement, packed into one int32 so the tail
 * swap is a single int32 Fetch_and_op.
 *
 * `clh` window layout (LockWindow, disp_unit 1, every rank):
 *   `locked` uint8 at 0: the node this rank owns at start; rank 0 also `dummy` uint8 at 64
 *   (the extra node the tail starts at, p+1 nodes in all) and `tail` int32 at 128.
 * Acquire: Put(1 → myreq.locked) + Flush; watch = Fetch_and_op(REPLACE myreq → tail);
 * poll watch.locked (Get + Flush, or a direct load when the node is in this rank's memory)
 * until 0. Release: Put(0 → myreq.locked) + Flush; myreq = watch.
 *
 * `clh-numa` window layout (every rank):
 *   `status` int32 at 0 (the node owned at start), `locked` uint8 at 64 (this rank's own spin
 *   flag, never rotates); rank 0 also `dummy` int32 at 128 and `tail` int32 at 192.
 *   status: PENDING = -1 (owner waits for or holds the lock), GRANTED = -2 (released), or
 *   the rank of the successor waiting on its own `locked` flag.
 * Acquire: Accumulate(REPLACE PENDING → myreq.status); locked = 1 (own memory); watch =
 * Fetch_and_op(REPLACE myreq → tail); s = Fetch_and_op(REPLACE my rank → watch.status); if
 * s == PENDING, spin on the own `locked` flag (direct load + Waiter.pause) until 0.
 * Release: s = Compare_and_swap(GRANTED, compare PENDING → myreq.status); if s is a rank,
 * Put(0 → s.locked) + Flush; myreq = watch.
 *
 * Deviations: the repository packs {rank, disp} in a uint64; an int32 with a 16-bit
 * displacement is enough for these layouts and keeps the swap allocation-free (no BigInt).
 * Craig marks PENDING/GRANTED in pointer low bits; like the thesis we use negative numbers.
 * The status writes that race with a remote Fetch_and_op/CAS use atomic Accumulate, not Put.
 * Neither lock has tryAcquire (a waiter cannot leave the queue; a CAS on the tail would be
 * exposed to ABA on rotating nodes).
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import { type LockContext, LockWindow, WindowLayout } from '../context.js';
import { type Lock, LockStats, type LockSpec } from '../lock.js';
import type { Waiter } from '../wait.js';
import { Rma } from './rma.js';

const MASTER = 0;
const DISP_BITS = 16;
const DISP_MASK = (1 << DISP_BITS) - 1;
const ptr = (rank: number, disp: number): number => rank * (1 << DISP_BITS) + disp;
const rankOf = (p: number): number => p >>> DISP_BITS;
const dispOf = (p: number): number => p & DISP_MASK;

const CLH_LAYOUT = new WindowLayout().field('locked', 1).field('dummy', 1).field('tail', 4);

export class ClhLock implements Lock {
  readonly name = 'clh';
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly rma: Rma;
  private readonly waiter: Waiter;
  private readonly rank: number;
  private myreq: number;
  private watch = -1;
  private readonly tail = CLH_LAYOUT.at('tail');

  constructor(ctx: LockContext) {
    if (ctx.size >= 1 << (31 - DISP_BITS)) throw new Error('clh: too many ranks for 16-bit rank pointers');
    this.rank = ctx.rank;
    this.lw = new LockWindow(ctx.comm, CLH_LAYOUT.size);
    this.rma = new Rma(this.lw.win);
    this.waiter = ctx.waiter();
    this.myreq = ptr(this.rank, CLH_LAYOUT.at('locked'));
    this.lw.mem[CLH_LAYOUT.at('locked')] = 0;
    if (this.rank === MASTER) {
      this.lw.mem[CLH_LAYOUT.at('dummy')] = 0;
      this.lw.i32[this.tail >> 2] = ptr(MASTER, CLH_LAYOUT.at('dummy'));
    }
    ctx.comm.Barrier();
  }

  private lockedAt(p: number): number {
    const r = rankOf(p);
    return r === this.rank ? Atomics.load(this.lw.mem, dispOf(p)) : this.rma.get8(r, dispOf(p));
  }

  acquire(): void {
    const mine = rankOf(this.myreq);
    if (mine === this.rank) Atomics.store(this.lw.mem, dispOf(this.myreq), 1);
    else this.rma.put8(1, mine, dispOf(this.myreq));
    this.watch = this.rma.fop32(this.myreq, MASTER, this.tail, MPI.REPLACE);
    if (this.lockedAt(this.watch) === 0) {
      this.stats.immediate++;
      return;
    }
    this.stats.delayed++;
    this.waiter.reset();
    do this.waiter.pause();
    while (this.lockedAt(this.watch) !== 0);
    this.waiter.reset();
  }

  release(): void {
    const mine = rankOf(this.myreq);
    if (mine === this.rank) Atomics.store(this.lw.mem, dispOf(this.myreq), 0);
    else this.rma.put8(0, mine, dispOf(this.myreq));
    this.myreq = this.watch;
  }

  free(): void {
    this.lw.free();
  }
}

const PENDING = -1;
const GRANTED = -2;
const NUMA_LAYOUT = new WindowLayout().field('status', 4).field('locked', 1).field('dummy', 4).field('tail', 4);
const LOCKED = NUMA_LAYOUT.at('locked');

export class ClhNumaLock implements Lock {
  readonly name = 'clh-numa';
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly rma: Rma;
  private readonly waiter: Waiter;
  private readonly rank: number;
  private myreq: number;
  private watch = -1;
  private readonly tail = NUMA_LAYOUT.at('tail');

  constructor(ctx: LockContext) {
    if (ctx.size >= 1 << (31 - DISP_BITS)) throw new Error('clh-numa: too many ranks for 16-bit rank pointers');
    this.rank = ctx.rank;
    this.lw = new LockWindow(ctx.comm, NUMA_LAYOUT.size);
    this.rma = new Rma(this.lw.win);
    this.waiter = ctx.waiter();
    this.myreq = ptr(this.rank, NUMA_LAYOUT.at('status'));
    this.lw.i32[NUMA_LAYOUT.at('status') >> 2] = GRANTED;
    this.lw.mem[LOCKED] = 0;
    if (this.rank === MASTER) {
      this.lw.i32[NUMA_LAYOUT.at('dummy') >> 2] = GRANTED;
      this.lw.i32[this.tail >> 2] = ptr(MASTER, NUMA_LAYOUT.at('dummy'));
    }
    ctx.comm.Barrier();
  }

  acquire(): void {
    this.rma.store32(PENDING, rankOf(this.myreq), dispOf(this.myreq));
    Atomics.store(this.lw.mem, LOCKED, 1);
    this.watch = this.rma.fop32(this.myreq, MASTER, this.tail, MPI.REPLACE);
    const s = this.rma.fop32(this.rank, rankOf(this.watch), dispOf(this.watch), MPI.REPLACE);
    if (s !== PENDING) {
      this.stats.immediate++;
      return;
    }
    this.stats.delayed++;
    this.waiter.reset();
    while (Atomics.load(this.lw.mem, LOCKED) !== 0) this.waiter.pause();
    this.waiter.reset();
  }

  release(): void {
    const s = this.rma.cas32(GRANTED, PENDING, rankOf(this.myreq), dispOf(this.myreq));
    if (s >= 0) this.rma.put8(0, s, LOCKED);
    this.myreq = this.watch;
  }

  free(): void {
    this.lw.free();
  }
}

export const CLH_LOCK: LockSpec = {
  name: 'clh',
  family: 'spin',
  description: 'CLH queue lock, rotating nodes addressed as rank+displacement, tail at rank 0 (thesis §5.3 Fig. 5.1)',
  rw: false,
  tryable: false,
  hierarchical: false,
  defaults: {},
  make: (ctx) => new ClhLock(ctx),
};

export const CLH_NUMA_LOCK: LockSpec = {
  name: 'clh-numa',
  family: 'spin',
  description: "Craig's NUMA CLH: PENDING/GRANTED status, waiter spins on its own flag (thesis §5.3 Fig. 5.2, [Cra93])",
  rw: false,
  tryable: false,
  hierarchical: false,
  defaults: {},
  make: (ctx) => new ClhNumaLock(ctx),
};
