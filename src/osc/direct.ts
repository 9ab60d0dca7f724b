// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { AtomicViews } from './atomic.js';
import { kindBytes, type Reducer } from './codes.js';
import { LockAreas, UPDATE_AGENT, UPDATE_CPU } from './lock-area.js';
import type { Part } from './window-memory.js';
import { CAS } from './wire.js';

/**
 * Direct access (003b §3.2a) to a target's part, complete when the call returns and served
 * without the owner: Put and Get by stores and loads (checked remote writes across SCI
 * nodes); accumulates and atomics by CPU atomics (memory shared with the owner, cpu mode) or
 * by loads and stores under the part's mutex (device mode, lock-area.ts), which keeps them
 * atomic per element among all ranks. `list`: a derived target type's (offset, length) blocks.
 */

/**
 * One aligned 4- or 8-byte word moved as one store or load: V8 copies into and out of a
 * SharedArrayBuffer byte by byte, so a rank polling the word (a lock hand-over: MPI-3.1 §11.7
 * allows polling in the unified model) could otherwise see it half written.
 */
export class WordStage {
  private readonly bytes = new Uint8Array(8);
  private readonly i32 = new Int32Array(this.bytes.buffer);
  private readonly i64 = new BigInt64Array(this.bytes.buffer);

  store(words: { readonly i32: Int32Array; readonly i64: BigInt64Array }, at: number, len: number, data: Uint8Array, pos: number): void {
    this.bytes.set(data.subarray(pos, pos + len));
    // `at` is aligned (isWord) and may pass 2^31: a division, not a signed shift.
    if (len === 4) Atomics.store(words.i32, at / 4, this.i32[0]!);
    else Atomics.store(words.i64, at / 8, this.i64[0]!);
  }

  load(words: { readonly i32: Int32Array; readonly i64: BigInt64Array }, at: number, len: number, into: Uint8Array, pos: number): void {
    if (len === 4) this.i32[0] = Atomics.load(words.i32, at / 4);
    else this.i64[0] = Atomics.load(words.i64, at / 8);
    into.set(this.bytes.subarray(0, len), pos);
  }
}

/** Whether [at, at + len) is one aligned 4- or 8-byte word. */
export function isWord(at: number, len: number): boolean {
  return (len === 4 || len === 8) && (at & (len - 1)) === 0;
}

/**
 * Accumulates of at least this many elements run as one native loop under the part's mutex
 * (beginBulkUpdate) instead of one CPU atomic per element: the mutex and the mode change cost
 * about what 64 atomics do.
 */
const BULK_MIN_ELEMENTS = 64;

export class DirectAccess {
  private readonly word = new WordStage();

  constructor(private readonly parts: readonly (Part | null)[], private readonly locks: LockAreas, private readonly reducer: Reducer) {}

  /** Put (data into the part) or Get (the part into `into`). */
  transfer(t: number, put: boolean, offset: number, list: Float64Array | null, bytes: number, data: Uint8Array | null,
           into: Uint8Array | null): void {
    const part = this.parts[t]!;
    const at = part.base + offset;
    const n = list !== null ? list.length : 2;
    for (let b = 0, pos = 0; b < n; b += 2) {
      const o = at + (list !== null ? list[b]! : 0);
      const len = list !== null ? list[b + 1]! : bytes;
      // One aligned word: one load (any part: remote loads of a word are whole on SCI too) or,
      // in memory we share with the owner, one store (remote stores go through the checked
      // copy, whose word-sized copy is one store).
      if (isWord(o, len) && (!put || part.atomics !== null)) {
        if (put) this.word.store(part.words, o, len, data!, pos);
        else this.word.load(part.words, o, len, into!, pos);
      } else if (put) part.mem.write(o, data!, pos, len);
      else into!.set(part.mem.bytes.subarray(o, o + len), pos);
      pos += len;
    }
  }

  /**
   * An accumulate, Get_accumulate or Compare_and_swap (request `kind`) on elements of
   * `elemKind` with op code `op`. False: it must go to the owner's agent (the lock says so: policy cpu, a rank
   * of another node).
   */
  update(t: number, kind: number, offset: number, list: Float64Array | null, elemKind: number, op: number, bytes: number,
         data: Uint8Array | null, into: Uint8Array | null): boolean {
    const part = this.parts[t]!;
    const at = part.base + offset;
    const n = list !== null ? list.length : 2;
    let cpuCapable = part.atomics !== null && (kind !== CAS || list === null);
    for (let b = 0; cpuCapable && b < n; b += 2) cpuCapable = AtomicViews.directFor(elemKind, at + (list !== null ? list[b]! : 0));
    const size = kindBytes(elemKind);
    if (kind !== CAS && cpuCapable && bytes >= BULK_MIN_ELEMENTS * size && this.locks.beginBulkUpdate(t)) {
      try {
        this.bulkUpdate(part, at, list, bytes, elemKind, op, data, into);
      } finally {
        this.locks.endBulkUpdate(t);
      }
      return true;
    }
    const how = this.locks.beginUpdate(t, cpuCapable);
    if (how === UPDATE_AGENT) return false;
    try {
      if (kind === CAS) {
        if (how === UPDATE_CPU) part.atomics!.compareAndSwap(elemKind, at, data!, 0, bytes, into!);
        else this.plainCompareAndSwap(part, at, bytes, data!, into!);
        return true;
      }
      for (let b = 0, pos = 0; b < n; b += 2) {
        const o = at + (list !== null ? list[b]! : 0);
        const len = list !== null ? list[b + 1]! : bytes;
        if (how === UPDATE_CPU) part.atomics!.apply(op, elemKind, o, len / size, data, pos, into, pos);
        else {
          const src = data !== null ? data.subarray(pos, pos + len) : null;
          const dst = into !== null ? into.subarray(pos, pos + len) : null;
          this.plainUpdate(part, o, len, elemKind, op, src, dst);
        }
        pos += len;
      }
      return true;
    } finally {
      this.locks.endUpdate(t, how);
    }
  }

  /**
   * A long update under beginBulkUpdate: the old values out to `into`, then the op applied in
   * place by the native kernel (mpir's ops hand long vectors to native/src/reduce.cc).
   */
  private bulkUpdate(part: Part, at: number, list: Float64Array | null, bytes: number, elemKind: number, op: number,
                     data: Uint8Array | null, into: Uint8Array | null): void {
    const size = kindBytes(elemKind);
    const n = list !== null ? list.length : 2;
    const memory = part.mem.bytes;
    for (let b = 0, pos = 0; b < n; b += 2) {
      const o = at + (list !== null ? list[b]! : 0);
      const len = list !== null ? list[b + 1]! : bytes;
      const target = memory.subarray(o, o + len);
      if (into !== null) into.set(target, pos);
      if (data !== null) this.reducer.reduce(op, elemKind, data.subarray(pos, pos + len), target, len / size);
      pos += len;
    }
  }

  /** A read-modify-write by loads and stores (the caller holds the part's mutex). */
  private plainUpdate(part: Part, at: number, len: number, elemKind: number, op: number, src: Uint8Array | null,
                      dst: Uint8Array | null): void {
    const current = part.mem.bytes.slice(at, at + len);
    if (dst !== null) dst.set(current);
    if (src === null) return;
    this.reducer.reduce(op, elemKind, src, current, len / kindBytes(elemKind));
    if (isWord(at, len) && part.atomics !== null) this.word.store(part.words, at, len, current, 0);
    else part.mem.write(at, current, 0, len);
  }

  private plainCompareAndSwap(part: Part, at: number, bytes: number, both: Uint8Array, into: Uint8Array): void {
    const old = part.mem.bytes.slice(at, at + bytes);
    into.set(old);
    for (let i = 0; i < bytes; i++) if (old[i] !== both[bytes + i]) return;
    part.mem.write(at, both, 0, bytes);
  }
}

