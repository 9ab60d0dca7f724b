import type { NodeRegion } from '../../mpid/memory.js';
import type { CommCore } from '../comm.js';
import { copyBytes } from '../../common/copy.js';
import { loadShared } from '../../common/shared-load.js';
import { COLL_SHM_SMALL } from '../config.js';
import type { Datatype, ElementKind } from '../datatype.js';
import { type Numeric, type Op, kindWidth, wholeView } from '../op.js';
import type { Collective } from './algorithm-counts.js';
import { type Call, execute, newSchedule, traceCall } from './common.js';
import { shareNodeSegment } from './node-segment.js';

/**
 * Small blocking collectives of a communicator whose ranks all share one node's memory, through
 * a segment of cells instead of messages: the idea SCI-MPICH's collectives apply to the barrier
 * (003c §1.5) and 003c describes for broadcast and reduction, a writer storing into shared
 * memory and readers polling it. A schedule (rounds, closures, point-to-point messages) costs
 * more than the data of an 8-byte Bcast or Allreduce; here each call is a few stores and loads.
 *
 * One cell per rank with DEPTH slots; generation g of a rank lives in slot g % DEPTH. A slot
 * starts with its STAMP word and the data follows in the same cache line (up to 56 bytes), so a
 * reader that sees the stamp has the data's line too: one line moves between cores per read,
 * where a flag line and a data line made two. Every fast collective of the communicator has
 * the next generation g, the same on every rank because they call collectives in the same
 * order. A rank stores STAMP = g in its slot of g when it arrives at generation g, after writing
 * its data for g (if it contributes any). So a rank whose latest stamp is g + 1 or later has
 * finished generation g, reading included, and a writer of generation g, about to overwrite
 * what generation g - DEPTH left in its slot, only needs every rank at g - DEPTH + 1 or later:
 * a root (Bcast) or a contributor that need not wait for the others (Reduce) runs up to
 * DEPTH - 1 calls ahead of the slowest. Readers wait
 * for the stamp of the slots they read. Reductions combine the slots in rank order on whoever
 * needs the result, so every rank of an Allreduce computes the same bits. Generations are int32
 * and compared modulo 2^32.
 *
 * A waiting rank drives progress (point-to-point and the one-sided agents go on) and sleeps
 * on its doorbell after the spin budget; whoever stores a word others wait for rings them.
 * The segment is made at the communicator's first fast collective, as the shm_counter barrier
 * makes its own (node-segment.ts): rank 0 creates it, the others map it and count themselves in
 * at word JOINED of its header line, before the cells.
 *
 * Research ids cited here: see docs/references.md.
 */

/** Word of the segment's header line that counts the ranks that mapped the segment. */
const JOINED = 0;
/** Bytes of the header line, and the alignment of the slots (the adjacent-line prefetcher pairs 64-byte lines). */
const LINE = 128;
/**
 * Slots per rank: a rank may run DEPTH - 1 generations ahead of the slowest (a power of two).
 * Deeper lets a Bcast root run ahead, as eager messages let MPICH's; measured, it did not pay:
 * osu_bcast at 8 B, 2 ranks, 200,000 calls took 0.40-0.45 us a call with 8 slots and 0.29-0.32
 * with 2 (4 slots: 0.39), and Reduce and Allreduce were the same (4 ranks on 2 cores: noise).
 */
const DEPTH = 2;
/** Bytes from a slot's STAMP word (its first) to its data: 8, so doubles are aligned. */
const STAMP_BYTES = 8;
/** Polls before a wait registers its progress hook (most waits end sooner). */
const SHORT_SPIN = 200;
/** Largest communicator served: every rank scans all cells per call. */
const MAX_RANKS = 64;

const limit = COLL_SHM_SMALL.read();
const slotBytes = Math.ceil((STAMP_BYTES + limit) / LINE) * LINE;
const cellBytes = DEPTH * slotBytes;

interface Cells {
  readonly words: Int32Array;
  readonly bytes: Uint8Array;
  generation: number;
  /**
   * A generation every rank is known to have reached (its stamps read, or rank 0's Barrier word,
   * which comes after every arrival): a writer needs no read of the others' stamps while its
   * oldest slot's generation is not past it. After a Barrier a Bcast's root reads none.
   */
  everyoneAt: number;
  /** Typed views of all the cells and of `acc`, by element kind (made at a kind's first reduction). */
  readonly views: Map<ElementKind, KindViews | null>;
  /** The kind of the last reduction and its views: a loop reduces one kind, so no map lookup. */
  viewKind: ElementKind | null;
  kindViews: KindViews | null;
  /** This rank's private accumulator of a reduction (one slot's bytes). */
  readonly acc: Uint8Array;
}

interface KindViews {
  readonly cells: Numeric;
  readonly acc: Numeric;
}

const cellsOf = new WeakMap<CommCore, Cells | null>();

/**
 * The communicator's cells when its fast collectives apply (null otherwise, the same answer on
 * every rank: it comes from the business cards, which all ranks share). Makes them at first use.
 */
function cellsFor(c: Call): Cells | null {
  const core = c.core;
  const known = cellsOf.get(core);
  if (known !== undefined) return known;
  let cells: Cells | null = null;
  if (limit > 0 && core.size > 1 && core.size <= MAX_RANKS && oneSharedNode(c)) cells = setup(c);
  cellsOf.set(core, cells);
  return cells;
}

function oneSharedNode(c: Call): boolean {
  const { world, core } = c;
  if (!world.nodesUseSharedMemory || world.nodeMemory === null) return false;
  const node = world.cards[core.worldRanks[0]!]!.nodeId;
  for (let r = 1; r < core.size; r++) if (world.cards[core.worldRanks[r]!]!.nodeId !== node) return false;
  return true;
}

function setup(c: Call): Cells {
  const members = Array.from({ length: c.core.size }, (_, r) => r);
  const made: NodeRegion[] = [];
  const s = newSchedule(c);
  shareNodeSegment(s, c.world, members, LINE + c.core.size * cellBytes, JOINED, (region) => made.push(region));
  execute(c, s, false);
  const words = made[0]!.words;
  return { words, bytes: new Uint8Array(words.buffer), generation: 0, everyoneAt: 0, views: new Map(), viewKind: null,
    kindViews: null, acc: new Uint8Array(slotBytes) };
}

/**
 * What a waiting rank waits for: words[at] reached target (generations compared modulo 2^32).
 * It is also a progress hook, so the engine's last poll before the rank sleeps sees a store
 * that came between our check and the sleep announcement (whose ring found nobody asleep).
 */
const wanted = {
  words: new Int32Array(new SharedArrayBuffer(4)) as Int32Array,
  at: 0,
  target: 0,
  reached(): boolean {
    return stampReached(this.words, this.at, this.target);
  },
  advance(): number {
    return this.reached() ? 1 : 0;
  },
};

/** Whether words[at] has reached `target`, generations compared modulo 2^32. */
function stampReached(words: Int32Array, at: number, target: number): boolean {
  return ((loadShared(words, at) - target) | 0) >= 0;
}

/** Blocks until words[at] >= target, driving progress and sleeping on the doorbell after the spin budget. */
function waitFor(c: Call, words: Int32Array, at: number, target: number): void {
  if (stampReached(words, at, target)) return;
  const { engine, progress } = c.world;
  for (let spin = 0; spin < SHORT_SPIN; spin++) {
    engine.progress();
    if (stampReached(words, at, target)) return;
  }
  wanted.words = words;
  wanted.at = at;
  wanted.target = target;
  engine.addProgressHook(wanted);
  try {
    while (!wanted.reached()) progress.step();
  } finally {
    engine.removeProgressHook(wanted);
  }
}

/** Where rank `rank`'s slot of generation g starts in the cells' bytes (its STAMP word). */
function slotAt(rank: number, g: number): number {
  return LINE + rank * cellBytes + (g & (DEPTH - 1)) * slotBytes;
}

/** Where the data of rank `rank`'s slot of generation g starts. */
function dataAt(rank: number, g: number): number {
  return slotAt(rank, g) + STAMP_BYTES;
}

/** Rank `rank`'s data of generation g, its first `length` bytes (a view: for the reduction kernels). */
function slot(cells: Cells, rank: number, g: number, length: number): Uint8Array {
  const at = dataAt(rank, g);
  return cells.bytes.subarray(at, at + length);
}

/** Copies `length` bytes of `from` from byte `at` into rank `rank`'s slot of generation g (no view made per call). */
function fill(cells: Cells, rank: number, g: number, from: Uint8Array, at = 0, length = from.length): void {
  copyBytes(from, at, cells.bytes, dataAt(rank, g), length);
}

/** Copies `length` bytes of rank `rank`'s slot of generation g, from byte `skip`, into `to` at `at`. */
function drain(cells: Cells, rank: number, g: number, skip: number, length: number, to: Uint8Array, at: number): void {
  copyBytes(cells.bytes, dataAt(rank, g) + skip, to, at, length);
}

/**
 * Every rank has arrived at generation g - DEPTH + 1 (its slot of that generation has that
 * stamp, or a later one), so none still reads what generation g - DEPTH left in our slot of g.
 */
function waitWritable(c: Call, cells: Cells, g: number): void {
  const oldest = (g - DEPTH + 1) | 0;
  if (((cells.everyoneAt - oldest) | 0) >= 0) return;
  for (let r = 0; r < c.core.size; r++) waitFor(c, cells.words, slotAt(r, oldest) >> 2, oldest);
  cells.everyoneAt = oldest;
}

/** Rank `rank` has arrived at generation g (its data of g, if any, is there). */
function waitArrived(c: Call, cells: Cells, rank: number, g: number): void {
  waitFor(c, cells.words, slotAt(rank, g) >> 2, g);
}

/** Stores our STAMP = g and rings every rank of the communicator that may sleep waiting for it. */
function publish(c: Call, cells: Cells, g: number): void {
  const { core, world } = c;
  const at = slotAt(core.rank, g) >> 2;
  // A plain store when the waiters fence us before they sleep (mpid/publish-fence.ts): the
  // locked one would wait for the line every waiter polls.
  if (world.plainPublish) cells.words[at] = g;
  else Atomics.store(cells.words, at, g);
  for (let r = 0; r < core.size; r++) if (r !== core.rank) world.wakeLocal(core.worldRanks[r]!);
}

/** The next generation of the communicator's fast collectives. */
function next(cells: Cells): number {
  return (cells.generation = (cells.generation + 1) | 0);
}

/** The cells when a collective moving `bytes` per cell may go this way, else null. */
function start(c: Call, collective: Collective, bytes: number): Cells | null {
  const cells = bytes > limit ? null : cellsFor(c);
  if (cells !== null) traceCall(c, collective, 'node_cells', bytes);
  return cells;
}

/**
 * Check-in and check-out through rank 0, as SCI-MPICH's barrier process (shm-barrier.ts) and
 * MPICH's do: the others publish their arrival and wait for rank 0's word, rank 0 waits for every
 * arrival and then publishes. Rank 0 so leaves first, and the root of what follows (a Bcast from
 * rank 0) has its data out before the others look: osu_bcast at 8 B, 4 ranks on 2 cores, took
 * 4-23 us when every rank waited for every other (the last to arrive left first), 1.3-2.2 us
 * now; at 2 ranks it changed little, and the Barrier itself takes ~0.1 us more there.
 */
export function smallBarrier(c: Call): boolean {
  const cells = start(c, 'barrier', 0);
  if (cells === null) return false;
  const g = next(cells);
  if (c.core.rank === 0) {
    for (let r = 1; r < c.core.size; r++) waitArrived(c, cells, r, g);
    publish(c, cells, g);
  } else {
    publish(c, cells, g);
    waitArrived(c, cells, 0, g);
  }
  cells.everyoneAt = g;
  return true;
}

export function smallBcast(c: Call, buf: Uint8Array, root: number): boolean {
  const cells = start(c, 'bcast', buf.length);
  if (cells === null) return false;
  const g = next(cells);
  if (c.core.rank === root) {
    waitWritable(c, cells, g);
    fill(cells, root, g, buf);
    publish(c, cells, g);
  } else {
    publish(c, cells, g);
    waitArrived(c, cells, root, g);
    drain(cells, root, g, 0, buf.length, buf, 0);
  }
  return true;
}

/**
 * Reduce (`root` >= 0: the result lands in `out` at the root only) or Allreduce (`root` < 0:
 * everywhere). `own` is this rank's contribution; `out` may be the same memory (IN_PLACE).
 */
export function smallReduce(c: Call, own: Uint8Array, out: Uint8Array, op: Op, count: number, dt: Datatype, root: number): boolean {
  const n = own.length;
  const cells = start(c, root < 0 ? 'allreduce' : 'reduce', n);
  if (cells === null) return false;
  const g = next(cells);
  const { rank, size } = c.core;
  waitWritable(c, cells, g);
  fill(cells, rank, g, own);
  publish(c, cells, g);
  if (root < 0 || rank === root) {
    for (let r = 0; r < size; r++) waitArrived(c, cells, r, g);
    cells.everyoneAt = g;
    combine(cells, g, size, n, out, op, count, dt);
  }
  return true;
}

/**
 * out = x0 op (x1 op (... op x(p-1))) of the cells' slots of generation g (apply(in, inout) makes
 * inout = in op inout). Predefined ops accumulate in the rank's private `acc` through typed views
 * made once per kind (Op.applyAt: no view per call); user and pair ops apply to `out` itself.
 */
function combine(cells: Cells, g: number, size: number, n: number, out: Uint8Array, op: Op, count: number, dt: Datatype): void {
  const width = kindWidth(dt.kind);
  const v = n % width === 0 ? viewsFor(cells, dt.kind) : null;
  if (v !== null) {
    copyBytes(cells.bytes, dataAt(size - 1, g), cells.acc, 0, n);
    // applyAt declines by op and kind alone, so at the first step or never.
    let r = size - 2;
    while (r >= 0 && op.applyAt(v.cells, dataAt(r, g) / width, v.acc, 0, n / width, dt.kind)) r--;
    if (r < 0) {
      copyBytes(cells.acc, 0, out, 0, n);
      return;
    }
  }
  drain(cells, size - 1, g, 0, n, out, 0);
  for (let r = size - 2; r >= 0; r--) op.apply(slot(cells, r, g, n), out, count, dt);
}

function viewsFor(cells: Cells, kind: ElementKind): KindViews | null {
  if (kind === cells.viewKind) return cells.kindViews;
  let v = cells.views.get(kind);
  if (v === undefined) {
    const all = wholeView(cells.bytes.buffer, kind);
    const acc = wholeView(cells.acc.buffer, kind);
    v = all !== null && acc !== null ? { cells: all, acc } : null;
    cells.views.set(kind, v);
  }
  cells.viewKind = kind;
  cells.kindViews = v;
  return v;
}

/**
 * Allgather of `block` bytes per rank into `out` (rank r's block at r * block); ours is `block`
 * bytes of `own` from byte `ownAt` (which may lie in `out`: it is stored before anything is read).
 */
export function smallAllgather(c: Call, own: Uint8Array, ownAt: number, block: number, out: Uint8Array): boolean {
  const cells = start(c, 'allgather', block);
  if (cells === null) return false;
  const g = next(cells);
  const { rank, size } = c.core;
  waitWritable(c, cells, g);
  fill(cells, rank, g, own, ownAt, block);
  publish(c, cells, g);
  for (let r = 0; r < size; r++) {
    waitArrived(c, cells, r, g);
    drain(cells, r, g, 0, block, out, r * block);
  }
  cells.everyoneAt = g;
  return true;
}

/** Alltoall of `block` bytes per pair: `send` holds our block for rank r at r * block. */
export function smallAlltoall(c: Call, send: Uint8Array, out: Uint8Array, block: number): boolean {
  const cells = start(c, 'alltoall', send.length);
  if (cells === null) return false;
  const g = next(cells);
  const { rank, size } = c.core;
  waitWritable(c, cells, g);
  fill(cells, rank, g, send);
  publish(c, cells, g);
  for (let r = 0; r < size; r++) {
    waitArrived(c, cells, r, g);
    drain(cells, r, g, rank * block, block, out, r * block);
  }
  cells.everyoneAt = g;
  return true;
}
