import { Datatype, Datatypes, type ElementKind } from './datatype.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { REDUCE_ELEMENTS, REDUCE_OPS, reduceKernels } from '../mpid/reduce-kernels.js';
import { reduceLocal } from './reduce-local.js';
import type { BufSpec, TypedArray, UserFunction } from './types.js';

/**
 * MPI reduction operations. Every op computes `inoutvec[i] = invec[i] op inoutvec[i]` over
 * `count` elements, `invec` holding the lower-ranked operand (MPI's rule, which matters for
 * non-commutative user ops). Predefined ops run on typed views of the operand bytes: one view
 * per call, no allocation per element; 64-bit integers use BigInt64Array/BigUint64Array.
 *
 * Type classes allowed per op (MPI-4 §6.9.2): SUM, PROD, MAX, MIN on integers and floats;
 * LAND, LOR, LXOR on integers and C_BOOL; BAND, BOR, BXOR on integers and bytes; MAXLOC,
 * MINLOC on the pair types (value, int index; ties take the smaller index); REPLACE and
 * NO_OP on any type. A bad pair raises MPI.ERR_OP.
 */
/** A user op's function as the kernels call it (views of whichever element type the datatype has). */
type OpFunction = (invec: any, inoutvec: any, datatype: Datatype) => void;

/** Object-form reduction of two JS values, lower-ranked first. */
export type ValueFunction = (a: any, b: any) => any;

type Family = 'arith' | 'minmax' | 'logical' | 'bitwise' | 'loc' | 'any';

let nextHandle = 1;

export class Op {
  private freed = false;
  /** applyAt's last element kind and its loop (null: apply() serves that kind): a reduction loop asks for one kind. */
  private atKind: ElementKind | null = null;
  private atKernel: Kernel | null = null;
  /** @internal */
  readonly handle = nextHandle++;

  /** @internal Use MPI.Op.Create for user ops. */
  constructor(readonly name: string, private readonly commute: boolean, /** @internal */ readonly userFn: OpFunction | null,
              private readonly family: Family, /** @internal */ readonly valueFn: ValueFunction | null) {}

  /**
   * A user-defined op; `commute` false makes collectives apply it in rank order. Annotate fn's
   * views with the element type the op works on: `MPI.Op.Create((a: Float64Array, b: Float64Array) => ...)`.
   */
  static Create<V extends TypedArray = TypedArray>(fn: UserFunction<V>, commute = false): Op {
    if (typeof fn !== 'function') {
      throw new MPIException(ErrorClass.ERR_OP, `Op.Create: fn must be a function(invec, inoutvec, datatype), got ${typeof fn}`);
    }
    return new Op(`user op #${nextHandle}`, Boolean(commute), fn, 'any', null);
  }

  Is_commutative(): boolean {
    return this.commute;
  }

  /** inoutbuf[i] = inbuf[i] op inoutbuf[i] on this process (same datatype and count on both). */
  Reduce_local(inbuf: BufSpec, inoutbuf: BufSpec): void {
    reduceLocal('Op.Reduce_local', inbuf, inoutbuf, this);
  }

  get predefined(): boolean {
    return this.userFn === null;
  }

  Free(): void {
    if (this.predefined) throw new MPIException(ErrorClass.ERR_OP, `Op.Free: ${this.name} is predefined and cannot be freed`);
    if (this.freed) throw new MPIException(ErrorClass.ERR_OP, 'Op.Free: the op has been freed already');
    this.freed = true;
  }

  get isFreed(): boolean {
    return this.freed;
  }

  /** @internal Null when the op can reduce `dt`, else a message saying why not. */
  checkType(dt: Datatype): string | null {
    if (this.freed) return `${this.name} has been freed`;
    if (this === OP_NULL) return 'MPI.OP_NULL is not an op';
    if (this.family === 'any') return null;
    const k = dt.kind;
    if (k === 'pair' && !dt.predefined) return `${this.name} on a derived type of pairs (${dt.name}) is not supported; use the pair type itself`;
    const ok = allowed(this.family, k);
    return ok ? null : `${this.name} is not defined on ${dt.name} (${familyText[this.family]})`;
  }

  /** @internal inout[i] = in[i] op inout[i] for `count` elements of `dt` (bytes of both operands). */
  apply(inBytes: Uint8Array, inoutBytes: Uint8Array, count: number, dt: Datatype): void {
    if (count === 0 || this === NO_OP) return;
    if (this === REPLACE) {
      inoutBytes.set(inBytes.subarray(0, count * dt.size));
      return;
    }
    if (dt.kind === 'pair' && this.userFn === null) {
      applyLoc(this === MAXLOC, inBytes, inoutBytes, count, dt);
      return;
    }
    // Elements of the basic kind: a derived (contiguous) type holds several per item.
    const n = dt.kind === 'pair' ? count * dt.size : (count * dt.size) / (CTORS[dt.kind]?.BYTES_PER_ELEMENT ?? 1);
    if (this.userFn === null && n >= NATIVE_REDUCE_MIN) {
      const opCode = NATIVE_OPS[this.name];
      const kindCode = NATIVE_KINDS[dt.kind];
      if (opCode !== undefined && kindCode !== undefined) {
        reduceKernels.reduce(opCode, kindCode, inBytes, inoutBytes, n);
        return;
      }
    }
    const a = view(inBytes, n, dt.kind, false);
    const b = view(inoutBytes, n, dt.kind, true);
    if (this.userFn !== null) this.userFn(a, b, dt);
    else applyPredefined(this, a as Numeric, b as Numeric, n, dt.kind);
    if (b.buffer !== inoutBytes.buffer || b.byteOffset !== inoutBytes.byteOffset) {
      inoutBytes.set(new Uint8Array(b.buffer, b.byteOffset, count * dt.size));
    }
  }
  /**
   * @internal y[yAt + i] = x[xAt + i] op y[yAt + i] for i < n, on whole-buffer typed arrays of
   * `kind` at element offsets: the predefined ops' loops without a view per call (the node
   * cells' small reductions, coll/shm-small.ts). False, doing nothing, for user ops, the pair
   * ops, REPLACE and NO_OP, which go through apply().
   */
  applyAt(x: Numeric, xAt: number, y: Numeric, yAt: number, n: number, kind: ElementKind): boolean {
    if (kind !== this.atKind) {
      this.atKind = kind;
      const loops = this.userFn === null && BODIES[this.name] !== undefined && CTORS[kind] !== undefined && kind !== 'packed';
      this.atKernel = loops ? kernelFor(this, kind) : null;
    }
    const kernel = this.atKernel;
    if (kernel === null) return false;
    const big = kind === 'int64' || kind === 'uint64';
    kernel(x, xAt, y, yAt, n, big ? 1n : 1, big ? 0n : 0);
    return true;
  }
}

const familyText: Record<Family, string> = {
  arith: 'defined on integer and floating-point types',
  minmax: 'defined on integer and floating-point types',
  logical: 'defined on integer types and MPI.C_BOOL',
  bitwise: 'defined on integer types and MPI.BYTE',
  loc: 'defined on the pair types MPI.FLOAT_INT, DOUBLE_INT, LONG_INT, TWOINT, SHORT_INT',
  any: 'any type',
};

const INTEGER: readonly ElementKind[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];

function allowed(f: Family, k: ElementKind): boolean {
  switch (f) {
    case 'arith':
    case 'minmax': return INTEGER.includes(k) || k === 'float32' || k === 'float64';
    case 'logical': return INTEGER.includes(k) || k === 'bool';
    case 'bitwise': return INTEGER.includes(k);
    case 'loc': return k === 'pair';
    default: return true;
  }
}

export type Numeric = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array |
  Float64Array | BigInt64Array | BigUint64Array;

const CTORS: Record<string, { new(b: ArrayBufferLike, off: number, n: number): Numeric; new(n: number): Numeric; BYTES_PER_ELEMENT: number }> = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, float32: Float32Array, float64: Float64Array, bool: Uint8Array,
  packed: Uint8Array,
} as any;

/**
 * Native kernels (mpid/reduce-kernels.ts: SCI-MPICH's SIMD kernels) take over from this many
 * elements; below, the call (~0.2 µs) costs more than the JS loop.
 */
const NATIVE_REDUCE_MIN = 256;
const NATIVE_OPS: Readonly<Record<string, number>> = {
  'MPI.SUM': REDUCE_OPS.SUM, 'MPI.PROD': REDUCE_OPS.PROD, 'MPI.MAX': REDUCE_OPS.MAX, 'MPI.MIN': REDUCE_OPS.MIN,
  'MPI.LAND': REDUCE_OPS.LAND, 'MPI.LOR': REDUCE_OPS.LOR, 'MPI.LXOR': REDUCE_OPS.LXOR, 'MPI.BAND': REDUCE_OPS.BAND,
  'MPI.BOR': REDUCE_OPS.BOR, 'MPI.BXOR': REDUCE_OPS.BXOR,
};
const NATIVE_KINDS: Readonly<Partial<Record<ElementKind, number>>> = REDUCE_ELEMENTS;

/** A typed view of `count` elements over the bytes; a copy when the bytes are misaligned. */
function view(bytes: Uint8Array, count: number, kind: ElementKind, _inout: boolean): Numeric {
  const C = kind === 'pair' ? Uint8Array as unknown as typeof CTORS[string] : CTORS[kind] ?? Uint8Array;
  const size = C.BYTES_PER_ELEMENT;
  if (bytes.byteOffset % size === 0) return new C(bytes.buffer, bytes.byteOffset, count);
  const copy = new Uint8Array(count * size);
  copy.set(bytes.subarray(0, count * size));
  return new C(copy.buffer, 0, count);
}

/**
 * The loop of each (predefined op, element kind), compiled once on first use with
 * `new Function`: every kernel is a function of its own, so V8 sees one typed-array type at
 * its element accesses and compiles a tight loop (one shared generic loop sees every type,
 * goes megamorphic and runs about ten times slower). The bodies below are the whole contract.
 */
const BODIES: Readonly<Record<string, string>> = {
  'MPI.SUM': 'y[i] = x[i] + y[i];',
  'MPI.PROD': 'y[i] = x[i] * y[i];',
  // x !== x: a NaN operand wins, as with C's fmax-free comparisons in MPICH (NaN propagates).
  'MPI.MAX': 'const a = x[i]; if (a > y[i] || a !== a) y[i] = a;',
  'MPI.MIN': 'const a = x[i]; if (a < y[i] || a !== a) y[i] = a;',
  'MPI.LAND': 'y[i] = (x[i] != 0 && y[i] != 0) ? ONE : ZERO;',
  'MPI.LOR': 'y[i] = (x[i] != 0 || y[i] != 0) ? ONE : ZERO;',
  'MPI.LXOR': 'y[i] = ((x[i] != 0) !== (y[i] != 0)) ? ONE : ZERO;',
  'MPI.BAND': 'y[i] = x[i] & y[i];',
  'MPI.BOR': 'y[i] = x[i] | y[i];',
  'MPI.BXOR': 'y[i] = x[i] ^ y[i];',
};

/**
 * Every kernel works at element offsets xo and yo of its operands: apply() passes views and 0,
 * Op.applyAt whole-buffer views and the slots' offsets. One loop per (op, kind).
 */
type Kernel = (x: Numeric, xo: number, y: Numeric, yo: number, n: number, one: number | bigint, zero: number | bigint) => void;
const kernels = new Map<Op, Map<ElementKind, Kernel>>();

function kernelFor(op: Op, kind: ElementKind): Kernel {
  let byKind = kernels.get(op);
  if (byKind === undefined) {
    byKind = new Map();
    kernels.set(op, byKind);
  }
  let k = byKind.get(kind);
  if (k === undefined) {
    const body = BODIES[op.name];
    if (body === undefined) throw new MPIException(ErrorClass.ERR_OP, `${op.name} cannot be applied to ${kind} elements`);
    // 32-bit products exceed 2^53 in doubles and lose their low bits: Math.imul wraps exactly, as C does.
    const element = op.name === 'MPI.PROD' && (kind === 'int32' || kind === 'uint32') ? 'y[i] = Math.imul(x[i], y[i]);' : body;
    const loop = element.replaceAll('x[i]', 'x[xo + i]').replaceAll('y[i]', 'y[yo + i]');
    k = new Function('x', 'xo', 'y', 'yo', 'n', 'ONE', 'ZERO', `for (let i = 0; i < n; i++) { ${loop} }`) as Kernel;
    byKind.set(kind, k);
  }
  return k;
}

/** A typed array of `kind` over all of `buffer` (Op.applyAt's operands), or null for kinds without one. */
export function wholeView(buffer: ArrayBufferLike, kind: ElementKind): Numeric | null {
  const C = CTORS[kind];
  if (C === undefined || kind === 'packed') return null;
  return new C(buffer, 0, Math.floor(buffer.byteLength / C.BYTES_PER_ELEMENT));
}

/** Bytes per element of `kind` (1 for kinds without a typed array). */
export function kindWidth(kind: ElementKind): number {
  return CTORS[kind]?.BYTES_PER_ELEMENT ?? 1;
}

function applyPredefined(op: Op, a: Numeric, b: Numeric, n: number, kind: ElementKind): void {
  const big = kind === 'int64' || kind === 'uint64';
  kernelFor(op, kind)(a, 0, b, 0, n, big ? 1n : 1, big ? 0n : 0);
}

/** Layout of each pair type: value kind at offset 0, int32 index at `indexAt`. */
function pairLayout(dt: Datatype): { value: 'f32' | 'f64' | 'i64' | 'i32' | 'i16'; indexAt: number } {
  switch (dt) {
    case Datatypes.FLOAT_INT: return { value: 'f32', indexAt: 4 };
    case Datatypes.DOUBLE_INT: return { value: 'f64', indexAt: 8 };
    case Datatypes.LONG_INT: return { value: 'i64', indexAt: 8 };
    case Datatypes.TWOINT: return { value: 'i32', indexAt: 4 };
    default: return { value: 'i16', indexAt: 4 };
  }
}

function readValue(v: DataView, at: number, kind: string): number | bigint {
  switch (kind) {
    case 'f32': return v.getFloat32(at, true);
    case 'f64': return v.getFloat64(at, true);
    case 'i64': return v.getBigInt64(at, true);
    case 'i32': return v.getInt32(at, true);
    default: return v.getInt16(at, true);
  }
}

/** MAXLOC/MINLOC on (value, index) pairs; equal values keep the smaller index. */
function applyLoc(max: boolean, inBytes: Uint8Array, inoutBytes: Uint8Array, n: number, dt: Datatype): void {
  const { value, indexAt } = pairLayout(dt);
  const a = new DataView(inBytes.buffer, inBytes.byteOffset, n * dt.size);
  const b = new DataView(inoutBytes.buffer, inoutBytes.byteOffset, n * dt.size);
  const size = dt.size;
  for (let i = 0; i < n; i++) {
    const at = i * size;
    const va = readValue(a, at, value);
    const vb = readValue(b, at, value);
    const ia = a.getInt32(at + indexAt, true);
    const ib = b.getInt32(at + indexAt, true);
    let takeA: boolean;
    if (va === vb) takeA = ia < ib;
    else takeA = max ? va > vb : va < vb;
    if (takeA) for (let k = 0; k < size; k++) inoutBytes[at + k] = inBytes[at + k]!;
  }
}

// ------------------------------------------------------------ object-form reductions

function cmp(a: any, b: any): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function loc(max: boolean): ValueFunction {
  return (a, b) => {
    if (!Array.isArray(a) || !Array.isArray(b)) {
      throw new MPIException(ErrorClass.ERR_OP, `${max ? 'MAXLOC' : 'MINLOC'} on objects takes [value, index] pairs`);
    }
    const c = cmp(a[0], b[0]);
    if (c === 0) return a[1] <= b[1] ? a : b;
    return (max ? c > 0 : c < 0) ? a : b;
  };
}

const p = (name: string, family: Family, valueFn: ValueFunction) => new Op(`MPI.${name}`, true, null, family, valueFn);

export const SUM = p('SUM', 'arith', (a, b) => a + b);
export const PROD = p('PROD', 'arith', (a, b) => a * b);
export const MAX = p('MAX', 'minmax', (a, b) => (b > a ? b : a));
export const MIN = p('MIN', 'minmax', (a, b) => (b < a ? b : a));
export const LAND = p('LAND', 'logical', (a, b) => Boolean(a) && Boolean(b));
export const LOR = p('LOR', 'logical', (a, b) => Boolean(a) || Boolean(b));
export const LXOR = p('LXOR', 'logical', (a, b) => Boolean(a) !== Boolean(b));
export const BAND = p('BAND', 'bitwise', (a, b) => a & b);
export const BOR = p('BOR', 'bitwise', (a, b) => a | b);
export const BXOR = p('BXOR', 'bitwise', (a, b) => a ^ b);
export const MAXLOC = p('MAXLOC', 'loc', loc(true));
export const MINLOC = p('MINLOC', 'loc', loc(false));
export const REPLACE = new Op('MPI.REPLACE', false, null, 'any', (_a, b) => b);
export const NO_OP = new Op('MPI.NO_OP', false, null, 'any', (a) => a);
export const OP_NULL = new Op('MPI.OP_NULL', false, null, 'any', null);

/** The op constants of the MPI namespace. */
export const Ops = { SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND, BOR, BXOR, MAXLOC, MINLOC, REPLACE, NO_OP, OP_NULL } as const;

/** Reduces two JS values for the object forms: `a` is the lower-ranked one. */
export function reduceValues(op: Op | ValueFunction, a: unknown, b: unknown): unknown {
  if (typeof op === 'function') return op(a, b);
  if (op.valueFn !== null) return op.valueFn(a, b);
  throw new MPIException(ErrorClass.ERR_OP, `${op.name} cannot reduce JS values; pass a predefined op or a function(a, b)`);
}
