import { Datatype, Datatypes, inferDatatype } from './datatype.js';
import { ErrorClass } from './error-classes.js';
import { type DirectData, directData } from './dtype/direct.js';
import { userView, VIEW_BYTES_MAX } from './dtype/user-view.js';
import { describe } from './validate.js';

/**
 * Decoding of every buffer argument form of API.md, in one place:
 *   TypedArray | DataView | Buffer | ArrayBuffer | SharedArrayBuffer    (count and type inferred)
 *   [buf, datatype]          (count = bytes / datatype size)
 *   [buf, count, datatype]
 * into a byte view plus count and datatype. Views are cached per user buffer, so passing the
 * same buffer again (a benchmark loop, a solver's halo) allocates nothing.
 */
export class BufferSpec {
  bytes: Uint8Array = EMPTY;
  count = 0;
  datatype: Datatype = Datatypes.BYTE;
  /**
   * Non-contiguous datatype decoded for a receive: the user buffer the temporary `bytes` are
   * unpacked into when the receive completes (expectUnpack, finishUnpack); null otherwise.
   */
  needsUnpack: Uint8Array | null = null;
  /** Non-contiguous datatype decoded 'direct': the user's memory as its packed stream (bytes is empty). */
  packed: DirectData | null = null;
  /** Set when decoding failed: the error class and message (no exception on the fast path). */
  errorClass = 0;
  error = '';
  /**
   * @internal The last typed array (other than bytes) decoded here in the inferred form, and what
   * it gave: a loop passes the same Float64Array call after call, and the whole check (form,
   * inferred type, sizes, the cached byte view) then costs one comparison. Its byte length is
   * compared too: a view of a resizable buffer may have grown or shrunk, a detached one is empty.
   * Only views of buffers up to RECENT_BUFFER_MAX are kept: the reference keeps the buffer alive.
   * A spec that has seen none holds NO_VIEW, which no caller can pass (null would match a null
   * argument, which must fail as a bad buffer).
   */
  recentView: ArrayBufferView = NO_VIEW;
  recentByteLength = -1;
  recentBytes: Uint8Array = EMPTY;
  recentCount = 0;
  recentDatatype: Datatype = Datatypes.BYTE;
}

const EMPTY = new Uint8Array(0);
/** A spec's recentView before it has decoded a typed array (private to this module). */
const NO_VIEW: ArrayBufferView = new Float64Array(0);
/**
 * Largest buffer a spec keeps its last view of (the reference holds it until the next decode):
 * a spec is module scratch, so at most this much stays alive after the program drops it. Past
 * it, decoding costs nothing next to moving the data.
 */
const RECENT_BUFFER_MAX = 1 << 20;
const views = new WeakMap<object, Uint8Array>();

function byteView(data: ArrayBufferView | ArrayBufferLike, length: number): Uint8Array {
  if (data instanceof Uint8Array && data.length === length) return data;
  const cached = views.get(data);
  if (cached !== undefined && cached.length === length) return cached;
  const view = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, length)
    : new Uint8Array(data, 0, length);
  views.set(data, view);
  return view;
}

function isData(x: unknown): x is ArrayBufferView | ArrayBufferLike {
  return ArrayBuffer.isView(x) || x instanceof ArrayBuffer || x instanceof SharedArrayBuffer;
}

function byteLengthOf(x: ArrayBufferView | ArrayBufferLike): number {
  return x.byteLength;
}

/**
 * What decodeBuffer does with a non-contiguous derived datatype: hand it on 'direct' (out.packed,
 * moved by the devices without a packed copy), 'pack' its data into a temporary contiguous
 * buffer (sends), 'unpack' (a temporary buffer to receive into, with out.needsUnpack set: the
 * caller registers it with expectUnpack), or 'refuse' it with MPI.ERR_UNSUPPORTED_OPERATION
 * (callers that handle contiguous data only).
 */
export type NonContiguous = 'direct' | 'pack' | 'unpack' | 'refuse';

/**
 * Fills `out` from `arg`; on bad input sets out.errorClass and out.error, returns false. Bytes as
 * they are (Buffer is a Uint8Array too) are decided here, every other form in decodeOther: this
 * part is small enough for the optimizing compiler to inline into every call that sends or
 * receives, where the whole function was called out of line.
 */
export function decodeBuffer(arg: unknown, out: BufferSpec, nonContiguous: NonContiguous = 'refuse'): boolean {
  out.errorClass = 0;
  out.needsUnpack = null;
  out.packed = null;
  if (arg instanceof Uint8Array) {
    out.bytes = arg;
    out.count = arg.length;
    out.datatype = Datatypes.BYTE;
    return true;
  }
  return decodeOther(arg, out, nonContiguous);
}

function decodeOther(arg: unknown, out: BufferSpec, nonContiguous: NonContiguous): boolean {
  if (arg === out.recentView && out.recentView.byteLength === out.recentByteLength) {
    out.bytes = out.recentBytes;
    out.count = out.recentCount;
    out.datatype = out.recentDatatype;
    return true;
  }
  let data: unknown = arg;
  let count: number | null = null;
  let datatype: unknown = null;
  if (Array.isArray(arg)) {
    data = arg[0];
    if (arg.length === 2) datatype = arg[1];
    else if (arg.length === 3) {
      count = arg[1] as number;
      datatype = arg[2];
    } else return fail(out, ErrorClass.ERR_BUFFER, `a buffer list must be [buf, datatype] or [buf, count, datatype], got ${arg.length} items`);
  }
  if (!isData(data)) {
    return fail(out, ErrorClass.ERR_BUFFER, `expected a TypedArray, DataView, Buffer or ArrayBuffer, got ${describe(data)}`);
  }
  if (datatype === null) {
    datatype = ArrayBuffer.isView(data) ? inferDatatype(data) : Datatypes.BYTE;
    if (datatype === null) return fail(out, ErrorClass.ERR_TYPE, `cannot infer a datatype for ${describe(data)}; pass [buf, datatype]`);
  }
  if (!(datatype instanceof Datatype)) return fail(out, ErrorClass.ERR_TYPE, `expected an MPI.Datatype, got ${describe(datatype)}`);
  const dt = datatype;
  if (dt.size === 0 && dt.predefined && dt !== Datatypes.DATATYPE_NULL) return fail(out, ErrorClass.ERR_TYPE, `${dt.name} has size 0`);
  if (dt === Datatypes.DATATYPE_NULL) return fail(out, ErrorClass.ERR_TYPE, 'MPI.DATATYPE_NULL is not a datatype for data');
  if (!dt.isCommitted) {
    return fail(out, ErrorClass.ERR_TYPE, dt.isFreed ? `${dt.name} has been freed` : `${dt.name} is not committed; commit it first (dt.Commit())`);
  }
  const available = byteLengthOf(data);
  if (count === null) {
    count = dt.extent > 0 ? Math.floor(available / dt.extent) : 0;
  } else if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    return fail(out, ErrorClass.ERR_COUNT, `count ${String(count)} is not a non-negative integer`);
  }
  if (!dt.contiguous) return decodeNonContiguous(data, available, count, dt, out, nonContiguous);
  const bytes = count * dt.size;
  if (bytes > available) {
    return fail(out, ErrorClass.ERR_BUFFER, `${count} x ${dt.name} (${bytes} bytes) does not fit a buffer of ${available} bytes`);
  }
  if (bytes > VIEW_BYTES_MAX) {
    return fail(out, ErrorClass.ERR_COUNT, `${count} x ${dt.name} is ${bytes} bytes; contiguous data is at most ${VIEW_BYTES_MAX} ` +
      'bytes (4 GiB, the longest byte view Node makes): send it in parts');
  }
  out.bytes = byteView(data, bytes);
  out.count = count;
  out.datatype = dt;
  if (data === arg && ArrayBuffer.isView(arg) && arg.buffer.byteLength <= RECENT_BUFFER_MAX) {
    out.recentView = arg;
    out.recentByteLength = arg.byteLength;
    out.recentBytes = out.bytes;
    out.recentCount = count;
    out.recentDatatype = dt;
  }
  return true;
}

// ------------------------------------------------------- non-contiguous datatypes

function decodeNonContiguous(data: ArrayBufferView | ArrayBufferLike, available: number, count: number, dt: Datatype,
                             out: BufferSpec, mode: NonContiguous): boolean {
  if (mode === 'refuse') {
    return fail(out, ErrorClass.ERR_UNSUPPORTED_OPERATION, `${dt.name} is a non-contiguous datatype, which this call does not support yet`);
  }
  const span = dt.spanOf(count);
  if (span < 0) return fail(out, ErrorClass.ERR_BUFFER, `${count} x ${dt.name} has data before the start of the buffer (true lb ${dt.trueLb})`);
  if (span > available) {
    return fail(out, ErrorClass.ERR_BUFFER, `${count} x ${dt.name} spans ${span} bytes and does not fit a buffer of ${available} bytes`);
  }
  out.count = count;
  out.datatype = dt;
  if (mode === 'direct') {
    out.packed = directData(data, available, count, dt);
    out.bytes = EMPTY;
    return true;
  }
  const user = userView(data, available);
  const bytes = count * dt.size;
  // Dropped with the engine request (sends), or after finishUnpack / dropUnpack (receives).
  const tmp = new Uint8Array(bytes);
  if (mode === 'pack') dt.packTo(user, count, 0, bytes, tmp, 0);
  else out.needsUnpack = user;
  out.bytes = tmp;
  out.count = count;
  out.datatype = dt;
  return true;
}

interface UnpackJob {
  readonly tmp: Uint8Array;
  readonly user: Uint8Array;
  readonly count: number;
  readonly datatype: Datatype;
}

/** Receives into temporary buffers, by engine request, waiting to be unpacked. */
const pendingUnpacks = new Map<object, UnpackJob>();

/** Registers the receive `request` posted on spec.bytes for unpacking at completion. */
export function expectUnpack(request: object, spec: BufferSpec): void {
  if (spec.needsUnpack === null) return;
  pendingUnpacks.set(request, { tmp: spec.bytes, user: spec.needsUnpack, count: spec.count, datatype: spec.datatype });
}

/**
 * Called when a receive completes, before its engine request is released: unpacks what
 * arrived (statusCount bytes, at most the temporary buffer) into the user's buffer.
 */
export function finishUnpack(request: { statusCount: number }): void {
  if (pendingUnpacks.size === 0) return;
  const job = pendingUnpacks.get(request);
  if (job === undefined) return;
  pendingUnpacks.delete(request);
  const n = Math.min(request.statusCount, job.tmp.length);
  job.datatype.unpackTo(job.tmp, 0, job.count, 0, n, job.user);
}

/** Forgets a receive freed before completion (its data never reaches the user's buffer). */
export function dropUnpack(request: object): void {
  if (pendingUnpacks.size !== 0) pendingUnpacks.delete(request);
}

function fail(out: BufferSpec, errorClass: number, message: string): false {
  out.errorClass = errorClass;
  out.error = message;
  return false;
}

export { describe } from './validate.js';
