import { RNDV_DESC_WORDS, type PackedData } from './device.js';

/** What a request does. */
export const KIND_SEND = 1;
export const KIND_RECV = 2;
/**
 * A request the layer above completes itself (generalized requests, Isendrecv's pair, the
 * collectives' schedules, collective file accesses): no packet refers to it.
 */
export const KIND_GREQ = 3;

/** Send modes. */
export const MODE_STANDARD = 0;
export const MODE_SYNC = 1;
export const MODE_READY = 2;
export const MODE_BUFFERED = 3;

/** Where a request is in its life; a completed request keeps its status until freed. */
export const STATE_FREE = 0;
export const STATE_ACTIVE = 1;
export const STATE_DONE = 2;

/** Send progress flags: a send is done when every flag it needs is set. */
export const SEND_DATA_GONE = 1;
export const SEND_ACKED = 2;
export const SEND_CANCEL_ANSWERED = 4;

/** Told when a request completes (persistent and buffered sends, async waiters). */
export interface CompletionListener {
  requestDone(r: Request): void;
}

export const ANY_SOURCE = -2;
export const ANY_TAG = -1;
export const PROC_NULL = -1;

/**
 * A point-to-point request. Objects are pooled (RequestPool) and identified across processes
 * by `id`, their index in the pool; every field is set in the constructor so the shape never
 * changes, and the match queues link requests through `next`/`prev` without allocating.
 */
export class Request {
  kind = 0;
  state = STATE_FREE;
  mode = MODE_STANDARD;
  /** Matching: context id, rank in the communicator (or ANY_SOURCE), tag (or ANY_TAG). */
  ctx = 0;
  rank = 0;
  tag = 0;
  /** World rank of the peer (sends: destination; receives: set when matched). */
  peer = -1;
  /** The user's bytes: what to send, or where to receive (contiguous data). */
  buf: Uint8Array = EMPTY;
  /** Non-contiguous data instead of `buf`: the user's memory seen as its packed stream. */
  packed: PackedData | null = null;
  /** Send: what the device needs alive until the data is gone (a rendezvous iovec table). */
  keep: object | null = null;
  /** Send: flags of SEND_* reached; the send is done at `sendNeeds`. */
  sendGot = 0;
  sendNeeds = 0;
  /** Receive: the sender's request id (rendezvous, sync ack), and whether data is still due. */
  peerReq = -1;
  /** Status. */
  statusSource = 0;
  statusTag = 0;
  statusCount = 0;
  statusError = 0;
  cancelled = false;
  /** Receive: more bytes arrived than the buffer holds (MPI.ERR_TRUNCATE). */
  truncated = false;
  /** Receive: the matched message's size (above statusCount when truncated), for the error message. */
  incomingBytes = 0;
  /** Receive of unknown size (object receives): `buf` is allocated when the message matches. */
  allocateOnMatch = false;
  /** The user freed the request before it completed: release it on completion. */
  userFreed = false;
  /** What a parked send still has to send (PKT_EAGER, PKT_RTS, or a control packet type). */
  pendingType = 0;
  /** Control packets parked for lack of ring room: the request ids they carry. */
  ctlSreq = 0;
  ctlRreq = 0;
  /** Rendezvous descriptor (source side written by the device; receive side copied from the RTS). */
  readonly desc = new Int32Array(RNDV_DESC_WORDS);
  readonly descBytes = new Uint8Array(this.desc.buffer);
  /** Queue links (posted queue, pending-send queue). */
  next: Request | null = null;
  prev: Request | null = null;
  /** Whoever must hear about completion (buffered send, async waiter). */
  listener: CompletionListener | null = null;

  constructor(readonly id: number) {}
}

const EMPTY = new Uint8Array(0);

/** The sender's request id in the header of a send that has none (Engine.isendStandard). */
export const NO_SENDER_REQUEST = -1;

/** A send request complete from the start, outside any pool (Engine.sendDone). */
export function completedSend(): Request {
  const r = new Request(NO_SENDER_REQUEST);
  r.kind = KIND_SEND;
  r.state = STATE_DONE;
  return r;
}

/**
 * A free list of requests; `get(id)` resolves the ids that travel in packet headers.
 * Requests are released by mpid once both the user and the protocol are done with them.
 */
export class RequestPool {
  private readonly all: Request[] = [];
  private free: Request[] = [];
  /** Counts constructions, so tests can prove that a steady message stream allocates none. */
  created = 0;

  acquire(kind: number): Request {
    let r = this.free.pop();
    if (r === undefined) {
      r = new Request(this.all.length);
      this.all.push(r);
      this.created++;
    }
    r.kind = kind;
    r.state = STATE_ACTIVE;
    r.mode = MODE_STANDARD;
    r.peer = -1;
    r.sendGot = 0;
    r.sendNeeds = 0;
    r.peerReq = -1;
    r.statusSource = 0;
    r.statusTag = 0;
    r.statusCount = 0;
    r.statusError = 0;
    r.cancelled = false;
    r.truncated = false;
    r.incomingBytes = 0;
    r.allocateOnMatch = false;
    r.userFreed = false;
    r.pendingType = 0;
    r.next = null;
    r.prev = null;
    r.listener = null;
    r.packed = null;
    r.keep = null;
    return r;
  }

  get(id: number): Request {
    return this.all[id]!;
  }

  release(r: Request): void {
    r.state = STATE_FREE;
    r.buf = EMPTY;
    r.packed = null;
    r.keep = null;
    r.listener = null;
    this.free.push(r);
  }

  get size(): number {
    return this.all.length;
  }
}
