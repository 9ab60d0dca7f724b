/**
 * Checks one distributed queue of src/locks/queue (argument 1: its registry name; 2: mixed
 * operations per rank, default 300; 3: values per producer in the FIFO phase, default 40;
 * 4: pool size of the "full" phase, default 3). Values encode (producer rank, sequence number)
 * as rank * 2^20 + seq. Three phases, each on a fresh queue:
 *  1. mixed: every rank enqueues and dequeues at random (50/50) concurrently, then every rank
 *     drains until empty; rank 0 gathers everything: every value enqueued (enqueue returned
 *     true) is dequeued exactly once, nothing else is dequeued, and in each consumer's history
 *     the values of one producer come in that producer's order (a FIFO consequence);
 *     The same again with a pool of 6 per rank: cleaning runs while the others operate;
 *  2. FIFO: the last rank dequeues while all others enqueue; the consumer must see every
 *     producer's values in order, all of them;
 *  3. full: with a tiny pool (K per rank) every rank enqueues until enqueue returns false
 *     (exactly K successes on an empty queue), then dequeues K values (never empty: the queue
 *     holds size*K), then enqueues again: at least K-1 succeed after reclamation (the list's
 *     last element may stay in use), and a final drain returns exactly the values enqueued.
 */
import { MPI } from '../../../src/index.js';
import { LockContext } from '../../../src/locks/index.js';
import { type DistQueue, queueSpec } from '../../../src/locks/queue/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const name = process.argv[2] ?? 'lockfree';
const mixedOps = Number(process.argv[3] ?? 300);
const fifoPerProducer = Number(process.argv[4] ?? 40);
const tinyK = Number(process.argv[5] ?? 3);
const SHIFT = 1 << 20;
const nap = new Int32Array(new SharedArrayBuffer(4));
const spec = queueSpec(name);
const ctx = new LockContext(comm);
const trace = (what: string): void => {
  if (process.env.QUEUE_TRACE !== undefined) console.error(`rank ${rank}: ${what}`);
};
const tag = (v: number): string => `${Math.floor(v / SHIFT)}:${v % SHIFT}`;

let seed = 12345 + 7919 * rank;
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/** Drains until empty into `out`. */
function drain(q: DistQueue, out: number[]): void {
  for (;;) {
    const v = q.dequeue();
    if (v === null) return;
    out.push(v);
  }
}

/** Checks a consumer history: per producer strictly increasing sequence numbers. */
function checkOrder(history: readonly number[], who: string): void {
  const last = new Map<number, number>();
  for (const v of history) {
    const p = Math.floor(v / SHIFT);
    const s = v % SHIFT;
    const prev = last.get(p) ?? -1;
    if (s <= prev) {
      t.check(false, `${name} ${who}: producer ${p}'s value ${s} dequeued after ${prev}`);
      return;
    }
    last.set(p, s);
  }
}

/** Gathers per-rank enqueue counts and dequeued values at rank 0; checks exactly-once. */
function checkExactlyOnce(enqueued: number, dequeued: readonly number[], phase: string): void {
  const counts = new Int32Array(size);
  comm.Allgather(Int32Array.of(enqueued), counts);
  const lists = comm.allgather([...dequeued]) as number[][];
  const all = lists.flat();
  const total = all.length;
  if (rank !== 0) return;
  const seen = new Map<number, number>();
  for (let i = 0; i < total; i++) seen.set(all[i]!, (seen.get(all[i]!) ?? 0) + 1);
  let missing = 0;
  let dup = 0;
  for (let r = 0; r < size; r++) {
    for (let s = 0; s < counts[r]!; s++) {
      const c = seen.get(r * SHIFT + s) ?? 0;
      if (c === 0 && missing++ < 5) t.check(false, `${name} ${phase}: value ${r}:${s} lost`);
      if (c > 1 && dup++ < 5) t.check(false, `${name} ${phase}: value ${r}:${s} dequeued ${c} times`);
      seen.delete(r * SHIFT + s);
    }
  }
  for (const v of seen.keys()) t.check(false, `${name} ${phase}: value ${tag(v)} dequeued but never enqueued`);
  const sum = Array.from(counts).reduce((a, b) => a + b, 0);
  t.equal(total, sum, `${name} ${phase}: dequeued count`);
}

// ---- 1. mixed producers/consumers, then drain; again with a small pool (K=6), so cleaning
// runs concurrently with the other ranks' operations and enqueue may report full meanwhile.
function mixed(phase: string, params?: Record<string, number>): void {
  const q = spec.make(ctx, params);
  let seq = 0;
  const got: number[] = [];
  comm.Barrier();
  for (let i = 0; i < mixedOps; i++) {
    if (random() < 0.5) {
      if (q.enqueue(rank * SHIFT + seq)) seq++;
    } else {
      const v = q.dequeue();
      if (v !== null) got.push(v);
    }
  }
  comm.Barrier();
  drain(q, got);
  comm.Barrier();
  t.equal(q.dequeue(), null, `${name} ${phase}: empty after the drain`);
  checkOrder(got, `${phase} consumer ${rank}`);
  const counters = (q as { counters?: object }).counters;
  if (process.env.QUEUE_STATS !== undefined && counters !== undefined) console.error(`rank ${rank} ${name} ${phase}:`, JSON.stringify(counters));
  checkExactlyOnce(seq, got, phase);
  q.free();
}
trace('mixed');
mixed('mixed');
trace('mixed-small-pool');
mixed('mixed-small-pool', { K: 6 });
trace('fifo');

// ---- 2. FIFO per producer: one consumer, the others produce.
{
  const q = spec.make(ctx);
  const consumer = size - 1;
  comm.Barrier();
  let seq = 0;
  const got: number[] = [];
  if (rank === consumer) {
    const expected = (size - 1) * fifoPerProducer;
    const deadline = Date.now() + 30000;
    while (got.length < expected && Date.now() < deadline) {
      const v = q.dequeue();
      if (v !== null) got.push(v);
      else Atomics.wait(nap, 0, 0, 0.05); // leave the cores to the producers
    }
    t.equal(got.length, expected, `${name} fifo: values the consumer received`);
    checkOrder(got, 'fifo consumer');
  } else {
    while (seq < fifoPerProducer) {
      if (q.enqueue(rank * SHIFT + seq)) seq++;
      else t.check(false, `${name} fifo: enqueue reported full`);
    }
  }
  comm.Barrier();
  drain(q, got);
  checkExactlyOnce(seq, got, 'fifo');
  q.free();
}

// ---- 3. full: a tiny pool.
trace('full');
{
  const q = spec.make(ctx, { K: tinyK });
  comm.Barrier();
  let seq = 0;
  while (seq < tinyK + 5 && q.enqueue(rank * SHIFT + seq)) seq++;
  t.equal(seq, tinyK, `${name} full: successful enqueues into an empty queue with K=${tinyK}`);
  t.equal(q.enqueue(rank * SHIFT + seq), false, `${name} full: enqueue still reports full`);
  comm.Barrier();
  const got: number[] = [];
  for (let i = 0; i < tinyK; i++) {
    const v = q.dequeue();
    if (v === null) t.check(false, `${name} full: dequeue ${i} found the queue empty`);
    else got.push(v);
  }
  comm.Barrier();
  const before = seq;
  while (seq < before + tinyK + 5 && q.enqueue(rank * SHIFT + seq)) seq++;
  t.check(seq - before >= tinyK - 1, `${name} full: only ${seq - before} enqueues after the pool was dequeued (K=${tinyK})`);
  comm.Barrier();
  drain(q, got);
  comm.Barrier();
  t.equal(q.dequeue(), null, `${name} full: empty after the drain`);
  checkOrder(got, `full consumer ${rank}`);
  const counters = (q as { counters?: object }).counters;
  if (process.env.QUEUE_STATS !== undefined && counters !== undefined) console.error(`rank ${rank} ${name} full:`, JSON.stringify(counters));
  checkExactlyOnce(seq, got, 'full');
  q.free();
}

trace('finalize');
ctx.free();
MPI.Finalize();
trace('finalized');
t.finish(rank);
