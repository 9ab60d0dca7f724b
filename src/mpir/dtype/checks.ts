import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { ORDER_C, ORDER_FORTRAN } from './combiners.js';
import { userView } from './user-view.js';

/**
 * Argument checks of the Datatype calls: each returns the value as a number (BigInt
 * displacements converted) or throws an MPI.Exception naming the call, the argument and what
 * was expected.
 */

const INT_MAX = 0x7fffffff;

export function checkInt(call: string, what: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -INT_MAX - 1 || v > INT_MAX) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} ${String(v)} is not an integer in ${-INT_MAX - 1}..${INT_MAX}`);
  }
  return v;
}

export function checkAddress(call: string, what: string, v: unknown): number {
  if (typeof v === 'bigint') v = Number(v);
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} ${String(v)} is not an integer byte displacement`);
  }
  return v;
}

/**
 * A count (elements, blocks, instances): MPI-4's large counts are the normal ones here, any
 * integer a JavaScript number holds exactly, 0..Number.MAX_SAFE_INTEGER.
 */
export function checkCount(call: string, what: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > Number.MAX_SAFE_INTEGER) {
    throw new MPIException(ErrorClass.ERR_COUNT, `Datatype.${call}: ${what} ${String(v)} is out of range (expected 0..${Number.MAX_SAFE_INTEGER})`);
  }
  return v;
}

/**
 * A stride, displacement or array extent counted in elements of a type (large-count MPI_Count
 * arguments): any exact integer, negative included where the call allows it.
 */
export function checkElements(call: string, what: string, v: unknown): number {
  if (typeof v === 'bigint') v = Number(v);
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} ${String(v)} is not an integer within ±Number.MAX_SAFE_INTEGER`);
  }
  return v;
}

/**
 * A derived type's size and bounds must stay exact in a number (a count of 2^50 doubles would
 * not): MPI.ERR_ARG naming the call, checked once when the type is made.
 */
export function checkBounds(call: string, name: string, d: { size: number; lb: number; extent: number; trueLb: number; trueUb: number }): void {
  const values: [string, number][] = [['size', d.size], ['lb', d.lb], ['extent', d.extent], ['ub', d.lb + d.extent],
    ['true lb', d.trueLb], ['true ub', d.trueUb]];
  for (const [what, v] of values) {
    if (!Number.isSafeInteger(v)) {
      throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: the ${what} of ${name} would be ${v}, past Number.MAX_SAFE_INTEGER bytes`);
    }
  }
}

function isList(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

export function checkCounts(call: string, what: string, v: unknown): number[] {
  if (!isList(v)) throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: ${what} must be an array of integers`);
  const out: number[] = [];
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    out.push(checkCount(call, `${what}[${i}]`, typeof x === 'bigint' ? Number(x) : x));
  }
  return out;
}

export function checkInts(call: string, what: string, v: unknown, length: number,
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

export function checkOrder(call: string, order: unknown): void {
  if (order !== ORDER_C && order !== ORDER_FORTRAN) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: order ${String(order)} is not MPI.ORDER_C or MPI.ORDER_FORTRAN`);
  }
}

export function checkDatarep(call: string, datarep: unknown): void {
  if (datarep !== 'external32') {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: datarep ${String(datarep)} is not supported (expected 'external32')`);
  }
}

export function checkPosition(call: string, position: unknown, length: number): void {
  if (typeof position !== 'number' || !Number.isInteger(position) || position < 0 || position > length) {
    throw new MPIException(ErrorClass.ERR_ARG, `Datatype.${call}: position ${String(position)} is out of range (expected 0..${length})`);
  }
}

/** The bytes of a buffer argument as the datatype engine's view (user-view.ts); `.byteLength` of `x` is their real length. */
export function bytesOf(call: string, what: string, x: unknown): Uint8Array {
  if (x instanceof Uint8Array) return x;
  if (ArrayBuffer.isView(x) || x instanceof ArrayBuffer || x instanceof SharedArrayBuffer) return userView(x, x.byteLength);
  throw new MPIException(ErrorClass.ERR_BUFFER, `Datatype.${call}: ${what} must be a TypedArray, DataView, Buffer or ArrayBuffer`);
}
