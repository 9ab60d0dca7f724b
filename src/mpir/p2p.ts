import { DIRECT_PACK } from '../mpid/config.js';
import { MODE_BUFFERED, MODE_STANDARD, type CoreRequest, type Unexpected } from '../mpid/index.js';
import { bufferFor } from './bsend.js';
import { BufferSpec, type NonContiguous, decodeBuffer, expectUnpack, finishUnpack } from './buffer.js';
import type { Comm, CommCore } from './comm.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB_VALUE } from './constants.js';
import { ErrorClass } from './error-classes.js';
import type { MPIException } from './exception.js';
import { Message, fillEmpty, fillStatus, truncationMessage } from './request.js';
import { runtime } from './runtime.js';
import { type Status, statusProblem } from './status.js';
import { show } from './validate.js';

/**
 * The work behind Comm's point-to-point calls: checking ranks and tags, decoding the buffer,
 * starting and completing the core requests of mpid, probing. Comm's methods are the API face
 * (the standard's names, argument order and defaults) and call these with the call's name, so
 * every error names the call the user made. An Intercomm takes the same path with a core of
 * the remote group (intercomm.ts).
 *
 * Sends and receives allocate nothing here per message: one scratch BufferSpec per direction is
 * decoded into and its bytes handed to mpid before the next call can decode again. (Sendrecv_replace
 * copies the outgoing bytes, and Mprobe makes the Message it returns.)
 */

const scratchSend = new BufferSpec();
const scratchRecv = new BufferSpec();
/**
 * Non-contiguous datatypes in point-to-point: moved directly by the devices (TSMPI_DIRECT_PACK=1),
 * or packed into / unpacked from a temporary buffer (0, for comparison). Buffered sends always
 * pack: the attached buffer holds the packed copy.
 */
const SEND_NONCONTIGUOUS: NonContiguous = DIRECT_PACK.read() ? 'direct' : 'pack';
const RECV_NONCONTIGUOUS: NonContiguous = DIRECT_PACK.read() ? 'direct' : 'unpack';

// ------------------------------------------------------------ argument checks

export function checkDest(comm: Comm, call: string, core: CommCore, dest: number): void {
  if (Number.isInteger(dest) && ((dest >= 0 && dest < core.size) || dest === PROC_NULL)) return;
  comm.fail(call, ErrorClass.ERR_RANK, `dest ${show(dest)} is out of range for a communicator of size ${core.size} ` +
    `(expected 0..${core.size - 1} or MPI.PROC_NULL)`);
}

export function checkSource(comm: Comm, call: string, core: CommCore, source: number): void {
  if (Number.isInteger(source) && ((source >= 0 && source < core.size) || source === ANY_SOURCE || source === PROC_NULL)) return;
  comm.fail(call, ErrorClass.ERR_RANK, `source ${show(source)} is out of range for a communicator of size ${core.size} ` +
    `(expected 0..${core.size - 1}, MPI.ANY_SOURCE or MPI.PROC_NULL)`);
}

export function checkTag(comm: Comm, call: string, tag: number, anyAllowed: boolean, name = 'tag'): void {
  if (Number.isInteger(tag) && ((tag >= 0 && tag <= TAG_UB_VALUE) || (anyAllowed && tag === ANY_TAG))) return;
  comm.fail(call, ErrorClass.ERR_TAG, `${name} ${show(tag)} is invalid (expected 0..${TAG_UB_VALUE}` +
    `${anyAllowed ? ' or MPI.ANY_TAG' : ''})`);
}

/** A status argument: an MPI.Status, or undefined/null for none (checked before anything happens). */
export function checkStatus(comm: Comm, call: string, status: unknown): void {
  const bad = statusProblem(status);
  if (bad !== null) comm.fail(call, ErrorClass.ERR_ARG, bad);
}

/** Sendrecv's tags and status, under their own names, before either half starts. */
export function checkSendrecv(comm: Comm, call: string, sendtag: number, recvtag: number, status: unknown): void {
  checkTag(comm, call, sendtag, false, 'sendtag');
  checkTag(comm, call, recvtag, true, 'recvtag');
  checkStatus(comm, call, status);
}

/** Sends decode with 'pack', receives with 'unpack' (derived datatypes, buffer.ts). */
function decode(comm: Comm, call: string, buf: unknown, spec: BufferSpec, what: string, nonContiguous: NonContiguous): Uint8Array {
  if (!decodeBuffer(buf, spec, nonContiguous)) comm.fail(call, spec.errorClass, `${what}: ${spec.error}`);
  return spec.bytes;
}

/** A persistent send's arguments, checked at creation, as MPI reports errors there. */
export function checkSendArgs(comm: Comm, call: string, buf: unknown, dest: number, tag: number, bufName = 'buf',
                              tagName = 'tag'): void {
  const core = comm.coreFor(call);
  checkDest(comm, call, core, dest);
  checkTag(comm, call, tag, false, tagName);
  decode(comm, call, buf, scratchSend, bufName, 'direct');
}

/** A persistent receive's arguments, checked at creation (also Isendrecv's, named as its parameters). */
export function checkRecvArgs(comm: Comm, call: string, buf: unknown, source: number, tag: number, bufName = 'buf',
                              tagName = 'tag'): void {
  const core = comm.coreFor(call);
  checkSource(comm, call, core, source);
  checkTag(comm, call, tag, true, tagName);
  decode(comm, call, buf, scratchRecv, bufName, 'direct');
}

// ------------------------------------------------------ starting and completing

/** Starts a send; null for MPI.PROC_NULL (nothing to do) and for a buffered send (complete at once). */
export function startSend(comm: Comm, call: string, buf: unknown, dest: number, tag: number, mode: number,
                          what = 'buf'): CoreRequest | null {
  const core = comm.coreFor(call);
  checkDest(comm, call, core, dest);
  checkTag(comm, call, tag, false);
  let bytes = decode(comm, call, buf, scratchSend, what, mode === MODE_BUFFERED ? 'pack' : SEND_NONCONTIGUOUS);
  if (dest === PROC_NULL) return null;
  const world = runtime.requireRunning(call);
  if (mode === MODE_BUFFERED) {
    const buffer = bufferFor(comm);
    try {
      bytes = buffer.reserve(bytes);
    } catch (e) {
      comm.fail(call, (e as MPIException).error_class, (e as MPIException).message);
    }
    const r = world.engine.isend(bytes, core.worldRanks[dest]!, core.ctx, core.rank, tag, MODE_STANDARD);
    buffer.track(r, bytes.length);
    return null;
  }
  const peer = core.worldRanks[dest]!;
  if (mode === MODE_STANDARD && scratchSend.packed === null) return world.engine.isendStandard(bytes, peer, core.ctx, core.rank, tag);
  return world.engine.isend(bytes, peer, core.ctx, core.rank, tag, mode, scratchSend.packed);
}

/** Posts a receive; null for MPI.PROC_NULL. */
export function startRecv(comm: Comm, call: string, buf: unknown, source: number, tag: number, what = 'buf'): CoreRequest | null {
  const core = comm.coreFor(call);
  checkSource(comm, call, core, source);
  checkTag(comm, call, tag, true);
  const bytes = decode(comm, call, buf, scratchRecv, what, RECV_NONCONTIGUOUS);
  if (source === PROC_NULL) return null;
  const r = runtime.requireRunning(call).engine.irecv(bytes, core.ctx, source, tag, scratchRecv.packed);
  expectUnpack(r, scratchRecv);
  return r;
}

/** Receives the message `message` took off the queue (Message.Recv, Message.Irecv); null for MPI.PROC_NULL's. */
export function startMatched(comm: Comm, message: Message, buf: unknown, call: string): CoreRequest | null {
  const name = `Message.${call}`;
  comm.coreFor(name);
  const bytes = decode(comm, name, buf, scratchRecv, 'buf', RECV_NONCONTIGUOUS);
  const entry = message.take(call);
  if (entry === null) return null;
  const r = runtime.requireRunning(name).engine.irecvMatched(bytes, entry, scratchRecv.packed);
  expectUnpack(r, scratchRecv);
  return r;
}

/** Waits for a send and frees it. */
export function completeSend(r: CoreRequest | null): void {
  if (r === null) return;
  const world = runtime.requireRunning('send');
  world.progress.wait(r);
  world.engine.free(r);
}

/** Waits for a receive, fills status, unpacks, frees it; a truncated message fails the call with MPI.ERR_TRUNCATE. */
export function completeRecv(comm: Comm, call: string, r: CoreRequest | null, status: Status | undefined): void {
  if (r === null) {
    if (status) fillEmpty(status);
    return;
  }
  const world = runtime.requireRunning(call);
  world.progress.wait(r);
  if (status) fillStatus(status, r);
  finishUnpack(r);
  const truncation = r.truncated ? truncationMessage(r) : null;
  world.engine.free(r);
  if (truncation !== null) comm.fail(call, ErrorClass.ERR_TRUNCATE, truncation);
}

/** Sendrecv_replace: the buffer's content goes out as a copy, and the received message replaces it. */
export function sendrecvReplace(comm: Comm, buf: unknown, dest: number, sendtag: number, source: number, recvtag: number,
                                status: Status | undefined): void {
  const call = 'Sendrecv_replace';
  comm.coreFor(call);
  checkSendrecv(comm, call, sendtag, recvtag, status);
  const copy = decode(comm, call, buf, scratchSend, 'buf', 'pack').slice();
  // A non-contiguous type decodes to packed bytes already: they go as they are.
  const spec = scratchSend.datatype.contiguous ? [copy, scratchSend.count, scratchSend.datatype] : copy;
  const r = startRecv(comm, call, buf, source, recvtag);
  const s = startSend(comm, call, spec, dest, sendtag, MODE_STANDARD);
  completeSend(s);
  completeRecv(comm, call, r, status);
}

// -------------------------------------------------------------------- probes

function fillProbeStatus(status: Status, u: Unexpected): void {
  status.source = u.src;
  status.tag = u.tag;
  status.count = u.len;
  status.error = 0;
  status.cancelled = false;
}

/**
 * Probe (blocking: until a message matches) and Iprobe (one progress step at most): whether a
 * matching message can be received, its envelope in status. MPI.PROC_NULL matches at once, empty.
 */
export function probe(comm: Comm, call: string, source: number, tag: number, status: Status | undefined, blocking: boolean): boolean {
  const core = comm.coreFor(call);
  checkSource(comm, call, core, source);
  checkTag(comm, call, tag, true);
  checkStatus(comm, call, status);
  if (source === PROC_NULL) {
    if (status) fillEmpty(status);
    return true;
  }
  const world = runtime.requireRunning(call);
  // Blocking: progress until a message matches; non-blocking: one look, one progress step, one more look.
  let u = world.engine.probe(core.ctx, source, tag);
  while (u === null) {
    if (blocking) world.progress.step();
    else world.engine.progress();
    u = world.engine.probe(core.ctx, source, tag);
    if (!blocking) break;
  }
  if (u === null) return false;
  if (status) fillProbeStatus(status, u);
  return true;
}

/**
 * Mprobe (blocking) and Improbe (one progress step at most): takes a matching message off the
 * queue for Message.Recv; null when Improbe finds none. MPI.PROC_NULL gives MPI.MESSAGE_NO_PROC.
 */
export function mprobe(comm: Comm, call: string, source: number, tag: number, status: Status | undefined,
                       blocking: boolean): Message | null {
  const core = comm.coreFor(call);
  checkSource(comm, call, core, source);
  checkTag(comm, call, tag, true);
  checkStatus(comm, call, status);
  if (source === PROC_NULL) {
    if (status) fillEmpty(status);
    return new Message(null, comm, true);
  }
  const world = runtime.requireRunning(call);
  let u = world.engine.mprobe(core.ctx, source, tag);
  while (u === null) {
    if (blocking) world.progress.step();
    else world.engine.progress();
    u = world.engine.mprobe(core.ctx, source, tag);
    if (!blocking) break;
  }
  if (u === null) return null;
  if (status) fillProbeStatus(status, u);
  return new Message(u, comm);
}
