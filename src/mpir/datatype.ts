import {
  type AttrOwner, type CopyFn, type DeleteFn, copyAttrs, createKeyval, deleteAllAttrs, deleteAttr, freeKeyval, getAttr, setAttr,
} from './attributes.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { checkBounds, checkCount, checkDatarep } from './dtype/checks.js';
import { COMBINER_DARRAY, COMBINER_NAMED, COMBINER_RESIZED, COMBINER_SUBARRAY, ORDER_C } from './dtype/combiners.js';
import * as make from './dtype/constructors.js';
import { darray } from './dtype/darray.js';
import { type Derivation, derivedName, elementsOf, kindOf } from './dtype/derivation.js';
import { type Node, leaf, repeat } from './dtype/flatten.js';
import { packRange, unpackRange } from './dtype/pack.js';
import { checkPackComm, packInto, unpackFrom } from './dtype/pack-calls.js';
import { countElements } from './dtype/external32.js';
import type { Comm } from './comm.js';
import type { BufferLike } from './types.js';

/**
 * MPI datatypes: the predefined types (size, extent, and the typed-array kind a buffer of that
 * type is read as) and the derived-type constructors of API.md. Every type carries its
 * flattened form (dtype/flatten.ts), from which packing and unpacking start at any byte of the
 * packed stream (dtype/cursor.ts). Derived types are made uncommitted; Commit() returns the
 * type, and communication refuses an uncommitted one. The constructors' checks and type maps
 * are in dtype/constructors.ts and dtype/darray.ts, Pack/Unpack in dtype/pack-calls.ts, the
 * MPI constants of envelopes in dtype/combiners.ts.
 */
export type ElementKind =
  | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64'
  | 'float32' | 'float64' | 'bool' | 'pair' | 'packed';

export {
  COMBINER_CONTIGUOUS, COMBINER_DARRAY, COMBINER_DUP, COMBINER_HINDEXED, COMBINER_HINDEXED_BLOCK, COMBINER_HVECTOR,
  COMBINER_INDEXED, COMBINER_INDEXED_BLOCK, COMBINER_NAMED, COMBINER_RESIZED, COMBINER_STRUCT, COMBINER_SUBARRAY,
  COMBINER_VECTOR, DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC, DISTRIBUTE_DFLT_DARG, DISTRIBUTE_NONE, DatatypeConstants, ORDER_C,
  ORDER_FORTRAN,
} from './dtype/combiners.js';

/** Alignment of the MAXLOC/MINLOC pair types: that of their widest member. */
const PAIR_ALIGN: Record<string, number> = {
  MPI_FLOAT_INT: 4, MPI_DOUBLE_INT: 8, MPI_LONG_INT: 8, MPI_2INT: 4, MPI_SHORT_INT: 4,
};

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
  /** The name Set_name gave, which Get_name returns. */
  private userName: string | null = null;
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
    return this.userName ?? this.name;
  }

  /** Names the type for Get_name (error messages keep the name it was made with). */
  Set_name(name: string): void {
    this.usable('Set_name');
    if (typeof name !== 'string') throw new MPIException(ErrorClass.ERR_ARG, `Datatype.Set_name: name must be a string, got ${typeof name}`);
    this.userName = name;
  }

  /** The value set under a key of MPI.Datatype.Create_keyval, or null when not set. */
  Get_attr(keyval: number): unknown {
    this.usable('Get_attr');
    return getAttr(this.attrOwner(), keyval);
  }

  /** Stores value under a key of MPI.Datatype.Create_keyval (deleting the value it replaces). */
  Set_attr(keyval: number, value: unknown): void {
    this.usable('Set_attr');
    setAttr(this.attrOwner(), keyval, value);
  }

  /** Removes the attribute under keyval, calling the key's delete_fn. */
  Delete_attr(keyval: number): void {
    this.usable('Delete_attr');
    deleteAttr(this.attrOwner(), keyval);
  }

  /** A new attribute key for datatypes; Dup passes values through copy_fn, Free and Delete_attr call delete_fn. */
  static Create_keyval(copy_fn?: CopyFn<Datatype> | boolean | null, delete_fn?: DeleteFn<Datatype> | null): number {
    return createKeyval('Datatype', failDatatype, copy_fn, delete_fn);
  }

  /** Frees a key (attributes already set keep it until deleted); returns MPI.KEYVAL_INVALID. */
  static Free_keyval(keyval: number): number {
    return freeKeyval('Datatype', failDatatype, keyval);
  }

  private attrOwner(): AttrOwner {
    return { kind: 'Datatype', obj: this, fail: failDatatype };
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
    deleteAllAttrs(this);
  }

  /** A new type with the same type map (committed if this one is). */
  Dup(): Datatype {
    this.usable('Dup');
    const t = derivedType('Dup', make.dup(this));
    if (this.isCommitted) t.committed = true;
    copyAttrs(this, t);
    return t;
  }

  Create_contiguous(count: number): Datatype {
    this.usable('Create_contiguous');
    return derivedType('Create_contiguous', make.contiguous(this, count));
  }

  Create_vector(count: number, blocklength: number, stride: number): Datatype {
    this.usable('Create_vector');
    return derivedType('Create_vector', make.vector(this, count, blocklength, stride));
  }

  Create_hvector(count: number, blocklength: number, stride: number): Datatype {
    this.usable('Create_hvector');
    return derivedType('Create_hvector', make.hvector(this, count, blocklength, stride));
  }

  Create_indexed(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>): Datatype {
    this.usable('Create_indexed');
    return derivedType('Create_indexed', make.indexed(this, blocklengths, displacements));
  }

  Create_hindexed(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>): Datatype {
    this.usable('Create_hindexed');
    return derivedType('Create_hindexed', make.hindexed(this, blocklengths, displacements));
  }

  Create_indexed_block(blocklength: number, displacements: ArrayLike<number>): Datatype {
    this.usable('Create_indexed_block');
    return derivedType('Create_indexed_block', make.indexedBlock(this, blocklength, displacements));
  }

  Create_hindexed_block(blocklength: number, displacements: ArrayLike<number>): Datatype {
    this.usable('Create_hindexed_block');
    return derivedType('Create_hindexed_block', make.hindexedBlock(this, blocklength, displacements));
  }

  /** `count` blocks of `blocklengths[i]` elements of `types[i]` at byte displacements `displacements[i]`. */
  static Create_struct(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>, types: ArrayLike<Datatype>): Datatype {
    return derivedType('Create_struct', make.struct(blocklengths, displacements, types, usableDatatype));
  }

  /**
   * The subarray `subsizes` at `starts` of an array of `sizes` elements of this type, in C
   * (row-major) or Fortran (column-major) order; its extent is the whole array.
   */
  Create_subarray(sizes: ArrayLike<number>, subsizes: ArrayLike<number>, starts: ArrayLike<number>, order: number = ORDER_C): Datatype {
    this.usable('Create_subarray');
    return derivedType('Create_subarray', make.subarray(this, sizes, subsizes, starts, order));
  }

  /**
   * The part of a `gsizes` array that process `rank` of a `psizes` process grid (row-major
   * ranks) holds under block/cyclic/none distributions (HPF rules, as MPI defines them).
   */
  Create_darray(size: number, rank: number, gsizes: ArrayLike<number>, distribs: ArrayLike<number>,
                dargs: ArrayLike<number>, psizes: ArrayLike<number>, order: number = ORDER_C): Datatype {
    this.usable('Create_darray');
    return derivedType('Create_darray', darray(this, size, rank, gsizes, distribs, dargs, psizes, order));
  }

  /** The same type map with lower bound `lb` and extent `extent` (bytes). */
  Create_resized(lb: number, extent: number): Datatype {
    this.usable('Create_resized');
    return derivedType('Create_resized', make.resized(this, lb, extent));
  }

  // --------------------------------------------------------------- packing

  /** Packs the whole of `inbuf` (its bytes / extent instances) into `outbuf` at `position`; returns the new position. */
  Pack(inbuf: BufferLike, outbuf: BufferLike, position: number, _comm?: Comm): number {
    checkPackComm('Pack', _comm);
    return packInto(this, 'Pack', inbuf, outbuf, position, false);
  }

  /** Unpacks from `inbuf` at `position` into the whole of `outbuf` (its bytes / extent instances); returns the new position. */
  Unpack(inbuf: BufferLike, position: number, outbuf: BufferLike, _comm?: Comm): number {
    checkPackComm('Unpack', _comm);
    return unpackFrom(this, 'Unpack', inbuf, position, outbuf, false);
  }

  /** Bytes Pack needs for `count` instances. */
  Pack_size(count: number, _comm?: Comm): number {
    this.usable('Pack_size');
    checkPackComm('Pack_size', _comm);
    return checkCount('Pack_size', 'count', count) * this.size;
  }

  /** Pack in the portable external32 representation (big-endian). */
  Pack_external(datarep: string, inbuf: BufferLike, outbuf: BufferLike, position: number): number {
    checkDatarep('Pack_external', datarep);
    return packInto(this, 'Pack_external', inbuf, outbuf, position, true);
  }

  Unpack_external(datarep: string, inbuf: BufferLike, position: number, outbuf: BufferLike): number {
    checkDatarep('Unpack_external', datarep);
    return unpackFrom(this, 'Unpack_external', inbuf, position, outbuf, true);
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
}

/** A derived type of `d`, uncommitted (its kind is the basic kind it is made of, or 'packed' when it mixes several). */
function derivedType(call: string, d: Derivation): Datatype {
  const name = derivedName(d);
  checkBounds(call, name, d);
  return new Datatype(name, d.size, kindOf(d.flat), false, d);
}

/** Whether `t` is a datatype a struct may be made of (MPI.ERR_TYPE if it has been freed). */
function usableDatatype(t: unknown, call: string): t is Datatype {
  if (!(t instanceof Datatype) || t === Datatypes.DATATYPE_NULL) return false;
  t.usable(call);
  return true;
}

function failDatatype(call: string, errorClass: number, message: string): never {
  throw new MPIException(errorClass, `Datatype.${call}: ${message}`);
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