import fs from 'node:fs';
import { Datatypes } from '../datatype.js';
import { Ops } from '../op.js';
import type { OpenFile } from './file.js';
import { readFully, writeFully } from './independent.js';
import { IOFailure, ioClassOf, ioMessage } from './os-errors.js';
import type { Intracomm } from '../comm.js';
import { STATE_DONE } from '../../mpid/index.js';
import type { Request } from '../request.js';

/**
 * A collective access as a list of steps: the generator yields each non-blocking collective it
 * needs done before it can go on, and returns the result. drive() runs it to the end (the
 * blocking forms); the non-blocking forms (collective-request.ts) advance it from a progress
 * hook, one step whenever the one before has completed, so their I-call never waits.
 */
export type Steps<T> = Generator<Request<unknown>, T, void>;

/** Runs the steps to the end, waiting for each. */
export function drive<T>(steps: Steps<T>): T {
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done === true) return r.value;
    r.value.Wait();
  }
}

/** Whether a request a step yielded has completed (without driving progress: a hook must not re-enter it). */
export function stepDone(r: Request<unknown>): boolean {
  return r.core === null || r.core.state === STATE_DONE;
}

/**
 * Two-phase collective I/O, as ROMIO does it (Thakur, Gropp, Lusk 1999). The file range the
 * whole call touches, [lo, hi), is cut into one contiguous domain per aggregator (the hint
 * cb_nodes, one rank per host by default), and each domain into windows of cb_buffer_size
 * bytes, one window per round. In a round every rank sends the pieces of its access that fall
 * in each aggregator's window (offset and length as metadata, then the bytes, two Alltoallv);
 * the aggregator lays them into one buffer and writes the window's span with one write. A
 * span with gaps is read first (read-modify-write), so bytes no rank writes keep their value:
 * the collective as a whole is still the strided writes the ranks asked for, done as few large
 * contiguous ones. Reads run the other way: requests go to the aggregators, which read each
 * span once and send every rank its pieces.
 *
 * Every rank runs every round (the Alltoallv are collective), even with nothing in it.
 */

/**
 * Buffers kept from call to call, one set per communicator a collective access runs on (the
 * blocking calls' and the non-blocking ones' never share one). Fresh memory costs a page fault
 * per 4 KiB at first touch (measured on a 2-core VM: 16 MiB took 200 ms to fill the first time,
 * 3 ms after), so reusing the aggregator's window and the exchange buffers is most of the speed
 * of collective I/O.
 */
class Scratch {
  private readonly buffers = new Map<string, Uint8Array>();
  take(name: string, size: number): Uint8Array {
    let b = this.buffers.get(name);
    if (b === undefined || b.length < size) {
      b = new Uint8Array(Math.max(size, 2 * (b?.length ?? 0)));
      this.buffers.set(name, b);
    }
    return b.subarray(0, size);
  }
}
const scratches = new WeakMap<Intracomm, Scratch>();
function scratchOf(comm: Intracomm): Scratch {
  let sc = scratches.get(comm);
  if (sc === undefined) {
    sc = new Scratch();
    scratches.set(comm, sc);
  }
  return sc;
}

/** One piece of a rank's access: file bytes [off, off + len) at `pos` of its stream data, for aggregator `agg`. */
interface Piece {
  readonly agg: number;
  readonly off: number;
  readonly len: number;
  readonly pos: number;
}

interface Plan {
  /** Pieces of this rank by round. */
  readonly rounds: Piece[][];
}

/** Splits this rank's access (stream bytes [start, start + length)) into pieces by round and aggregator; null when nobody accesses anything. */
function* plan(s: OpenFile, comm: Intracomm, start: number, length: number): Steps<Plan | null> {
  const lo = Float64Array.of(Infinity, -Infinity);
  const blocks: number[] = [];
  s.view.forEachBlock(start, start + length, (off, pos, len) => {
    blocks.push(off, pos, len);
    if (off < lo[0]!) lo[0] = off;
    if (off + len > lo[1]!) lo[1] = off + len;
  });
  const mine = Float64Array.of(-(lo[0] === Infinity ? Number.MAX_VALUE : lo[0]!), lo[1] === -Infinity ? -Number.MAX_VALUE : lo[1]!);
  const all = new Float64Array(2);
  yield comm.Iallreduce(mine, all, Ops.MAX);
  const gLo = -all[0]!;
  const gHi = all[1]!;
  if (!(gHi > gLo)) return null;
  const naggr = s.aggregators.length;
  const domain = Math.ceil((gHi - gLo) / naggr);
  const cb = s.hints.cbBufferSize;
  const nrounds = Math.ceil(domain / cb);
  const rounds: Piece[][] = Array.from({ length: nrounds }, () => []);
  for (let b = 0; b < blocks.length; b += 3) {
    let off = blocks[b]!;
    let pos = blocks[b + 1]!;
    let left = blocks[b + 2]!;
    while (left > 0) {
      const agg = Math.min(naggr - 1, Math.floor((off - gLo) / domain));
      const domainStart = gLo + agg * domain;
      const round = Math.floor((off - domainStart) / cb);
      const windowEnd = Math.min(domainStart + (round + 1) * cb, domainStart + domain);
      const len = Math.min(left, windowEnd - off);
      rounds[round]!.push({ agg, off, len, pos });
      off += len;
      pos += len;
      left -= len;
    }
  }
  return { rounds };
}

/** Counts and displacements per rank of one round's messages. */
class Exchange {
  readonly pieceCounts: Int32Array;
  readonly byteCounts: Int32Array;
  readonly metaDispls: Int32Array;
  readonly byteDispls: Int32Array;
  constructor(size: number) {
    this.pieceCounts = new Int32Array(size);
    this.byteCounts = new Int32Array(size);
    this.metaDispls = new Int32Array(size);
    this.byteDispls = new Int32Array(size);
  }
  /** Fills the displacements from the counts; returns [total pieces, total bytes]. */
  settle(): [number, number] {
    let p = 0;
    let b = 0;
    for (let r = 0; r < this.pieceCounts.length; r++) {
      this.metaDispls[r] = 2 * p;
      this.byteDispls[r] = b;
      p += this.pieceCounts[r]!;
      b += this.byteCounts[r]!;
    }
    return [p, b];
  }
  metaCounts(): Int32Array {
    return this.pieceCounts.map((c) => 2 * c);
  }
}

/** Sends this round's pieces' metadata to the aggregators; returns what this rank receives as an aggregator. */
function* exchangeMeta(s: OpenFile, comm: Intracomm, pieces: readonly Piece[], out: Exchange, inn: Exchange): Steps<{ order: Piece[]; recvMeta: Float64Array; inBytes: number }> {
  out.pieceCounts.fill(0);
  out.byteCounts.fill(0);
  const byAgg = pieces.slice().sort((x, y) => s.aggregators[x.agg]! - s.aggregators[y.agg]! || 0);
  for (const p of byAgg) {
    const dest = s.aggregators[p.agg]!;
    out.pieceCounts[dest]!++;
    out.byteCounts[dest] += p.len;
  }
  out.settle();
  const counts = new Int32Array(2 * s.size);
  for (let r = 0; r < s.size; r++) {
    counts[2 * r] = out.pieceCounts[r]!;
    counts[2 * r + 1] = out.byteCounts[r]!;
  }
  const got = new Int32Array(2 * s.size);
  yield comm.Ialltoall(counts, got);
  for (let r = 0; r < s.size; r++) {
    inn.pieceCounts[r] = got[2 * r]!;
    inn.byteCounts[r] = got[2 * r + 1]!;
  }
  const [inPieces, inBytes] = inn.settle();
  const sendMeta = new Float64Array(2 * byAgg.length);
  byAgg.forEach((p, i) => {
    sendMeta[2 * i] = p.off;
    sendMeta[2 * i + 1] = p.len;
  });
  const recvMeta = new Float64Array(2 * inPieces);
  yield comm.Ialltoallv([sendMeta, out.metaCounts(), out.metaDispls, Datatypes.DOUBLE], [recvMeta, inn.metaCounts(), inn.metaDispls, Datatypes.DOUBLE]);
  return { order: byAgg, recvMeta, inBytes };
}

/** The span [lo, hi) of pieces given as (off, len) pairs, and whether they cover it without gaps. */
function spanOf(meta: Float64Array): { lo: number; hi: number; whole: boolean } {
  let lo = Infinity;
  let hi = -Infinity;
  let sum = 0;
  const n = meta.length / 2;
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    const off = meta[2 * i]!;
    const len = meta[2 * i + 1]!;
    lo = Math.min(lo, off);
    hi = Math.max(hi, off + len);
    sum += len;
    starts.push(i);
  }
  let whole = sum === hi - lo;
  if (whole && n > 1) {
    starts.sort((a, b) => meta[2 * a]! - meta[2 * b]!);
    for (let k = 1; k < n && whole; k++) {
      const prev = starts[k - 1]!;
      if (meta[2 * starts[k]!]! < meta[2 * prev]! + meta[2 * prev + 1]!) whole = false;
    }
  }
  return { lo, hi, whole };
}

/** Collective write of `data` (stream bytes from `start`) through the aggregators. */
export function* collectiveWrite(s: OpenFile, comm: Intracomm, start: number, data: Uint8Array, length: number): Steps<void> {
  const p = yield* plan(s, comm, start, length);
  if (p === null) return;
  const out = new Exchange(s.size);
  const inn = new Exchange(s.size);
  const failure = new Failure();
  for (const pieces of p.rounds) {
    const { order, recvMeta, inBytes } = yield* exchangeMeta(s, comm, pieces, out, inn);
    const scratch = scratchOf(comm);
    const sendBytes = scratch.take('send', out.byteDispls[s.size - 1]! + out.byteCounts[s.size - 1]!);
    let at = 0;
    for (const piece of order) {
      sendBytes.set(data.subarray(piece.pos, piece.pos + piece.len), at);
      at += piece.len;
    }
    const recvBytes = scratch.take('recv', inBytes);
    yield comm.Ialltoallv([sendBytes, out.byteCounts, out.byteDispls, Datatypes.BYTE], [recvBytes, inn.byteCounts, inn.byteDispls, Datatypes.BYTE]);
    if (recvMeta.length > 0) failure.attempt(() => writeSpan(s, scratch, recvMeta, recvBytes));
  }
  // As ROMIO does, the call ends when every aggregator has written, with its error on every rank.
  yield* failure.agree(comm);
}

/** The first fs error of this rank in a collective call; agree() raises it (or another rank's) on every rank. */
class Failure {
  private errorClass = 0;
  private message = '';
  attempt(step: () => void): void {
    if (this.errorClass !== 0) return;
    try {
      step();
    } catch (e) {
      this.errorClass = ioClassOf(e);
      this.message = ioMessage(e);
    }
  }
  *agree(comm: Intracomm): Steps<void> {
    const all = new Int32Array(comm.Get_size());
    yield comm.Iallgather(Int32Array.of(this.errorClass), all);
    const first = all.findIndex((c) => c !== 0);
    if (first < 0) return;
    throw new IOFailure(all[first]!, this.errorClass !== 0 ? this.message : `rank ${first}'s part of the collective access failed`);
  }
}

/** An aggregator's write of one window: the pieces laid into one buffer, written with one call (read first if it has gaps). */
function writeSpan(s: OpenFile, scratch: Scratch, meta: Float64Array, bytes: Uint8Array): void {
  const { lo, hi, whole } = spanOf(meta);
  const body = (): void => {
    if (!whole && !s.fdReads) {
      // No read-modify-write on a file we cannot read: each piece on its own.
      let at = 0;
      for (let i = 0; i < meta.length; i += 2) {
        writeFully(s.fd, bytes, at, meta[i + 1]!, meta[i]!);
        at += meta[i + 1]!;
      }
      return;
    }
    const buffer = scratch.take('window', hi - lo);
    if (!whole) {
      const got = readFully(s.fd, buffer, 0, hi - lo, lo);
      if (got < hi - lo) buffer.fill(0, got);
    }
    let at = 0;
    for (let i = 0; i < meta.length; i += 2) {
      const len = meta[i + 1]!;
      buffer.set(bytes.subarray(at, at + len), meta[i]! - lo);
      at += len;
    }
    writeFully(s.fd, buffer, 0, hi - lo, lo);
  };
  // Aggregators' domains never overlap; atomic mode orders them against independent accesses.
  if (s.atomic) s.window.exclusive(body);
  else body();
}

/** Collective read into `target` (stream bytes from `start`) through the aggregators; returns the bytes read before the end of the file. */
export function* collectiveRead(s: OpenFile, comm: Intracomm, start: number, target: Uint8Array, length: number): Steps<number> {
  const p = yield* plan(s, comm, start, length);
  if (p !== null) {
    const out = new Exchange(s.size);
    const inn = new Exchange(s.size);
    const failure = new Failure();
    for (const pieces of p.rounds) {
      const { order, recvMeta, inBytes } = yield* exchangeMeta(s, comm, pieces, out, inn);
      const scratch = scratchOf(comm);
      const reply = scratch.take('send', inBytes);
      if (recvMeta.length > 0) failure.attempt(() => readSpan(s, scratch, recvMeta, reply));
      const got = scratch.take('recv', out.byteDispls[s.size - 1]! + out.byteCounts[s.size - 1]!);
      yield comm.Ialltoallv([reply, inn.byteCounts, inn.byteDispls, Datatypes.BYTE], [got, out.byteCounts, out.byteDispls, Datatypes.BYTE]);
      let at = 0;
      for (const piece of order) {
        target.set(got.subarray(at, at + piece.len), piece.pos);
        at += piece.len;
      }
    }
    yield* failure.agree(comm);
  }
  return s.view.bytesBefore(fs.fstatSync(s.fd).size, start, start + length);
}

/** An aggregator's read of one window: the span read once, each piece cut from it. */
function readSpan(s: OpenFile, scratch: Scratch, meta: Float64Array, reply: Uint8Array): void {
  const { lo, hi } = spanOf(meta);
  const buffer = scratch.take('window', hi - lo);
  const body = (): void => {
    const got = readFully(s.fd, buffer, 0, hi - lo, lo);
    if (got < hi - lo) buffer.fill(0, got);
  };
  if (s.atomic) s.window.exclusive(body);
  else body();
  let at = 0;
  for (let i = 0; i < meta.length; i += 2) {
    const len = meta[i + 1]!;
    reply.set(buffer.subarray(meta[i]! - lo, meta[i]! - lo + len), at);
    at += len;
  }
}
