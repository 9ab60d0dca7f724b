import {
  KIND_BOOL, KIND_FLOAT32, KIND_FLOAT64, KIND_INT16, KIND_INT32, KIND_INT64, KIND_INT8, KIND_UINT16, KIND_UINT64,
  KIND_UINT8, OP_BAND, OP_BOR, OP_BXOR, OP_LAND, OP_LOR, OP_LXOR, OP_MAX, OP_MIN, OP_NO_OP, OP_PROD, OP_REPLACE, OP_SUM,
  isScalarKind, kindBytes,
} from './codes.js';
import { copyBytes } from '../common/copy.js';

/**
 * Accumulates and atomics applied straight to window memory that every rank maps (a node
 * segment), element by element with the CPU's atomic instructions, so operations from any rank
 * on one element are atomic without the target taking part: integers with Atomics.add/and/or/
 * xor/exchange where one instruction does the op, every other (op, type) pair with a
 * compare-exchange loop on the element's bits (floating point through its integer image).
 *
 * Elements must be aligned to their size (Atomics' rule); directFor() says whether a request
 * qualifies, else the caller takes the part's mutex or sends it to the target's agent. Ops and
 * element kinds are the codes of codes.ts.
 */

type IntArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;
type BigArray = BigInt64Array | BigUint64Array;

/** Views of one SharedArrayBuffer, made once per window. */
export class AtomicViews {
  readonly i8: Int8Array;
  readonly u8: Uint8Array;
  readonly i16: Int16Array;
  readonly u16: Uint16Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly i64: BigInt64Array;
  readonly u64: BigUint64Array;
  private readonly f32 = new Float32Array(1);
  private readonly f32bits = new Int32Array(this.f32.buffer);
  private readonly f64 = new Float64Array(1);
  private readonly f64bits = new BigInt64Array(this.f64.buffer);
  /** compareAndSwap's scratch: origin at byte 0, compare at 8, the old value at 16 (host order, as the window's). */
  private readonly casWords = scratchWords(24);
  /** applyOne's scratch: the operand at byte 0, the old value at 8. */
  private readonly oneWords = scratchWords(16);

  constructor(memory: ArrayBufferLike) {
    const words = Math.floor(memory.byteLength / 8);
    this.i8 = new Int8Array(memory);
    this.u8 = new Uint8Array(memory);
    this.i16 = new Int16Array(memory, 0, Math.floor(memory.byteLength / 2));
    this.u16 = new Uint16Array(memory, 0, Math.floor(memory.byteLength / 2));
    this.i32 = new Int32Array(memory, 0, Math.floor(memory.byteLength / 4));
    this.u32 = new Uint32Array(memory, 0, Math.floor(memory.byteLength / 4));
    this.i64 = new BigInt64Array(memory, 0, words);
    this.u64 = new BigUint64Array(memory, 0, words);
  }

  /** Whether elements of `kind` at `byteOffset` can be updated here (a scalar kind, aligned). */
  static directFor(kind: number, byteOffset: number): boolean {
    return isScalarKind(kind) && byteOffset % kindBytes(kind) === 0;
  }

  /**
   * For `count` elements of `dt` at `byteOffset`: result[i] = old (when `result` is given), and
   * unless op is NO_OP, element = op(origin[i], old). `origin` holds the operands as bytes from
   * `originAt`, `result` receives the old values from `resultAt` (offsets, so that a caller with
   * several blocks makes no view of each).
   */
  apply(op: number, kind: number, byteOffset: number, count: number, origin: Uint8Array | null, originAt: number,
        result: Uint8Array | null, resultAt: number): void {
    const size = kindBytes(kind);
    if (count === 1) {
      this.applyOne(op, kind, byteOffset, origin, originAt, result, resultAt);
      return;
    }
    if (size <= 4 && kind !== KIND_FLOAT32 &&
        this.applyInts(op, kind, byteOffset / size, count, origin, originAt, result, resultAt)) return;
    const bytes = count * size;
    const src = origin !== null ? new DataView(origin.buffer, origin.byteOffset + originAt, bytes) : null;
    const out = result !== null ? new DataView(result.buffer, result.byteOffset + resultAt, bytes) : null;
    for (let i = 0; i < count; i++) {
      const at = byteOffset / size + i;
      const b = i * size;
      if (kind === KIND_INT64 || kind === KIND_UINT64) {
        const signed = kind === KIND_INT64;
        const old = this.update64(op, signed, at, src === null ? 0n : signed ? src.getBigInt64(b, true) : src.getBigUint64(b, true));
        if (out !== null) {
          if (signed) out.setBigInt64(b, old, true);
          else out.setBigUint64(b, old, true);
        }
      } else if (kind === KIND_FLOAT32 || kind === KIND_FLOAT64) {
        const wide = kind === KIND_FLOAT64;
        const old = this.updateFloat(op, wide, at, src === null ? 0 : wide ? src.getFloat64(b, true) : src.getFloat32(b, true));
        if (out !== null) {
          if (wide) out.setFloat64(b, old, true);
          else out.setFloat32(b, old, true);
        }
      } else {
        const old = this.updateInt(op, kind, at, src !== null ? readInt(kind, src, b) : 0);
        if (out !== null) writeInt(kind, out, b, old);
      }
    }
  }

  /**
   * One element (Fetch_and_op, a one-element accumulate): the operand from `origin` at byte
   * `originAt`, the old value to `result` at `resultAt`, through the word scratch, so nothing is
   * allocated per call (but the BigInts of a 64-bit element): a view or DataView per call cost
   * ~500 B, and a young generation that grows fills fresh pages, each a page fault on this VM.
   */
  applyOne(op: number, kind: number, byteOffset: number, origin: Uint8Array | null, originAt: number,
           result: Uint8Array | null, resultAt: number): void {
    const size = kindBytes(kind);
    const at = byteOffset / size;
    const w = this.oneWords;
    if (origin !== null) copyBytes(origin, originAt, w.bytes, 0, size);
    if (kind === KIND_INT64) w.i64[1] = this.update64(op, true, at, origin !== null ? w.i64[0]! : 0n);
    else if (kind === KIND_UINT64) w.u64[1] = this.update64(op, false, at, origin !== null ? w.u64[0]! : 0n);
    else if (kind === KIND_FLOAT64) w.f64[1] = this.updateFloat(op, true, at, origin !== null ? w.f64[0]! : 0);
    else if (kind === KIND_FLOAT32) w.f32[2] = this.updateFloat(op, false, at, origin !== null ? w.f32[0]! : 0);
    else {
      const view = scratchOf(w, kind);
      view[8 / size] = this.updateInt(op, kind, at, origin !== null ? view[0]! : 0);
    }
    if (result !== null) copyBytes(w.bytes, 8, result, resultAt, size);
  }

  /**
   * Compare-and-swap of one element: result = old; element = origin if old equals compare. The
   * origin lies in `operands` at byte `originAt`, the compare value at `compareAt`.
   */
  compareAndSwap(kind: number, byteOffset: number, operands: Uint8Array, originAt: number, compareAt: number,
                 result: Uint8Array): void {
    const size = kindBytes(kind);
    const at = byteOffset / size;
    // The operands go through word-sized scratch views (no view per call). Bit images are
    // compared: CAS on floating point compares bits in C too (memcmp semantics of MPI).
    const w = this.casWords;
    copyBytes(operands, originAt, w.bytes, 0, size);
    copyBytes(operands, compareAt, w.bytes, 8, size);
    if (size === 8) w.i64[2] = Atomics.compareExchange(this.i64, at, w.i64[1]!, w.i64[0]!);
    else if (size === 4) w.i32[4] = Atomics.compareExchange(this.i32, at, w.i32[2]!, w.i32[0]!);
    else if (size === 2) w.i16[8] = Atomics.compareExchange(this.i16, at, w.i16[4]!, w.i16[0]!);
    else w.bytes[16] = Atomics.compareExchange(this.i8, at, w.i8[8]!, w.i8[0]!);
    copyBytes(w.bytes, 16, result, 0, size);
  }

  /**
   * Integers of up to 32 bits whose operands and results lie aligned: the op is chosen once and
   * each element costs one atomic instruction (the general loop below decides per element and
   * reads through a DataView). False when origin or result is not aligned to the element size.
   */
  private applyInts(op: number, kind: number, at: number, count: number, origin: Uint8Array | null, originAt: number,
                    result: Uint8Array | null, resultAt: number): boolean {
    const a = this.intArray(kind);
    const x = origin === null ? null : alignedView(kind, origin, originAt, count);
    const r = result === null ? null : alignedView(kind, result, resultAt, count);
    if ((origin !== null && x === null) || (result !== null && r === null)) return false;
    if (op === OP_NO_OP) {
      if (r !== null) for (let i = 0; i < count; i++) r[i] = Atomics.load(a, at + i);
      return true;
    }
    if (x === null) return false;
    // One loop per op, so the op is decided once; a result, when wanted, is one store more.
    let i = 0;
    let old = 0;
    if (op === OP_SUM) for (; i < count; i++) { old = Atomics.add(a, at + i, x[i]!); if (r !== null) r[i] = old; }
    else if (op === OP_BAND) for (; i < count; i++) { old = Atomics.and(a, at + i, x[i]!); if (r !== null) r[i] = old; }
    else if (op === OP_BOR) for (; i < count; i++) { old = Atomics.or(a, at + i, x[i]!); if (r !== null) r[i] = old; }
    else if (op === OP_BXOR) for (; i < count; i++) { old = Atomics.xor(a, at + i, x[i]!); if (r !== null) r[i] = old; }
    else if (op === OP_REPLACE) for (; i < count; i++) { old = Atomics.exchange(a, at + i, x[i]!); if (r !== null) r[i] = old; }
    else return false;
    return true;
  }

  /** The element's old value; unless op is NO_OP, element = op(operand, old). */
  private updateInt(op: number, kind: number, at: number, operand: number): number {
    const a = this.intArray(kind);
    if (op === OP_NO_OP) return Atomics.load(a, at);
    if (op === OP_SUM) return Atomics.add(a, at, operand);
    if (op === OP_BAND) return Atomics.and(a, at, operand);
    if (op === OP_BOR) return Atomics.or(a, at, operand);
    if (op === OP_BXOR) return Atomics.xor(a, at, operand);
    if (op === OP_REPLACE) return Atomics.exchange(a, at, operand);
    for (;;) {
      const old = Atomics.load(a, at);
      if (Atomics.compareExchange(a, at, old, intOp(op, old, operand)) === old) return old;
    }
  }

  private update64(op: number, signed: boolean, at: number, operand: bigint): bigint {
    const a: BigArray = signed ? this.i64 : this.u64;
    if (op === OP_NO_OP) return Atomics.load(a, at);
    if (op === OP_SUM) return Atomics.add(a, at, operand);
    if (op === OP_BAND) return Atomics.and(a, at, operand);
    if (op === OP_BOR) return Atomics.or(a, at, operand);
    if (op === OP_BXOR) return Atomics.xor(a, at, operand);
    if (op === OP_REPLACE) return Atomics.exchange(a, at, operand);
    for (;;) {
      const old = Atomics.load(a, at);
      const next = bigOp(op, old, operand);
      const wrapped = signed ? BigInt.asIntN(64, next) : BigInt.asUintN(64, next);
      if (Atomics.compareExchange(a, at, old, wrapped) === old) return old;
    }
  }

  /**
   * Floating point: a compare-exchange loop on the element's integer image (32 bits through
   * Int32Array, 64 through BigInt64Array), converted through a one-element scratch array.
   */
  private updateFloat(op: number, wide: boolean, at: number, operand: number): number {
    for (;;) {
      let old: number;
      if (wide) {
        const bits = Atomics.load(this.i64, at);
        this.f64bits[0] = bits;
        old = this.f64[0]!;
        if (op !== OP_NO_OP) {
          this.f64[0] = floatOp(op, old, operand);
          if (Atomics.compareExchange(this.i64, at, bits, this.f64bits[0]!) !== bits) continue;
        }
      } else {
        const bits = Atomics.load(this.i32, at);
        this.f32bits[0] = bits;
        old = this.f32[0]!;
        if (op !== OP_NO_OP) {
          this.f32[0] = floatOp(op, old, operand);
          if (Atomics.compareExchange(this.i32, at, bits, this.f32bits[0]!) !== bits) continue;
        }
      }
      return old;
    }
  }

  private intArray(kind: number): IntArray {
    switch (kind) {
      case KIND_INT8: return this.i8;
      case KIND_UINT8: case KIND_BOOL: return this.u8;
      case KIND_INT16: return this.i16;
      case KIND_UINT16: return this.u16;
      case KIND_INT32: return this.i32;
      default: return this.u32;
    }
  }
}

/** `count` elements of `kind` over `bytes` from byte `at` as a typed array of that kind, or null when not aligned for it. */
function alignedView(kind: number, bytes: Uint8Array, at: number, count: number): IntArray | null {
  const buffer = bytes.buffer;
  const byteOffset = bytes.byteOffset + at;
  switch (kind) {
    case KIND_INT8: return new Int8Array(buffer, byteOffset, count);
    case KIND_UINT8: case KIND_BOOL: return new Uint8Array(buffer, byteOffset, count);
    case KIND_INT16: return byteOffset % 2 === 0 ? new Int16Array(buffer, byteOffset, count) : null;
    case KIND_UINT16: return byteOffset % 2 === 0 ? new Uint16Array(buffer, byteOffset, count) : null;
    case KIND_INT32: return byteOffset % 4 === 0 ? new Int32Array(buffer, byteOffset, count) : null;
    default: return byteOffset % 4 === 0 ? new Uint32Array(buffer, byteOffset, count) : null;
  }
}

function readInt(kind: number, v: DataView, at: number): number {
  switch (kind) {
    case KIND_INT8: return v.getInt8(at);
    case KIND_UINT8: case KIND_BOOL: return v.getUint8(at);
    case KIND_INT16: return v.getInt16(at, true);
    case KIND_UINT16: return v.getUint16(at, true);
    case KIND_INT32: return v.getInt32(at, true);
    default: return v.getUint32(at, true);
  }
}

function writeInt(kind: number, v: DataView, at: number, x: number): void {
  switch (kind) {
    case KIND_INT8: v.setInt8(at, x); return;
    case KIND_UINT8: case KIND_BOOL: v.setUint8(at, x); return;
    case KIND_INT16: v.setInt16(at, x, true); return;
    case KIND_UINT16: v.setUint16(at, x, true); return;
    case KIND_INT32: v.setInt32(at, x, true); return;
    default: v.setUint32(at, x, true);
  }
}

/** op(origin, old) on integers; the typed array's store wraps the result to the element's width. */
function intOp(op: number, old: number, x: number): number {
  if (op === OP_PROD) return Math.imul(x, old);
  if (op === OP_MAX) return x > old ? x : old;
  if (op === OP_MIN) return x < old ? x : old;
  if (op === OP_LAND) return x !== 0 && old !== 0 ? 1 : 0;
  if (op === OP_LOR) return x !== 0 || old !== 0 ? 1 : 0;
  if (op === OP_LXOR) return (x !== 0) !== (old !== 0) ? 1 : 0;
  throw new Error(`osc: op code ${op} has no integer form`);
}

function bigOp(op: number, old: bigint, x: bigint): bigint {
  if (op === OP_PROD) return x * old;
  if (op === OP_MAX) return x > old ? x : old;
  if (op === OP_MIN) return x < old ? x : old;
  if (op === OP_LAND) return x !== 0n && old !== 0n ? 1n : 0n;
  if (op === OP_LOR) return x !== 0n || old !== 0n ? 1n : 0n;
  if (op === OP_LXOR) return (x !== 0n) !== (old !== 0n) ? 1n : 0n;
  throw new Error(`osc: op code ${op} has no integer form`);
}

function floatOp(op: number, old: number, x: number): number {
  if (op === OP_SUM) return x + old;
  if (op === OP_PROD) return x * old;
  if (op === OP_MAX) return Math.max(x, old);
  if (op === OP_MIN) return Math.min(x, old);
  if (op === OP_REPLACE) return x;
  throw new Error(`osc: op code ${op} is not defined on floating point`);
}

/** Views of one small scratch buffer, by element kind. */
interface ScratchWords {
  readonly bytes: Uint8Array;
  readonly i8: Int8Array;
  readonly u8: Uint8Array;
  readonly i16: Int16Array;
  readonly u16: Uint16Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly i64: BigInt64Array;
  readonly u64: BigUint64Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
}

function scratchWords(bytes: number): ScratchWords {
  const buffer = new ArrayBuffer(bytes);
  return {
    bytes: new Uint8Array(buffer), i8: new Int8Array(buffer), u8: new Uint8Array(buffer), i16: new Int16Array(buffer),
    u16: new Uint16Array(buffer), i32: new Int32Array(buffer), u32: new Uint32Array(buffer), i64: new BigInt64Array(buffer),
    u64: new BigUint64Array(buffer), f32: new Float32Array(buffer), f64: new Float64Array(buffer),
  };
}

/** The scratch's view for an integer kind of up to 32 bits. */
function scratchOf(w: ScratchWords, kind: number): IntArray {
  switch (kind) {
    case KIND_INT8: return w.i8;
    case KIND_UINT8: case KIND_BOOL: return w.u8;
    case KIND_INT16: return w.i16;
    case KIND_UINT16: return w.u16;
    case KIND_INT32: return w.i32;
    default: return w.u32;
  }
}
