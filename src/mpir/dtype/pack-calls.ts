import type { Datatype } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { bytesOf, checkPosition } from './checks.js';
import { swapToFromExternal32 } from './external32.js';
import { describe } from '../validate.js';

/**
 * Datatype.Pack and Unpack, native and external32: the whole user buffer (its bytes / extent
 * instances) to or from a packed buffer at a position, with the checks MPI reports (type
 * committed, buffers long enough, position in range). Communication packs through the same
 * engine (Datatype.packTo / unpackTo) without these calls.
 */

/** Packs the whole of `inbuf` into `outbuf` at `position` (big-endian when `external`); returns the new position. */
export function packInto(t: Datatype, call: string, inbuf: unknown, outbuf: unknown, position: number, external: boolean): number {
  ready(t, call);
  const user = bytesOf(call, 'inbuf', inbuf);
  const out = bytesOf(call, 'outbuf', outbuf);
  const count = instancesIn(t, call, 'inbuf', (inbuf as ArrayBufferView).byteLength);
  const bytes = count * t.size;
  checkPosition(call, position, out.length);
  if (position + bytes > out.length) {
    throw new MPIException(ErrorClass.ERR_BUFFER, `Datatype.${call}: ${count} x ${t.name} need ${bytes} bytes from position ` +
      `${position}, outbuf has ${out.length - position}`);
  }
  t.packTo(user, count, 0, bytes, out, position);
  if (external) swapToFromExternal32(t.nodesFor(count), out, position, 0, bytes);
  return position + bytes;
}

/** Unpacks from `inbuf` at `position` into the whole of `outbuf`; returns the new position. */
export function unpackFrom(t: Datatype, call: string, inbuf: unknown, position: number, outbuf: unknown, external: boolean): number {
  ready(t, call);
  const input = bytesOf(call, 'inbuf', inbuf);
  const user = bytesOf(call, 'outbuf', outbuf);
  const count = instancesIn(t, call, 'outbuf', (outbuf as ArrayBufferView).byteLength);
  const bytes = count * t.size;
  checkPosition(call, position, input.length);
  if (position + bytes > input.length) {
    throw new MPIException(ErrorClass.ERR_TRUNCATE, `Datatype.${call}: ${count} x ${t.name} need ${bytes} packed bytes from ` +
      `position ${position}, inbuf has ${input.length - position}`);
  }
  if (external) {
    const tmp = input.slice(position, position + bytes);
    swapToFromExternal32(t.nodesFor(count), tmp, 0, 0, bytes);
    t.unpackTo(tmp, 0, count, 0, bytes, user);
  } else t.unpackTo(input, position, count, 0, bytes, user);
  return position + bytes;
}

/**
 * The communicator argument of Pack, Unpack and Pack_size: the packed layout does not depend on
 * it, but given, it must be a live communicator (MPI.ERR_COMM). Told by its shape, since the
 * datatype layer loads before Comm; a freed or null one raises through coreFor, naming the call.
 */
export function checkPackComm(call: string, comm: unknown): void {
  if (comm === undefined) return;
  const c = comm as { coreFor?: unknown } | null;
  if (typeof c !== 'object' || c === null || typeof c.coreFor !== 'function') {
    throw new MPIException(ErrorClass.ERR_COMM, `Datatype.${call}: comm must be an MPI.Comm, got ${describe(comm)}`);
  }
  (c.coreFor as (call: string) => unknown).call(c, `Datatype.${call}`);
}

/** Not freed (MPI.ERR_TYPE) and committed (MPI.ERR_TYPE, saying how to commit). */
function ready(t: Datatype, call: string): void {
  t.usable(call);
  if (!t.isCommitted) {
    throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.${call}: ${t.name} is not committed; commit it first (dt.Commit())`);
  }
}

/** How many whole instances of `t` a user buffer of `bytes` holds, checking they fit from its origin. */
function instancesIn(t: Datatype, call: string, what: string, bytes: number): number {
  if (t.extent <= 0) {
    throw new MPIException(ErrorClass.ERR_TYPE, `Datatype.${call}: ${t.name} has extent ${t.extent}; the count of ${what} cannot be derived`);
  }
  const count = Math.floor(bytes / t.extent);
  const span = t.spanOf(count);
  if (span < 0 || span > bytes) {
    throw new MPIException(ErrorClass.ERR_BUFFER, `Datatype.${call}: ${count} x ${t.name} span bytes ${Math.min(0, t.trueLb)}..${span} ` +
      `of ${what}, which has ${bytes}`);
  }
  return count;
}
