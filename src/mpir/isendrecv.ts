import { KIND_GREQ, MODE_STANDARD, STATE_DONE, type CoreRequest } from '../mpid/index.js';
import type { CompletionListener, Engine } from '../mpid/index.js';
import { decodeBuffer, BufferSpec, finishUnpack, dropUnpack } from './buffer.js';
import { Comm } from './comm.js';
import { ANY_SOURCE, ANY_TAG } from './constants.js';
import * as p2p from './p2p.js';
import { Request } from './request.js';
import { runtime } from './runtime.js';
import type { BufSpec } from './types.js';

/**
 * Non-blocking send-receive (MPI-4 §3.10): comm.Isendrecv(sendbuf, dest, sendtag, recvbuf,
 * source, recvtag) and comm.Isendrecv_replace(buf, dest, sendtag, source, recvtag), mpi4py's
 * argument order and defaults. Both start a receive and a send at once (the receive first, as
 * Sendrecv does) and return one Request that completes when both have; its Status is the
 * receive's. Isendrecv_replace sends a copy of the buffer, taken at the call, and receives into
 * the buffer itself.
 *
 * The request stands on an engine request of kind GREQ that this module completes when the
 * engine reports the second of the two parts done (a completion listener on each: nothing
 * polls), copying the receive's status into it, so Wait/Test and their all/any/some forms
 * and await treat it as any other request.
 */

declare module './comm.js' {
  interface Comm {
    /** Non-blocking Sendrecv: one Request for both parts; its Status is the receive's. */
    Isendrecv(sendbuf: BufSpec, dest: number, sendtag?: number, recvbuf?: BufSpec, source?: number, recvtag?: number): Request;
    /** Non-blocking Sendrecv_replace: sends a copy of buf (taken now) and receives into buf. */
    Isendrecv_replace(buf: BufSpec, dest: number, sendtag?: number, source?: number, recvtag?: number): Request;
  }
}

/** Completes the pair's request when both parts are done. */
class Pair implements CompletionListener {
  private pending = 0;

  constructor(private readonly engine: Engine, readonly request: CoreRequest, readonly recv: CoreRequest | null,
              readonly send: CoreRequest | null) {
    for (const r of [recv, send]) {
      if (r === null || r.state === STATE_DONE) continue;
      this.pending++;
      r.listener = this;
    }
    if (this.pending === 0) this.finish();
  }

  requestDone(_r: CoreRequest): void {
    if (--this.pending === 0) this.finish();
  }

  private finish(): void {
    const g = this.request;
    const r = this.recv;
    if (r !== null) {
      finishUnpack(r);
      g.statusSource = r.statusSource;
      g.statusTag = r.statusTag;
      g.statusCount = r.statusCount;
      g.truncated = r.truncated;
      g.incomingBytes = r.incomingBytes;
      g.cancelled = r.cancelled;
      this.engine.free(r);
    } else {
      g.statusSource = -1;  // MPI.PROC_NULL: the empty status
      g.statusTag = ANY_TAG;
      g.statusCount = 0;
    }
    if (this.send !== null) this.engine.free(this.send);
    this.engine.complete(g);
  }
}

/** The request of an Isendrecv: Cancel asks to cancel both parts (Is_cancelled reports the receive's). */
class SendrecvRequest extends Request {
  constructor(private readonly pair: Pair, comm: Comm) {
    super(pair.request, comm);
  }

  override Cancel(): void {
    if (this.core === null) return;
    const engine = runtime.requireRunning('Request.Cancel').engine;
    for (const r of [this.pair.recv, this.pair.send]) if (r !== null && r.state !== STATE_DONE) engine.cancel(r);
  }

  override Free(): void {
    if (this.core !== null && this.pair.recv !== null && this.pair.recv.state !== STATE_DONE) dropUnpack(this.pair.recv);
    super.Free();
  }
}

function pairRequest(comm: Comm, call: string, recv: CoreRequest | null, send: CoreRequest | null): Request {
  const engine = runtime.requireRunning(call).engine;
  const g = engine.requests.acquire(KIND_GREQ);
  return new SendrecvRequest(new Pair(engine, g, recv, send), comm);
}

Comm.prototype.Isendrecv = function (this: Comm, sendbuf: BufSpec, dest: number, sendtag = 0, recvbuf?: BufSpec,
                                     source: number = ANY_SOURCE, recvtag: number = ANY_TAG): Request {
  const call = 'Isendrecv';
  // Both checked before either starts, so a bad argument leaves nothing in flight.
  p2p.checkRecvArgs(this, call, recvbuf, source, recvtag, 'recvbuf', 'recvtag');
  p2p.checkSendArgs(this, call, sendbuf, dest, sendtag, 'sendbuf', 'sendtag');
  const r = p2p.startRecv(this, call, recvbuf, source, recvtag, 'recvbuf');
  const s = p2p.startSend(this, call, sendbuf, dest, sendtag, MODE_STANDARD, 'sendbuf');
  return pairRequest(this, call, r, s);
};

Comm.prototype.Isendrecv_replace = function (this: Comm, buf: BufSpec, dest: number, sendtag = 0, source: number = ANY_SOURCE,
                                             recvtag: number = ANY_TAG): Request {
  const call = 'Isendrecv_replace';
  p2p.checkRecvArgs(this, call, buf, source, recvtag, 'buf', 'recvtag');
  p2p.checkSendArgs(this, call, buf, dest, sendtag, 'buf', 'sendtag');
  const spec = new BufferSpec();
  if (!decodeBuffer(buf, spec, 'pack')) this.fail(call, spec.errorClass, `buf: ${spec.error}`);
  const copy = spec.bytes.slice();
  // A non-contiguous type decodes to packed bytes already: they go as they are.
  const out = spec.datatype.contiguous ? [copy, spec.count, spec.datatype] : copy;
  const r = p2p.startRecv(this, call, buf, source, recvtag);
  const s = p2p.startSend(this, call, out, dest, sendtag, MODE_STANDARD);
  return pairRequest(this, call, r, s);
};
