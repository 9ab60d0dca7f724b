import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';

/**
 * MPI datatypes. This module holds the predefined types (size, extent, and the typed-array
 * kind a buffer of that type is read as); derived-type constructors arrive with the datatype
 * engine and until then raise MPI.ERR_UNSUPPORTED_OPERATION.
 */
export type ElementKind =
  | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64'
  | 'float32' | 'float64' | 'bool' | 'pair' | 'packed';

export class Datatype {
  /** Bytes of data in one element (MPI type size). */
  readonly size: number;
  readonly extent: number;
  readonly lb = 0;

  constructor(readonly name: string, size: number, readonly kind: ElementKind, readonly predefined = true) {
    this.size = size;
    this.extent = size;
  }

  get ub(): number {
    return this.lb + this.extent;
  }

  Get_size(): number {
    return this.size;
  }

  Get_extent(): [number, number] {
    return [this.lb, this.extent];
  }

  Get_true_extent(): [number, number] {
    return [this.lb, this.extent];
  }

  Get_name(): string {
    return this.name;
  }

  /** Predefined types are always committed; Commit returns the type so calls chain. */
  Commit(): Datatype {
    return this;
  }

  Free(): void {
    if (this.predefined) throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.Free: ${this.name} is predefined and cannot be freed`);
  }

  Dup(): Datatype {
    return this;
  }

  Create_contiguous(): never { return unsupported('Create_contiguous'); }
  Create_vector(): never { return unsupported('Create_vector'); }
  Create_hvector(): never { return unsupported('Create_hvector'); }
  Create_indexed(): never { return unsupported('Create_indexed'); }
  Create_hindexed(): never { return unsupported('Create_hindexed'); }
  Create_indexed_block(): never { return unsupported('Create_indexed_block'); }
  Create_hindexed_block(): never { return unsupported('Create_hindexed_block'); }
  Create_subarray(): never { return unsupported('Create_subarray'); }
  Create_darray(): never { return unsupported('Create_darray'); }
  Create_resized(): never { return unsupported('Create_resized'); }
  static Create_struct(): never { return unsupported('Create_struct'); }
}

function unsupported(call: string): never {
  throw new MPIException(ErrorClass.ERR_UNSUPPORTED_OPERATION,
    `Datatype.${call}: derived datatypes are not implemented yet in tsmpi (see the README's list of missing features)`);
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
