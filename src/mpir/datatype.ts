import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { type Level, type Node, leaf, repeat, seq } from './dtype/flatten.js';
import { footprint } from './dtype/cursor.js';
import { packRange, unpackRange } from './dtype/pack.js';
import { countElements, swapToFromExternal32 } from './dtype/external32.js';
import type { Comm } from './comm.js';
import type { BufferLike } from './types.js';

/**
 * MPI datatypes: the predefined types (size, extent, and the typed-array kind a buffer of that
 * type is read as) and the derived-type constructors of API.md. Every type carries its
 * flattened form (dtype/flatten.ts), from which packing and unpacking start at any byte of the
 * packed stream (dtype/cursor.ts). Derived types are made uncommitted; Commit() returns the
 * type, and communication refuses an uncommitted one.
 */
export type ElementKind =
  | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64'
  | 'float32' | 'float64' | 'bool' | 'pair' | 'packed';

/** Combiners (Get_envelope), MPICH's values. */
export const COMBINER_NAMED = 1;
export const COMBINER_DUP = 2;
export const COMBINER_CONTIGUOUS = 3;
export const COMBINER_VECTOR = 4;
export const COMBINER_HVECTOR = 6;
export const COMBINER_INDEXED = 7;
export const COMBINER_HINDEXED = 9;
export const COMBINER_INDEXED_BLOCK = 10;
export const COMBINER_STRUCT = 12;
export const COMBINER_SUBARRAY = 13;
export const COMBINER_DARRAY = 14;
export const COMBINER_RESIZED = 18;
export const COMBINER_HINDEXED_BLOCK = 19;
export const ORDER_C = 56;
export const ORDER_FORTRAN = 57;
export const DISTRIBUTE_BLOCK = 121;
export const DISTRIBUTE_CYCLIC = 122;
export const DISTRIBUTE_NONE = 123;
/** Explicitly typed: see constants.ts on negative literals in the MPI object's declaration. */
export const DISTRIBUTE_DFLT_DARG: -49767 = -49767;

export const DatatypeConstants = {
  COMBINER_NAMED, COMBINER_DUP, COMBINER_CONTIGUOUS, COMBINER_VECTOR, COMBINER_HVECTOR, COMBINER_INDEXED,
  COMBINER_HINDEXED, COMBINER_INDEXED_BLOCK, COMBINER_HINDEXED_BLOCK, COMBINER_STRUCT, COMBINER_SUBARRAY,
  COMBINER_DARRAY, COMBINER_RESIZED, ORDER_C, ORDER_FORTRAN, DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC,
  DISTRIBUTE_NONE, DISTRIBUTE_DFLT_DARG,
} as const;

const COMBINER_NAMES: Record<number, string> = {
  [COMBINER_DUP]: 'dup', [COMBINER_CONTIGUOUS]: 'contiguous', [COMBINER_VECTOR]: 'vector',
  [COMBINER_HVECTOR]: 'hvector', [COMBINER_INDEXED]: 'indexed', [COMBINER_HINDEXED]: 'hindexed',
  [COMBINER_INDEXED_BLOCK]: 'indexed_block', [COMBINER_HINDEXED_BLOCK]: 'hindexed_block',
  [COMBINER_STRUCT]: 'struct', [COMBINER_SUBARRAY]: 'subarray', [COMBINER_DARRAY]: 'darray',
  [COMBINER_RESIZED]: 'resized',
};

const INT_MAX = 0x7fffffff;

/** Alignment of the MAXLOC/MINLOC pair types: that of their widest member. */
const PAIR_ALIGN: Record<string, number> = {
  MPI_FLOAT_INT: 4, MPI_DOUBLE_INT: 8, MPI_LONG_INT: 8, MPI_2INT: 4, MPI_SHORT_INT: 4,
};

/** What a derived type is made of; predefined types have none. */
interface Derivation {
  combiner: number;
  ints: number[];
  addrs: number[];
  types: Datatype[];
  flat: Node[];
  size: number;
  lb: number;
  extent: number;
  trueLb: number;
  trueUb: number;
}

export class Datatype {
  /** Bytes of data in one element (MPI type size). */
  readonly size: number;
  readonly extent: number;
  readonly lb: number;
  /** Lowest and one-past-highest byte that holds data (MPI true extent). */
  readonly trueLb: number;
  readonly trueUb: number;
  /** @internal The flattened type map of one instance (type-map order). */
  readonly flat: readonly Node[];
  /** @internal Basic elements in one instance (Status.Get_elements). */
  readonly elements: number;
  /** @internal One instance is `size` contiguous bytes at offset 0 and count instances tile: zero-copy. */
  readonly contiguous: boolean;
  /** @internal Alignment of the most aligned basic type inside (C ABI, x86-64), for struct padding. */
  readonly align: number;
  /** @internal Bounds set explicitly (resized, subarray, darray, or made from such): no struct padding. */
  readonly explicitBounds: boolean;
  private committed: boolean;
  private freed = false;
  private readonly derivation: Derivation | null;
  private lastCount = -1;
  private lastNodes: readonly Node[] = [];

  /**
   * @internal
   * A predefined type (name, size, kind); derived types are made by the constructors, which
   * pass their derivation (their kind is the basic kind they are made of, or 'packed' when
   * they mix several).
   */
  constructor(readonly name: string, size: number, readonly kind: ElementKind, readonly predefined = true,
              derivation: Derivation | null = null) {
    this.derivation = derivation;
    if (derivation === null) {
      this.size = size;
      this.extent = size;
      this.lb = 0;
      this.trueLb = 0;
      this.trueUb = size;
      this.flat = size === 0 ? [] : [leaf(0, size, this)];
      this.elements = kind === 'pair' ? 2 : size === 0 ? 0 : 1;
      this.align = kind === 'pair' ? (PAIR_ALIGN[name] ?? 8) : Math.max(1, Math.min(size, 8));
      this.explicitBounds = false;
      this.committed = true;
    } else {
      this.size = derivation.size;
      this.extent = derivation.extent;
      this.lb = derivation.lb;
      this.trueLb = derivation.trueLb;
      this.trueUb = derivation.trueUb;
      this.flat = derivation.flat;
      this.elements = elementsOf(derivation.flat);
      this.align = Math.max(1, ...derivation.types.map((t) => t.align));
      this.explicitBounds = derivation.combiner === COMBINER_RESIZED || derivation.combiner === COMBINER_SUBARRAY ||
        derivation.combiner === COMBINER_DARRAY || derivation.types.some((t) => t.explicitBounds);
      this.committed = false;
    }
    const f = this.flat;
    this.contiguous = this.size === 0 ||
      (f.length === 1 && f[0]!.leaf && f[0]!.off === 0 && f[0]!.len === this.size && this.lb === 0 && this.extent === this.size);
  }

  get ub(): number {
    return this.lb + this.extent;
  }

  /** The combiner of Get_envelope (MPI.COMBINER_NAMED for predefined types). */
  get combiner(): number {
    return this.derivation?.combiner ?? COMBINER_NAMED;
  }

  /** Whether the type may be used in communication (predefined types always are). */
  get isCommitted(): boolean {
    return this.committed && !this.freed;
  }

  get isFreed(): boolean {
    return this.freed;
  }

  Get_size(): number {
    this.usable('Get_size');
    return this.size;
  }

  Get_extent(): [number, number] {
    this.usable('Get_extent');
    return [this.lb, this.extent];
  }

  Get_true_extent(): [number, number] {
    this.usable('Get_true_extent');
    return [this.trueLb, this.trueUb - this.trueLb];
  }

  Get_name(): string {
    return this.name;
  }

  /** [number of integers, number of addresses, number of datatypes, combiner]. */
  Get_envelope(): [number, number, number, number] {
    this.usable('Get_envelope');
    const d = this.derivation;
    return d === null ? [0, 0, 0, COMBINER_NAMED] : [d.ints.length, d.addrs.length, d.types.length, d.combiner];
  }

  /** [integers, addresses, datatypes] the type was made from (not for predefined types). */
  Get_contents(): [number[], number[], Datatype[]] {
    this.usable('Get_contents');
    const d = this.derivation;
    if (d === null) {
      throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.Get_contents: ${this.name} is predefined (combiner MPI.COMBINER_NAMED) and has no contents`);
    }
    return [d.ints.slice(), d.addrs.slice(), d.types.slice()];
  }

  /** Makes the type usable in communication; returns the type so calls chain. */
  Commit(): Datatype {
    this.usable('Commit');
    this.committed = true;
    return this;
  }

  Free(): void {
    if (this.predefined) throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.Free: ${this.name} is predefined and cannot be freed`);
    this.usable('Free');
    this.freed = true;
  }

  /** A new type with the same type map (committed if this one is). */
  Dup(): Datatype {
    this.usable('Dup');
    const t = this.derive(COMBINER_DUP, [], [], [this], this.flat.slice(), this.size, this.lb, this.extent, this.trueLb, this.trueUb);
    if (this.isCommitted) t.committed = true;
    return t;
  }

  Create_contiguous(count: number): Datatype {
    const call = 'Create_contiguous';
    this.usable(call);
    count = checkCount(call, 'count', count);
    return this.blocks(COMBINER_CONTIGUOUS, [count], [], [0], [count]);
  }

  Create_vector(count: number, blocklength: number, stride: number): Datatype {
    const call = 'Create_vector';
    this.usable(call);
    count = checkCount(call, 'count', count);
    blocklength = checkCount(call, 'blocklength', blocklength);
    stride = checkInt(call, 'stride', stride);
    return this.vector(COMBINER_VECTOR, [count, blocklength, stride], [], count, blocklength, stride * this.extent);
  }

  Create_hvector(count: number, blocklength: number, stride: number): Datatype {
    const call = 'Create_hvector';
    this.usable(call);
    count = checkCount(call, 'count', count);
    blocklength = checkCount(call, 'blocklength', blocklength);
    stride = checkAddress(call, 'stride', stride);
    return this.vector(COMBINER_HVECTOR, [count, blocklength], [stride], count, blocklength, stride);
  }

  Create_indexed(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>): Datatype {
    const call = 'Create_indexed';
    this.usable(call);
    const bl = checkCounts(call, 'blocklengths', blocklengths);
    const dp = checkInts(call, 'displacements', displacements, bl.length, checkInt);
    return this.blocks(COMBINER_INDEXED, [bl.length, ...bl, ...dp], [], dp.map((d) => d * this.extent), bl);
  }

  Create_hindexed(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>): Datatype {
    const call = 'Create_hindexed';
    this.usable(call);
    const bl = checkCounts(call, 'blocklengths', blocklengths);
    const dp = checkInts(call, 'displacements', displacements, bl.length, checkAddress);
    return this.blocks(COMBINER_HINDEXED, [bl.length, ...bl], dp, dp, bl);
  }

  Create_indexed_block(blocklength: number, displacements: ArrayLike<number>): Datatype {
    const call = 'Create_indexed_block';
    this.usable(call);
    blocklength = checkCount(call, 'blocklength', blocklength);
    const dp = checkInts(call, 'displacements', displacements, -1, checkInt);
    return this.blocks(COMBINER_INDEXED_BLOCK, [dp.length, blocklength, ...dp], [], dp.map((d) => d * this.extent),
      dp.map(() => blocklength));
  }

  Create_hindexed_block(blocklength: number, displacements: ArrayLike<number>): Datatype {
    const call = 'Create_hindexed_block';
    this.usable(call);
    blocklength = checkCount(call, 'blocklength', blocklength);
    const dp = checkInts(call, 'displacements', displacements, -1, checkAddress);
    return this.blocks(COMBINER_HINDEXED_BLOCK, [dp.length, blocklength], dp, dp, dp.map(() => blocklength));
  }

  /** `count` blocks of `blocklengths[i]` elements of `types[i]` at byte displacements `displacements[i]`. */
  static Create_struct(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>, types: ArrayLike<Datatype>): Datatype {
    const call = 'Create_struct';
    const bl = checkCounts(call, 'blocklengths', blocklengths);
    const dp = checkInts(call, 'displacements', displacements, bl.length, checkAddress);
    if (types === null || typeof types !== 'object' || typeof types.length !== 'number') {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: types must be an array of MPI.Datatype`);
    }
    if (types.length !== bl.length) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: types has ${types.length} entries, blocklengths has ${bl.length}; they must match`);
    }
    const ts: Datatype[] = [];
    for (let i = 0; i < types.length; i++) {
      const t = types[i];
      if (!(t instanceof Datatype) || t === Datatypes.DATATYPE_NULL) {
        throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.${call}: types[${i}] is not an MPI.Datatype (got ${String(t)})`);
      }
      t.usable(call);
      ts.push(t);
    }
    const parts: Node[][] = [];
    const ext = new Extent();
    let size = 0;
    for (let i = 0; i < bl.length; i++) {
      const t = ts[i]!;
      parts.push(repeat(dp[i]!, [{ count: bl[i]!, stride: t.extent }], t.flat));
      ext.block(t, dp[i]!, bl[i]!);
      size += bl[i]! * t.size;
    }
    const flat = seq(parts);
    // As C lays out an array of structs (and MPICH pads): the extent rounds up to the largest
    // alignment inside, unless a component has explicit bounds.
    const padTo = ts.some((t) => t.explicitBounds) ? 1 : Math.max(1, ...ts.map((t) => t.align));
    return derived(COMBINER_STRUCT, [bl.length, ...bl], dp, ts, flat, size, ext, padTo);
  }

  /**
   * The subarray `subsizes` at `starts` of an array of `sizes` elements of this type, in C
   * (row-major) or Fortran (column-major) order; its extent is the whole array.
   */
  Create_subarray(sizes: ArrayLike<number>, subsizes: ArrayLike<number>, starts: ArrayLike<number>, order: number = ORDER_C): Datatype {
    const call = 'Create_subarray';
    this.usable(call);
    const sz = checkInts(call, 'sizes', sizes, -1, checkInt);
    const n = sz.length;
    if (n < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: sizes must have at least one dimension`);
    const sub = checkInts(call, 'subsizes', subsizes, n, checkInt);
    const st = checkInts(call, 'starts', starts, n, checkInt);
    checkOrder(call, order);
    for (let i = 0; i < n; i++) {
      if (sz[i]! < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: sizes[${i}] = ${sz[i]} is out of range (expected >= 1)`);
      if (sub[i]! < 0 || sub[i]! > sz[i]!) {
        throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: subsizes[${i}] = ${sub[i]} is out of range (expected 0..${sz[i]})`);
      }
      if (st[i]! < 0 || st[i]! > sz[i]! - sub[i]!) {
        throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: starts[${i}] = ${st[i]} is out of range (expected 0..${sz[i]! - sub[i]!})`);
      }
    }
    const dims = order === ORDER_C ? [...Array(n).keys()] : [...Array(n).keys()].reverse();
    const levels: Level[] = [];
    let off = 0;
    let stride = this.extent;
    const strides: number[] = new Array(n);
    for (let k = n - 1; k >= 0; k--) {
      strides[dims[k]!] = stride;
      stride *= sz[dims[k]!]!;
    }
    let size = this.size;
    for (const d of dims) {
      levels.push({ count: sub[d]!, stride: strides[d]! });
      off += st[d]! * strides[d]!;
      size *= sub[d]!;
    }
    const flat = repeat(off, levels, this.flat);
    const fp = footprint(flat);
    return this.derive(COMBINER_SUBARRAY, [n, ...sz, ...sub, ...st, order], [], [this], flat, size, 0, stride,
      fp?.[0] ?? 0, fp?.[1] ?? 0);
  }

  /**
   * The part of a `gsizes` array that process `rank` of a `psizes` process grid (row-major
   * ranks) holds under block/cyclic/none distributions (HPF rules, as MPI defines them).
   */
  Create_darray(size: number, rank: number, gsizes: ArrayLike<number>, distribs: ArrayLike<number>,
                dargs: ArrayLike<number>, psizes: ArrayLike<number>, order: number = ORDER_C): Datatype {
    const call = 'Create_darray';
    this.usable(call);
    size = checkInt(call, 'size', size);
    if (size < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: size ${size} is out of range (expected >= 1)`);
    rank = checkInt(call, 'rank', rank);
    if (rank < 0 || rank >= size) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: rank ${rank} is out of range (expected 0..${size - 1})`);
    const gs = checkInts(call, 'gsizes', gsizes, -1, checkInt);
    const n = gs.length;
    if (n < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: gsizes must have at least one dimension`);
    const ds = checkInts(call, 'distribs', distribs, n, checkInt);
    const da = checkInts(call, 'dargs', dargs, n, checkInt);
    const ps = checkInts(call, 'psizes', psizes, n, checkInt);
    checkOrder(call, order);
    let procs = 1;
    for (let i = 0; i < n; i++) {
      if (gs[i]! < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: gsizes[${i}] = ${gs[i]} is out of range (expected >= 1)`);
      if (ps[i]! < 1) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: psizes[${i}] = ${ps[i]} is out of range (expected >= 1)`);
      if (ds[i] !== DISTRIBUTE_BLOCK && ds[i] !== DISTRIBUTE_CYCLIC && ds[i] !== DISTRIBUTE_NONE) {
        throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: distribs[${i}] = ${ds[i]} is not MPI.DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC or DISTRIBUTE_NONE`);
      }
      if (da[i] !== DISTRIBUTE_DFLT_DARG && da[i]! < 1) {
        throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: dargs[${i}] = ${da[i]} is out of range (expected >= 1 or MPI.DISTRIBUTE_DFLT_DARG)`);
      }
      if (ds[i] === DISTRIBUTE_NONE && ps[i] !== 1) {
        throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: psizes[${i}] = ${ps[i]} must be 1 for MPI.DISTRIBUTE_NONE`);
      }
      if (ds[i] === DISTRIBUTE_BLOCK && da[i] !== DISTRIBUTE_DFLT_DARG && da[i]! * ps[i]! < gs[i]!) {
        throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: dargs[${i}] = ${da[i]} times psizes[${i}] = ${ps[i]} does not cover gsizes[${i}] = ${gs[i]}`);
      }
      procs *= ps[i]!;
    }
    if (procs !== size) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: the product of psizes (${procs}) must equal size (${size})`);
    // Process coordinates: row-major over psizes, whatever the array order.
    const coords: number[] = new Array(n);
    for (let i = n - 1, r = rank; i >= 0; i--) {
      coords[i] = r % ps[i]!;
      r = Math.floor(r / ps[i]!);
    }
    const dims = order === ORDER_C ? [...Array(n).keys()] : [...Array(n).keys()].reverse();
    const strides: number[] = new Array(n);
    let stride = this.extent;
    for (let k = n - 1; k >= 0; k--) {
      strides[dims[k]!] = stride;
      stride *= gs[dims[k]!]!;
    }
    let flat: Node[] = this.flat.slice();
    let dataSize = this.size;
    for (let k = n - 1; k >= 0; k--) {
      const d = dims[k]!;
      const g = gs[d]!;
      const p = ps[d]!;
      const c = coords[d]!;
      const s = strides[d]!;
      let local = 0;
      const parts: Node[][] = [];
      if (ds[d] === DISTRIBUTE_NONE) {
        parts.push(repeat(0, [{ count: g, stride: s }], flat));
        local = g;
      } else if (ds[d] === DISTRIBUTE_BLOCK) {
        const b = da[d] === DISTRIBUTE_DFLT_DARG ? Math.ceil(g / p) : da[d]!;
        const len = Math.max(0, Math.min(b, g - c * b));
        parts.push(repeat(c * b * s, [{ count: len, stride: s }], flat));
        local = len;
      } else {
        const b = da[d] === DISTRIBUTE_DFLT_DARG ? 1 : da[d]!;
        // Whole blocks c, c + p, c + 2p, ... then at most one cut block at the end.
        const full = g - (c + 1) * b >= 0 ? Math.floor((g - (c + 1) * b) / (p * b)) + 1 : 0;
        parts.push(repeat(c * b * s, [{ count: full, stride: p * b * s }, { count: b, stride: s }], flat));
        local = full * b;
        const lastStart = (c + full * p) * b;
        if (lastStart < g) {
          const rest = Math.min(b, g - lastStart);
          parts.push(repeat(lastStart * s, [{ count: rest, stride: s }], flat));
          local += rest;
        }
      }
      flat = seq(parts);
      dataSize *= local;
    }
    const fp = footprint(flat);
    return this.derive(COMBINER_DARRAY, [size, rank, n, ...gs, ...ds, ...da, ...ps, order], [], [this], flat, dataSize, 0,
      stride, fp?.[0] ?? 0, fp?.[1] ?? 0);
  }

  /** The same type map with lower bound `lb` and extent `extent` (bytes). */
  Create_resized(lb: number, extent: number): Datatype {
    const call = 'Create_resized';
    this.usable(call);
    lb = checkAddress(call, 'lb', lb);
    extent = checkAddress(call, 'extent', extent);
    return this.derive(COMBINER_RESIZED, [], [lb, extent], [this], this.flat.slice(), this.size, lb, extent, this.trueLb, this.trueUb);
  }

  // --------------------------------------------------------------- packing

  /** Packs the whole of `inbuf` (its bytes / extent instances) into `outbuf` at `position`; returns the new position. */
  Pack(inbuf: BufferLike, outbuf: BufferLike, position: number, _comm?: Comm): number {
    return this.packInto('Pack', inbuf, outbuf, position, false);
  }

  /** Unpacks from `inbuf` at `position` into the whole of `outbuf` (its bytes / extent instances); returns the new position. */
  Unpack(inbuf: BufferLike, position: number, outbuf: BufferLike, _comm?: Comm): number {
    return this.unpackFrom('Unpack', inbuf, position, outbuf, false);
  }

  /** Bytes Pack needs for `count` instances. */
  Pack_size(count: number, _comm?: Comm): number {
    this.usable('Pack_size');
    return checkCount('Pack_size', 'count', count) * this.size;
  }

  /** Pack in the portable external32 representation (big-endian). */
  Pack_external(datarep: string, inbuf: BufferLike, outbuf: BufferLike, position: number): number {
    checkDatarep('Pack_external', datarep);
    return this.packInto('Pack_external', inbuf, outbuf, position, true);
  }

  Unpack_external(datarep: string, inbuf: BufferLike, position: number, outbuf: BufferLike): number {
    checkDatarep('Unpack_external', datarep);
    return this.unpackFrom('Unpack_external', inbuf, position, outbuf, true);
  }

  Pack_external_size(datarep: string, count: number): number {
    checkDatarep('Pack_external_size', datarep);
    this.usable('Pack_external_size');
    return checkCount('Pack_external_size', 'count', count) * this.size;
  }

  /** @internal The flattened type map of `count` consecutive instances. */
  nodesFor(count: number): readonly Node[] {
    if (count === 1) return this.flat;
    if (count !== this.lastCount) {
      this.lastNodes = repeat(0, [{ count, stride: this.extent }], this.flat);
      this.lastCount = count;
    }
    return this.lastNodes;
  }

  /** @internal Packs `count` instances from `user` (origin at byte 0), packed bytes [start, end), into out at outPos. */
  packTo(user: Uint8Array, count: number, start: number, end: number, out: Uint8Array, outPos: number): void {
    packRange(this.nodesFor(count), user, 0, start, end, out, outPos);
  }

  /** @internal Unpacks packed bytes [start, end) of `count` instances from input at inPos into `user`. */
  unpackTo(input: Uint8Array, inPos: number, count: number, start: number, end: number, user: Uint8Array): void {
    unpackRange(this.nodesFor(count), input, inPos, start, end, user, 0);
  }

  /** @internal Bytes a buffer of `count` instances must span (from the origin), or -1 if data lies before it. */
  spanOf(count: number): number {
    if (count === 0 || this.size === 0) return 0;
    const lo = Math.min(this.trueLb, this.trueLb + (count - 1) * this.extent);
    if (lo < 0) return -1;
    return Math.max(this.trueUb, this.trueUb + (count - 1) * this.extent);
  }

  /** @internal Basic elements in `bytes` packed bytes of this type; null when a basic element is cut. */
  elementsIn(bytes: number): number | null {
    return countElements(this.flat, this.size, this.elements, bytes);
  }

  /** @internal Throws MPI.ERR_TYPE if the type was freed. */
  usable(call: string): void {
    if (this.freed) throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.${call}: the datatype has been freed`);
  }

  private packInto(call: string, inbuf: unknown, outbuf: unknown, position: number, external: boolean): number {
    this.usable(call);
    this.requireCommitted(call);
    const user = bytesOf(call, 'inbuf', inbuf);
    const out = bytesOf(call, 'outbuf', outbuf);
    const count = this.instancesIn(call, 'inbuf', user.length);
    const bytes = count * this.size;
    checkPosition(call, position, out.length);
    if (position + bytes > out.length) {
      throw new MPIException(ErrorClass.ERR_BUFFER, `Datatype.${call}: ${count} x ${this.name} need ${bytes} bytes from position ` +
        `${position}, outbuf has ${out.length - position}`);
    }
    this.packTo(user, count, 0, bytes, out, position);
    if (external) swapToFromExternal32(this.nodesFor(count), out, position, 0, bytes);
    return position + bytes;
  }

  private unpackFrom(call: string, inbuf: unknown, position: number, outbuf: unknown, external: boolean): number {
    this.usable(call);
    this.requireCommitted(call);
    const input = bytesOf(call, 'inbuf', inbuf);
    const user = bytesOf(call, 'outbuf', outbuf);
    const count = this.instancesIn(call, 'outbuf', user.length);
    const bytes = count * this.size;
    checkPosition(call, position, input.length);
    if (position + bytes > input.length) {
      throw new MPIException(ErrorClass.ERR_TRUNCATE, `Datatype.${call}: ${count} x ${this.name} need ${bytes} packed bytes from ` +
        `position ${position}, inbuf has ${input.length - position}`);
    }
    if (external) {
      const tmp = input.slice(position, position + bytes);
      swapToFromExternal32(this.nodesFor(count), tmp, 0, 0, bytes);
      this.unpackTo(tmp, 0, count, 0, bytes, user);
    } else this.unpackTo(input, position, count, 0, bytes, user);
    return position + bytes;
  }

  private instancesIn(call: string, what: string, bytes: number): number {
    if (this.extent <= 0) {
      throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.${call}: ${this.name} has extent ${this.extent}; the count of ${what} cannot be derived`);
    }
    const count = Math.floor(bytes / this.extent);
    const span = this.spanOf(count);
    if (span < 0 || span > bytes) {
      throw new MPIException(ErrorClass.ERR_BUFFER, `Datatype.${call}: ${count} x ${this.name} span bytes ${Math.min(0, this.trueLb)}..${span} ` +
        `of ${what}, which has ${bytes}`);
    }
    return count;
  }

  private requireCommitted(call: string): void {
    if (!this.committed) {
      throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.${call}: ${this.name} is not committed; commit it first (dt.Commit())`);
    }
  }

  private vector(combiner: number, ints: number[], addrs: number[], count: number, blocklength: number, strideBytes: number): Datatype {
    const flat = repeat(0, [{ count, stride: strideBytes }, { count: blocklength, stride: this.extent }], this.flat);
    const ext = new Extent();
    if (count > 0) {
      ext.block(this, 0, blocklength);
      ext.block(this, (count - 1) * strideBytes, blocklength);
    }
    return derived(combiner, ints, addrs, [this], flat, count * blocklength * this.size, ext);
  }

  private blocks(combiner: number, ints: number[], addrs: number[], displs: number[], lengths: number[]): Datatype {
    const parts: Node[][] = [];
    const ext = new Extent();
    let size = 0;
    for (let i = 0; i < displs.length; i++) {
      parts.push(repeat(displs[i]!, [{ count: lengths[i]!, stride: this.extent }], this.flat));
      ext.block(this, displs[i]!, lengths[i]!);
      size += lengths[i]! * this.size;
    }
    return derived(combiner, ints, addrs, [this], seq(parts), size, ext);
  }

  private derive(combiner: number, ints: number[], addrs: number[], types: Datatype[], flat: Node[], size: number,
                 lb: number, extent: number, trueLb: number, trueUb: number): Datatype {
    return new Datatype(`${COMBINER_NAMES[combiner]}(${types.map((t) => t.name).join(',')})`, size, kindOf(flat), false,
      { combiner, ints, addrs, types, flat, size, lb, extent, trueLb, trueUb });
  }
}

/** Running lb/ub and true lb/ub over blocks of `n` instances of a type at byte displacement `d`. */
class Extent {
  lb = Infinity;
  ub = -Infinity;
  trueLb = Infinity;
  trueUb = -Infinity;

  block(t: Datatype, d: number, n: number): void {
    if (n === 0) return;
    const span = (n - 1) * t.extent;
    this.lb = Math.min(this.lb, d + t.lb + Math.min(0, span));
    this.ub = Math.max(this.ub, d + t.ub + Math.max(0, span));
    if (t.size === 0) return;
    this.trueLb = Math.min(this.trueLb, d + t.trueLb + Math.min(0, span));
    this.trueUb = Math.max(this.trueUb, d + t.trueUb + Math.max(0, span));
  }
}

function derived(combiner: number, ints: number[], addrs: number[], types: Datatype[], flat: Node[], size: number,
                 ext: Extent, padTo = 1): Datatype {
  const lb = ext.lb === Infinity ? 0 : ext.lb;
  let ub = ext.ub === -Infinity ? 0 : ext.ub;
  const rest = (ub - lb) % padTo;
  if (rest !== 0) ub += padTo - rest;
  const trueLb = ext.trueLb === Infinity ? 0 : ext.trueLb;
  const trueUb = ext.trueUb === -Infinity ? 0 : ext.trueUb;
  return new Datatype(`${COMBINER_NAMES[combiner]}(${types.map((t) => t.name).join(',')})`, size, kindOf(flat), false,
    { combiner, ints, addrs, types, flat, size, lb, extent: ub - lb, trueLb, trueUb });
}

/** The basic kind all blocks share, or 'packed' for a type mixing several. */
function kindOf(flat: readonly Node[]): ElementKind {
  let kind: ElementKind | null = null;
  let mixed = false;
  const visit = (n: Node): void => {
    if (n.leaf) {
      if (kind === null) kind = n.basic.kind;
      else if (kind !== n.basic.kind) mixed = true;
    } else n.items.forEach(visit);
  };
  flat.forEach(visit);
  return mixed || kind === null ? 'packed' : kind;
}

function elementsOf(flat: readonly Node[]): number {
  let n = 0;
  for (const node of flat) {
    if (node.leaf) n += (node.len / node.basic.size) * node.basic.elements;
    else {
      let reps = 1;
      for (const l of node.levels) reps *= l.count;
      n += reps * elementsOf(node.items);
    }
  }
  return n;
}

function checkInt(call: string, what: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -INT_MAX - 1 || v > INT_MAX) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} ${String(v)} is not an integer in ${-INT_MAX - 1}..${INT_MAX}`);
  }
  return v;
}

function checkAddress(call: string, what: string, v: unknown): number {
  if (typeof v === 'bigint') v = Number(v);
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} ${String(v)} is not an integer byte displacement`);
  }
  return v;
}

function checkCount(call: string, what: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > INT_MAX) {
    throw new MPIException(ErrorClass.ERR_COUNT, `Datatype.${call}: ${what} ${String(v)} is out of range (expected 0..${INT_MAX})`);
  }
  return v;
}

function isList(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

function checkCounts(call: string, what: string, v: unknown): number[] {
  if (!isList(v)) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} must be an array of integers`);
  const out: number[] = [];
  for (let i = 0; i < v.length; i++) out.push(checkCount(call, `${what}[${i}]`, Number(v[i])));
  return out;
}

function checkInts(call: string, what: string, v: unknown, length: number,
                   check: (call: string, what: string, v: unknown) => number): number[] {
  if (!isList(v)) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} must be an array of integers`);
  if (length >= 0 && v.length !== length) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} has ${v.length} entries, expected ${length}`);
  }
  const out: number[] = [];
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    out.push(check(call, `${what}[${i}]`, typeof x === 'bigint' ? Number(x) : x));
  }
  return out;
}

function checkOrder(call: string, order: unknown): void {
  if (order !== ORDER_C && order !== ORDER_FORTRAN) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: order ${String(order)} is not MPI.ORDER_C or MPI.ORDER_FORTRAN`);
  }
}

function checkDatarep(call: string, datarep: unknown): void {
  if (datarep !== 'external32') {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: datarep ${String(datarep)} is not supported (expected 'external32')`);
  }
}

function checkPosition(call: string, position: unknown, length: number): void {
  if (typeof position !== 'number' || !Number.isInteger(position) || position < 0 || position > length) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: position ${String(position)} is out of range (expected 0..${length})`);
  }
}

function bytesOf(call: string, what: string, x: unknown): Uint8Array {
  if (x instanceof Uint8Array) return x;
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (x instanceof ArrayBuffer || x instanceof SharedArrayBuffer) return new Uint8Array(x);
  throw new MPIException(ErrorClass.ERR_BUFFER, `Datatype.${call}: ${what} must be a TypedArray, DataView, Buffer or ArrayBuffer`);
}

const t = (name: string, size: number, kind: ElementKind) => new Datatype(name, size, kind);

export const Datatypes = {
  DATATYPE_NULL: t('MPI_DATATYPE_NULL', 0, 'uint8'),
  BYTE: t('MPI_BYTE', 1, 'uint8'),
  PACKED: t('MPI_PACKED', 1, 'packed'),
  CHAR: t('MPI_CHAR', 1, 'int8'),
  SIGNED_CHAR: t('MPI_SIGNED_CHAR', 1, 'int8'),
  UNSIGNED_CHAR: t('MPI_UNSIGNED_CHAR', 1, 'uint8'),
  SHORT: t('MPI_SHORT', 2, 'int16'),
  UNSIGNED_SHORT: t('MPI_UNSIGNED_SHORT', 2, 'uint16'),
  INT: t('MPI_INT', 4, 'int32'),
  UNSIGNED: t('MPI_UNSIGNED', 4, 'uint32'),
  LONG: t('MPI_LONG', 8, 'int64'),
  UNSIGNED_LONG: t('MPI_UNSIGNED_LONG', 8, 'uint64'),
  LONG_LONG: t('MPI_LONG_LONG', 8, 'int64'),
  UNSIGNED_LONG_LONG: t('MPI_UNSIGNED_LONG_LONG', 8, 'uint64'),
  FLOAT: t('MPI_FLOAT', 4, 'float32'),
  DOUBLE: t('MPI_DOUBLE', 8, 'float64'),
  INT8_T: t('MPI_INT8_T', 1, 'int8'),
  INT16_T: t('MPI_INT16_T', 2, 'int16'),
  INT32_T: t('MPI_INT32_T', 4, 'int32'),
  INT64_T: t('MPI_INT64_T', 8, 'int64'),
  UINT8_T: t('MPI_UINT8_T', 1, 'uint8'),
  UINT16_T: t('MPI_UINT16_T', 2, 'uint16'),
  UINT32_T: t('MPI_UINT32_T', 4, 'uint32'),
  UINT64_T: t('MPI_UINT64_T', 8, 'uint64'),
  C_BOOL: t('MPI_C_BOOL', 1, 'bool'),
  FLOAT_INT: t('MPI_FLOAT_INT', 8, 'pair'),
  DOUBLE_INT: t('MPI_DOUBLE_INT', 16, 'pair'),
  LONG_INT: t('MPI_LONG_INT', 16, 'pair'),
  TWOINT: t('MPI_2INT', 8, 'pair'),
  SHORT_INT: t('MPI_SHORT_INT', 8, 'pair'),
} as const;

/** The datatype a typed array stands for when a buffer is passed without one. */
export function inferDatatype(view: ArrayBufferView): Datatype | null {
  if (view instanceof Uint8Array || view instanceof Uint8ClampedArray || view instanceof DataView) return Datatypes.BYTE;
  if (view instanceof Float64Array) return Datatypes.DOUBLE;
  if (view instanceof Float32Array) return Datatypes.FLOAT;
  if (view instanceof Int32Array) return Datatypes.INT;
  if (view instanceof Uint32Array) return Datatypes.UNSIGNED;
  if (view instanceof Int16Array) return Datatypes.SHORT;
  if (view instanceof Uint16Array) return Datatypes.UNSIGNED_SHORT;
  if (view instanceof Int8Array) return Datatypes.SIGNED_CHAR;
  if (view instanceof BigInt64Array) return Datatypes.INT64_T;
  if (view instanceof BigUint64Array) return Datatypes.UINT64_T;
  return null;
}
