import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { ORDER_C, ORDER_FORTRAN } from './combiners.js';

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

export function checkCount(call: string, what: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > INT_MAX) {
    throw new MPIException(ErrorClass.ERR_COUNT, `Datatype.${call}: ${what} ${String(v)} is out of range (expected 0..${INT_MAX})`);
  }
  return v;
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

export function bytesOf(call: string, what: string, x: unknown): Uint8Array {
  if (x instanceof Uint8Array) return x;
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (x instanceof ArrayBuffer || x instanceof SharedArrayBuffer) return new Uint8Array(x);
  throw new MPIException(ErrorClass.ERR_BUFFER, `Datatype.${call}: ${what} must be a TypedArray, DataView, Buffer or ArrayBuffer`);
}
