/**
 * The centralized lock-based baseline of research seed 002 ("bc", Fig. 1a, §3.2): one lock,
 * a CAS spin lock word at rank 0, guards the whole queue; the head and tail references live at
 * rank 0, so every enqueue and dequeue goes through rank 0. The elements themselves stay in the
 * per-rank pools of size K, as in the lock-free queue (each rank enqueues its own cells), so the
 * three queues differ only in how they synchronize.
 *
 * LAYOUT (disp_unit 1): rank 0: 0: lock word (0 free, else holder + 1), 8: head, 16: tail.
 * Every rank: 64 + 24 j: element j = [state, next, v].
 * ENCODINGS: reference: hi = rank + 1 (0 = empty), lo = slot; state 0 = free, 1 = in use;
 * v = the value's float64 bits. Element fields other than state are only touched under the
 * lock (Get/Put); state is written with Accumulate(REPLACE) and read with Get_accumulate(NO_OP),
 * because its owner reads it without the lock to find cells that dequeuers released.
 *
 * enqueue: take a free own cell (rescanning the own states when the local free stack is empty;
 * false when none is free: the capacity is K per rank), write v, next = empty, state = 1, then
 * under the lock append it (tail's next, or head when empty; tail = it). dequeue: under the
 * lock take head, head = head.next (tail = empty when it was the last), state = 0. Linearization
 * points: inside the critical section. The seed's bc has one lock per process around every
 * access to that process's memory; one global lock is the same serialization with fewer lock
 * round trips (deviation, as the issue specifies "one lock").
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import type { LockContext } from '../context.js';
import { LockWindow } from '../context.js';
import type { LockParams } from '../lock.js';
import type { Waiter } from '../wait.js';
import type { DistQueue, QueueSpec } from './queue.js';

const LOCK = 0;
const HEAD = 8;
const TAIL = 16;
const ELEMS = 64;
const ELEM_BYTES = 24;

export class CentralLockQueue implements DistQueue {
  readonly name = 'central-lock';
  private readonly lw: LockWindow;
  private readonly win;
  private readonly rank: number;
  private readonly K: number;
  private readonly waiter: Waiter;
  private readonly inUse: Uint8Array;
  private readonly freeSlots: Int32Array;
  private nFree: number;

  private readonly mine = new BigInt64Array(1);
  private readonly zero = new BigInt64Array(1);
  private readonly one = new BigInt64Array(1);
  private readonly res = new BigInt64Array(1);
  private readonly res32 = new Int32Array(this.res.buffer);
  private readonly ref = new BigInt64Array(1);
  private readonly ref32 = new Int32Array(this.ref.buffer);
  private readonly pair = new BigInt64Array(2);
  private readonly pair32 = new Int32Array(this.pair.buffer);
  private readonly pairF64 = new Float64Array(this.pair.buffer);
  private readonly states: BigInt64Array;
  private readonly states32: Int32Array;
  private readonly t1: [number, number, typeof MPI.INT64_T] = [0, 1, MPI.INT64_T];
  private readonly t2: [number, number, typeof MPI.INT64_T] = [0, 2, MPI.INT64_T];

  constructor(ctx: LockContext, params?: LockParams) {
    this.rank = ctx.rank;
    this.K = Math.max(1, Math.floor(params?.K ?? CENTRAL_LOCK.defaults.K!));
    this.waiter = ctx.waiter();
    this.mine[0] = BigInt(this.rank + 1);
    this.one[0] = 1n;
    this.inUse = new Uint8Array(this.K);
    this.freeSlots = new Int32Array(this.K);
    for (let j = 0; j < this.K; j++) this.freeSlots[j] = this.K - 1 - j;
    this.nFree = this.K;
    this.states = new BigInt64Array(3 * this.K);
    this.states32 = new Int32Array(this.states.buffer);
    this.lw = new LockWindow(ctx.comm, ELEMS + ELEM_BYTES * this.K);
    this.win = this.lw.win;
    this.lw.mem.fill(0);
    ctx.comm.Barrier();
  }

  private lock(): void {
    this.waiter.reset();
    for (;;) {
      this.win.Compare_and_swap(this.mine, this.zero, this.res, 0, LOCK);
      this.win.Flush(0);
      if (this.res32[0] === 0 && this.res32[1] === 0) return;
      this.waiter.pause();
    }
  }

  private unlock(): void {
    this.t1[0] = LOCK;
    this.win.Accumulate(this.zero, 0, this.t1, MPI.REPLACE);
    this.win.Flush(0);
  }

  private put1(src: BigInt64Array, rank: number, disp: number): void {
    this.t1[0] = disp;
    this.win.Put(src, rank, this.t1);
  }

  enqueue(value: number): boolean {
    if (this.nFree === 0) this.reclaim();
    if (this.nFree === 0) return false;
    const slot = this.freeSlots[--this.nFree]!;
    this.inUse[slot] = 1;
    const me = this.rank;
    const base = ELEMS + ELEM_BYTES * slot;
    // next = empty, v; then state = 1.
    this.pair32[0] = this.pair32[1] = 0;
    this.pairF64[1] = value;
    this.t2[0] = base + 8;
    this.win.Put(this.pair, me, this.t2);
    this.t1[0] = base;
    this.win.Accumulate(this.one, me, this.t1, MPI.REPLACE);
    this.win.Flush(me);
    this.ref32[0] = slot;
    this.ref32[1] = me + 1;
    this.lock();
    this.t1[0] = TAIL;
    this.win.Get(this.res, 0, this.t1);
    this.win.Flush(0);
    if (this.res32[1] === 0) {
      this.put1(this.ref, 0, HEAD);
    } else {
      const tr = this.res32[1]! - 1;
      this.put1(this.ref, tr, ELEMS + ELEM_BYTES * this.res32[0]! + 8);
      this.win.Flush(tr);
    }
    this.put1(this.ref, 0, TAIL);
    this.win.Flush(0);
    this.unlock();
    return true;
  }

  dequeue(): number | null {
    this.lock();
    this.t1[0] = HEAD;
    this.win.Get(this.res, 0, this.t1);
    this.win.Flush(0);
    if (this.res32[1] === 0) {
      this.unlock();
      return null;
    }
    const r = this.res32[1]! - 1;
    const base = ELEMS + ELEM_BYTES * this.res32[0]!;
    this.t2[0] = base + 8;
    this.win.Get(this.pair, r, this.t2);
    this.win.Flush(r);
    const value = this.pairF64[1]!;
    // head = next; tail = empty when that was the last element.
    this.ref[0] = this.pair[0]!;
    this.put1(this.ref, 0, HEAD);
    if (this.ref32[1] === 0) this.put1(this.ref, 0, TAIL);
    this.win.Flush(0);
    this.t1[0] = base;
    this.win.Accumulate(this.zero, r, this.t1, MPI.REPLACE);
    this.win.Flush(r);
    this.unlock();
    return value;
  }

  /** Finds own cells that dequeuers released (state 0 while handed out). */
  private reclaim(): void {
    const me = this.rank;
    this.win.Get_accumulate(this.states, this.states, me, [ELEMS, 3 * this.K, MPI.INT64_T], MPI.NO_OP);
    this.win.Flush(me);
    for (let j = 0; j < this.K; j++) {
      if (this.inUse[j] === 1 && this.states32[6 * j] === 0 && this.states32[6 * j + 1] === 0) {
        this.inUse[j] = 0;
        this.freeSlots[this.nFree++] = j;
      }
    }
  }

  free(): void {
    this.lw.free();
  }
}

export const CENTRAL_LOCK: QueueSpec = {
  name: 'central-lock',
  description: 'seed 002 "bc": one CAS spin lock at rank 0 guards head/tail at rank 0; elements in per-rank pools',
  defaults: { K: 256 },
  make: (ctx, params) => new CentralLockQueue(ctx, params),
};
