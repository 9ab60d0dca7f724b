import { MODE_BUFFERED, MODE_READY, MODE_STANDARD, MODE_SYNC, type CoreRequest } from '../mpid/index.js';
import type { World } from '../mpid/world.js';
import { abortJob } from './abort.js';
import {
  type AttrOwner, type CopyFn, type DeleteFn, copyAttrs, createKeyval, deleteAllAttrs, deleteAttr, freeKeyval, getAttr, setAttr,
} from './attributes.js';
import { describe } from './buffer.js';
import {
  HW_RESOURCE_KEY, commGroup, compareComms, createComm, createFromGroup, createGroupComm, dupComm, freeComm, splitComm, splitTypeComm,
} from './comm-manage.js';
import {
  ANY_SOURCE, ANY_TAG, APPNUM, HOST, IO, LASTUSEDCODE, PROC_NULL, TAG_UB, TAG_UB_VALUE, UNDEFINED, UNIVERSE_SIZE, WTIME_IS_GLOBAL,
} from './constants.js';
import { ErrorClass, lastUsedErrorCode } from './error-classes.js';
import * as coll from './coll/index.js';
import { SUM, type Op } from './op.js';
import { Errhandler, type ErrhandlerFunction } from './errhandler.js';
import { INFO_NULL, Info, checkInfo, copyHints, getHints, setHints } from './info.js';
import { MPIException } from './exception.js';
import { Group as GroupClass, type Group } from './group.js';
import { derived } from './lineage.js';
import * as p2p from './p2p.js';
import { type Message, ObjectRequest, Prequest, Request } from './request.js';
import { runtime } from './runtime.js';
import { Status } from './status.js';
import type { BufSpec, BufSpecV, BufSpecW, InPlace, InfoArg, IntList, Reduced, ReduceFunction } from './types.js';

/** What a communicator is once MPI runs: its members, our rank, and its context ids. */
export interface CommCore {
  readonly rank: number;
  readonly size: number;
  /** World rank of each member, indexed by rank in this communicator. */
  readonly worldRanks: Int32Array;
  /** Context id of point-to-point traffic; internal collective traffic uses ctx + 1. */
  readonly ctx: number;
}

/**
 * A communicator, mpi4py-style. The predefined COMM_WORLD and COMM_SELF exist before Init (as
 * in mpi4py) and come to life in it. Upper-case methods move buffers, lower-case ones move any
 * JS value (serialized with node:v8).
 */
export class Comm {
  /** @internal */
  protected core: CommCore | null = null;
  private errhandler: Errhandler = Errhandler.ERRORS_ARE_FATAL;
  /** A communicator of Idup waiting for its context id: its core-to-be (live() refuses it until then). */
  private awaited: CommCore | null = null;

  /** @internal Communicators come from MPI.COMM_WORLD, MPI.COMM_SELF and the calls that make new ones. */
  constructor(private name: string, core: CommCore | null = null) {
    this.core = core;
  }

  /** @internal Binds a predefined communicator at Init; unbinds it at Finalize (core null). */
  bind(core: CommCore | null): void {
    this.core = core;
  }

  /** @internal The live state, or the error that names the call (built only when failing). */
  protected live(call: string): CommCore {
    if (runtime.phase !== 'running' || this.core === null) {
      if (runtime.phase === 'running') {
        this.fail(call, ErrorClass.ERR_COMM, this.awaited === null ? 'the communicator has been freed'
          : 'the communicator of Idup is usable once its request completes (Wait or Test on the request)');
      }
      runtime.requireRunning(`${this.name}.${call}`);
    }
    return this.core!;
  }

  /** @internal */
  protected get world(): World {
    return runtime.requireRunning(this.name);
  }

  get rank(): number { return this.live('rank').rank; }
  get size(): number { return this.live('size').size; }

  /** The calling process's rank in this communicator. */
  Get_rank(): number { return this.live('Get_rank').rank; }

  /** The number of processes in this communicator. */
  Get_size(): number { return this.live('Get_size').size; }

  Get_name(): string { return this.name; }

  Set_name(name: string): void {
    this.live('Set_name');
    if (typeof name !== 'string') this.fail('Set_name', ErrorClass.ERR_ARG, `name must be a string, got ${describe(name)}`);
    this.name = name;
  }

  Set_errhandler(handler: Errhandler): void {
    const refusal = Errhandler.refusal(handler, 'communicator');
    if (refusal !== null) this.fail('Set_errhandler', ErrorClass.ERR_ARG, refusal);
    this.errhandler = handler;
  }

  Get_errhandler(): Errhandler { return this.errhandler; }

  /** A handler for communicators that calls `fn(comm, errorcode)`; the failing call then throws. */
  static Create_errhandler(fn: ErrhandlerFunction<Comm>): Errhandler {
    return Errhandler.user('communicator', 'Comm.Create_errhandler', fn);
  }

  /** Runs this communicator's handler for `errorcode` (a class or a code of MPI.Add_error_code). */
  Call_errhandler(errorcode: number): void {
    const core = this.live('Call_errhandler');
    this.errhandler.call(this, `${this.name}.Call_errhandler`, errorcode, core.rank);
  }

  /**
   * Predefined attributes (TAG_UB, HOST, IO, WTIME_IS_GLOBAL, APPNUM, UNIVERSE_SIZE, and
   * LASTUSEDCODE on COMM_WORLD), or the value
   * set under a key of MPI.Comm.Create_keyval (null when not set). Attributes: attributes.ts.
   */
  Get_attr(keyval: number): unknown {
    const core = this.live('Get_attr');
    switch (keyval) {
      case TAG_UB: return TAG_UB_VALUE;
      case HOST: return PROC_NULL;
      case IO: return core.rank;
      case WTIME_IS_GLOBAL: return false;
      case APPNUM: return this.world.pm.appnum;
      case UNIVERSE_SIZE: return this.world.pm.universeSize;
      // An attribute of COMM_WORLD only; elsewhere it is no key.
      case LASTUSEDCODE: return core.ctx === 0 ? lastUsedErrorCode() : getAttr(this.attrOwner(), keyval);
      default: return getAttr(this.attrOwner(), keyval);
    }
  }

  /** Stores value under a key of MPI.Comm.Create_keyval (deleting the value it replaces). */
  Set_attr(keyval: number, value: unknown): void {
    this.live('Set_attr');
    setAttr(this.attrOwner(), keyval, value);
  }

  /** Removes the attribute under keyval, calling the key's delete_fn. */
  Delete_attr(keyval: number): void {
    this.live('Delete_attr');
    deleteAttr(this.attrOwner(), keyval);
  }

  private attrOwner(): AttrOwner {
    return { kind: 'Comm', obj: this, fail: (call, errorClass, message) => this.fail(call, errorClass, message) };
  }

  /** A new attribute key; Dup passes values through copy_fn, Free and Delete_attr call delete_fn. */
  static Create_keyval(copy_fn?: CopyFn<Comm> | boolean | null, delete_fn?: DeleteFn<Comm> | null): number {
    return createKeyval('Comm', failStatic, copy_fn, delete_fn);
  }

  /** Frees a key (attributes already set keep it until deleted); returns MPI.KEYVAL_INVALID. */
  static Free_keyval(keyval: number): number {
    return freeKeyval('Comm', failStatic, keyval);
  }

  /** MPI.CART, MPI.GRAPH or MPI.DIST_GRAPH for a topology communicator (topo/), else MPI.UNDEFINED. */
  Get_topology(): number {
    this.live('Get_topology');
    return UNDEFINED;
  }

  /** @internal The live core, for the constructors of topo/ and intercomm.ts. */
  coreFor(call: string): CommCore {
    return this.live(call);
  }

  /** Ends every process of the job with `errorcode` as exit status. */
  Abort(errorcode = 0): never {
    return abortJob(errorcode, `application called MPI.Abort(${this.name}, ${errorcode})`);
  }

  /**
   * @internal
   * Reports an error through this communicator's handler: throws under ERRORS_RETURN, ends the
   * job (after printing the message with the rank) under ERRORS_ARE_FATAL.
   */
  fail(call: string, errorClass: number, message: string): never {
    return this.errhandler.raise(this, new MPIException(errorClass, `${this.name}.${call}: ${message}`), this.core?.rank ?? 0);
  }

  // ----------------------------------------------------------- point-to-point
  // The work is in p2p.ts; these are the standard's names, argument order and defaults.

  /** Blocking standard-mode send. */
  Send(buf: BufSpec, dest: number, tag = 0): void {
    p2p.completeSend(p2p.startSend(this, 'Send', buf, dest, tag, MODE_STANDARD));
  }

  /** Blocking synchronous send: returns once the receive has matched. */
  Ssend(buf: BufSpec, dest: number, tag = 0): void {
    p2p.completeSend(p2p.startSend(this, 'Ssend', buf, dest, tag, MODE_SYNC));
  }

  /** Blocking buffered send: copies into the buffer of MPI.Attach_buffer and returns. */
  Bsend(buf: BufSpec, dest: number, tag = 0): void {
    p2p.startSend(this, 'Bsend', buf, dest, tag, MODE_BUFFERED);
  }

  /** Blocking ready send (the receive must already be posted; sent as a standard send). */
  Rsend(buf: BufSpec, dest: number, tag = 0): void {
    p2p.completeSend(p2p.startSend(this, 'Rsend', buf, dest, tag, MODE_READY));
  }

  /** Blocking receive. */
  Recv(buf: BufSpec, source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): void {
    if (status !== undefined) p2p.checkStatus(this, 'Recv', status);
    p2p.completeRecv(this, 'Recv', p2p.startRecv(this, 'Recv', buf, source, tag), status);
  }

  Isend(buf: BufSpec, dest: number, tag = 0): Request {
    return this.request(p2p.startSend(this, 'Isend', buf, dest, tag, MODE_STANDARD));
  }

  Issend(buf: BufSpec, dest: number, tag = 0): Request {
    return this.request(p2p.startSend(this, 'Issend', buf, dest, tag, MODE_SYNC));
  }

  Ibsend(buf: BufSpec, dest: number, tag = 0): Request {
    p2p.startSend(this, 'Ibsend', buf, dest, tag, MODE_BUFFERED);
    return Request.procNull(this);
  }

  Irsend(buf: BufSpec, dest: number, tag = 0): Request {
    return this.request(p2p.startSend(this, 'Irsend', buf, dest, tag, MODE_READY));
  }

  Irecv(buf: BufSpec, source: number = ANY_SOURCE, tag: number = ANY_TAG): Request {
    return this.request(p2p.startRecv(this, 'Irecv', buf, source, tag));
  }

  private request(core: CoreRequest | null): Request {
    return core === null ? Request.procNull(this) : new Request(core, this);
  }

  Send_init(buf: BufSpec, dest: number, tag = 0): Prequest {
    p2p.checkSendArgs(this, 'Send_init', buf, dest, tag);
    return new Prequest(this, () => p2p.startSend(this, 'Send_init', buf, dest, tag, MODE_STANDARD));
  }

  Ssend_init(buf: BufSpec, dest: number, tag = 0): Prequest {
    p2p.checkSendArgs(this, 'Ssend_init', buf, dest, tag);
    return new Prequest(this, () => p2p.startSend(this, 'Ssend_init', buf, dest, tag, MODE_SYNC));
  }

  Bsend_init(buf: BufSpec, dest: number, tag = 0): Prequest {
    p2p.checkSendArgs(this, 'Bsend_init', buf, dest, tag);
    return new Prequest(this, () => p2p.startSend(this, 'Bsend_init', buf, dest, tag, MODE_BUFFERED));
  }

  Rsend_init(buf: BufSpec, dest: number, tag = 0): Prequest {
    p2p.checkSendArgs(this, 'Rsend_init', buf, dest, tag);
    return new Prequest(this, () => p2p.startSend(this, 'Rsend_init', buf, dest, tag, MODE_READY));
  }

  Recv_init(buf: BufSpec, source: number = ANY_SOURCE, tag: number = ANY_TAG): Prequest {
    p2p.checkRecvArgs(this, 'Recv_init', buf, source, tag);
    return new Prequest(this, () => p2p.startRecv(this, 'Recv_init', buf, source, tag));
  }

  /** Sends and receives at once; the two may not overlap in memory. */
  Sendrecv(sendbuf: BufSpec, dest: number, sendtag = 0, recvbuf: BufSpec, source: number = ANY_SOURCE,
           recvtag: number = ANY_TAG, status?: Status): void {
    p2p.checkSendrecv(this, 'Sendrecv', sendtag, recvtag, status);
    const r = p2p.startRecv(this, 'Sendrecv', recvbuf, source, recvtag, 'recvbuf');
    const s = p2p.startSend(this, 'Sendrecv', sendbuf, dest, sendtag, MODE_STANDARD, 'sendbuf');
    p2p.completeSend(s);
    p2p.completeRecv(this, 'Sendrecv', r, status);
  }

  /** Sends the buffer's content and replaces it with the received message. */
  Sendrecv_replace(buf: BufSpec, dest: number, sendtag = 0, source: number = ANY_SOURCE, recvtag: number = ANY_TAG,
                   status?: Status): void {
    p2p.sendrecvReplace(this, buf, dest, sendtag, source, recvtag, status);
  }

  /** Blocks until a matching message can be received; fills status. */
  Probe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): true {
    return p2p.probe(this, 'Probe', source, tag, status, true) as true;
  }

  /** Whether a matching message can be received now; fills status if so. */
  Iprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): boolean {
    return p2p.probe(this, 'Iprobe', source, tag, status, false);
  }

  /** Blocks until a matching message arrives and takes it off the queue for Message.Recv. */
  Mprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): Message {
    return p2p.mprobe(this, 'Mprobe', source, tag, status, true)!;
  }

  /** Like Mprobe, but returns null at once when no message matches yet. */
  Improbe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): Message | null {
    return p2p.mprobe(this, 'Improbe', source, tag, status, false);
  }

  /** @internal Message.Recv */
  receiveMatched(message: Message, buf: unknown, status: Status | undefined, call: string): void {
    if (status !== undefined) p2p.checkStatus(this, `Message.${call}`, status);
    p2p.completeRecv(this, `Message.${call}`, p2p.startMatched(this, message, buf, call), status);
  }

  /** @internal Message.Irecv */
  receiveMatchedNonblocking(message: Message, buf: unknown): Request {
    return this.request(p2p.startMatched(this, message, buf, 'Irecv'));
  }

  /** @internal Message.Probe and Message.Iprobe (the errors name those calls). */
  mprobeAs(call: string, source: number, tag: number, status: Status | undefined, blocking: boolean): Message | null {
    return p2p.mprobe(this, call, source, tag, status, blocking);
  }

  /** @internal Message.irecv: the matched message's bytes, deserialized at completion. */
  receiveMatchedObject<T>(message: Message): ObjectRequest<T> {
    return new ObjectRequest<T>(p2p.startMatched(this, message, new Uint8Array(message.length), 'irecv'), this);
  }

  // ------------------------------------------------------------ object forms
  // Values travel as node:v8 structured clones (class instances arrive as plain objects). The
  // type parameter of a receive states what the program expects; nothing checks it at run
  // time, and a receive from MPI.PROC_NULL yields null.

  /** Sends any structured-clonable JS value. */
  send<T>(obj: T, dest: number, tag = 0): void {
    this.Send(coll.serializeArg(this, 'send', obj, 'obj'), dest, tag);
  }

  ssend<T>(obj: T, dest: number, tag = 0): void {
    this.Ssend(coll.serializeArg(this, 'ssend', obj, 'obj'), dest, tag);
  }

  /** A send request (yields its Status, as Isend's). */
  isend<T>(obj: T, dest: number, tag = 0): Request {
    return this.Isend(coll.serializeArg(this, 'isend', obj, 'obj'), dest, tag);
  }

  /** Receives a value sent with send/isend/ssend: `comm.recv<number[]>(0)`. */
  recv<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): T {
    if (status !== undefined) p2p.checkStatus(this, 'recv', status);
    const r = this.irecv<T>(source, tag);
    r.Wait(status);
    return r.result();
  }

  /** A request that yields the received value (await it, or wait(); or Wait then result()). */
  irecv<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): ObjectRequest<T> {
    const core = this.live('irecv');
    p2p.checkSource(this, 'irecv', core, source);
    p2p.checkTag(this, 'irecv', tag, true);
    const r = source === PROC_NULL ? null : this.world.engine.irecvAllocating(core.ctx, source, tag);
    return new ObjectRequest<T>(r, this);
  }

  /**
   * Sends sendobj and receives a value of the same type (the usual exchange with neighbours);
   * name the types when they differ: `sendrecv<string | number>(...)`.
   */
  sendrecv<T>(sendobj: T, dest: number, sendtag = 0, source: number = ANY_SOURCE, recvtag: number = ANY_TAG,
              status?: Status): T {
    const core = this.live('sendrecv');
    p2p.checkDest(this, 'sendrecv', core, dest);
    p2p.checkSource(this, 'sendrecv', core, source);
    p2p.checkSendrecv(this, 'sendrecv', sendtag, recvtag, status);
    const s = this.Isend(coll.serializeArg(this, 'sendrecv', sendobj, 'sendobj'), dest, sendtag);
    const value = this.recv<T>(source, recvtag, status);
    s.Wait();
    return value;
  }

  /** Buffered send of a value (counts against MPI.Attach_buffer as Bsend). */
  bsend<T>(obj: T, dest: number, tag = 0): void {
    this.Bsend(coll.serializeArg(this, 'bsend', obj, 'obj'), dest, tag);
  }

  ibsend<T>(obj: T, dest: number, tag = 0): Request {
    return this.Ibsend(coll.serializeArg(this, 'ibsend', obj, 'obj'), dest, tag);
  }

  issend<T>(obj: T, dest: number, tag = 0): Request {
    return this.Issend(coll.serializeArg(this, 'issend', obj, 'obj'), dest, tag);
  }

  /** Mprobe for a value: receive it with message.recv(). */
  mprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): Message {
    return this.Mprobe(source, tag, status);
  }

  improbe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): Message | null {
    return this.Improbe(source, tag, status);
  }

  probe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): true {
    return this.Probe(source, tag, status);
  }

  iprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG, status?: Status): boolean {
    return this.Iprobe(source, tag, status);
  }

  // --------------------------------------------------- synchronization (basic)

  /** Blocks until every member has entered the barrier (see TSMPI_COLL_BARRIER). */
  Barrier(): void { coll.barrier(this.coll('Barrier', true), false); }

  barrier(): void { this.Barrier(); }

  // ------------------------------------------------- communicator management

  /** The group of this communicator's members. */
  Get_group(): Group {
    return derived(commGroup(this.live('Get_group')), this);
  }

  /** Collective: a new communicator with the same members in the same order (and info's hints, if given). */
  Dup(info?: InfoArg): this {
    const core = this.live('Dup');
    this.checkInfoArg('Dup', info);
    const dup = this.twin(dupComm(this, core));
    this.inherit(dup, info);
    return dup;
  }

  /** @internal A communicator of our class and shape on `core`, with our error handler (Dup, Idup; topo/, intercomm.ts). */
  twin(core: CommCore): this {
    return this.made(core) as unknown as this;
  }

  /** @internal Idup: the communicator waits for its context id; calls on it raise until ctxAgreed. */
  awaitCtx(): void {
    this.awaited = this.core;
    this.core = null;
  }

  /** @internal Idup: the agreed context id arrives (before the request completes); the default name takes it. */
  ctxAgreed(ctx: number): void {
    this.core = { ...this.awaited!, ctx };
    this.awaited = null;
    this.name = `${this.name.slice(0, this.name.lastIndexOf('#'))}#${ctx}`;
  }

  /** Collective: Dup with the hints of info. */
  Dup_with_info(info: InfoArg): this {
    this.live('Dup_with_info');
    this.checkInfoArg('Dup_with_info', info);
    return this.Dup(info ?? INFO_NULL);
  }

  /** Sets the hints of this communicator (tsmpi reads none yet; Get_info returns them). */
  Set_info(info: InfoArg): void {
    this.live('Set_info');
    this.checkInfoArg('Set_info', info);
    setHints(this, info);
  }

  /** A new MPI.Info with the hints of this communicator. */
  Get_info(): Info {
    this.live('Get_info');
    return getHints(this);
  }

  /** @internal What a duplicate takes from its original: attributes (through copy_fn) and hints. */
  inherit(dup: Comm, info: unknown): void {
    copyAttrs(this, dup);
    copyHints(this, dup, info);
  }

  /** @internal Reports a bad info argument as MPI.ERR_INFO. */
  checkInfoArg(call: string, info: unknown): void {
    const bad = checkInfo(info);
    if (bad !== null) this.fail(call, ErrorClass.ERR_INFO, bad);
  }

  /**
   * Collective: one new communicator per color, ranked by key (ties keep the order here);
   * color MPI.UNDEFINED gets MPI.COMM_NULL.
   */
  Split(color = 0, key = 0): Intracomm {
    return this.made(splitComm(this, this.live('Split'), color, key));
  }

  /** Collective: MPI.COMM_TYPE_SHARED gives one communicator per node (the ranks sharing memory). */
  Split_type(splitType: number, key = 0, info?: InfoArg): Intracomm {
    this.checkInfoArg('Split_type', info);
    const split = splitTypeComm(this, this.live('Split_type'), splitType, key, info instanceof Info ? info : null);
    const made = this.made(split === null ? null : split.core);
    if (split !== null && split.resource !== null) {
      const hints = Info.Create();
      hints.Set(HW_RESOURCE_KEY, split.resource);
      setHints(made, hints);
    }
    return made;
  }

  /** Collective: a communicator of the members of `group` (a subgroup); others get MPI.COMM_NULL. */
  Create(group: Group): Intracomm {
    return this.made(createComm(this, this.live('Create'), group));
  }

  /** Collective over the members of `group` only; a caller outside it gets MPI.COMM_NULL. */
  Create_group(group: Group, tag = 0): Intracomm {
    return this.made(createGroupComm(this, this.live('Create_group'), group, tag));
  }

  /** Frees the communicator: later calls on it raise MPI.ERR_COMM (local: context ids are never reused). */
  Free(): void {
    freeComm(this, this.live('Free'));
    deleteAllAttrs(this);
    this.core = null;
  }

  /** MPI.IDENT (this communicator), MPI.CONGRUENT (same members, same order), MPI.SIMILAR or MPI.UNEQUAL. */
  Compare(comm: Comm): number {
    const core = this.live('Compare');
    if (!(comm instanceof Comm)) this.fail('Compare', ErrorClass.ERR_COMM, `comm must be an MPI.Comm, got ${describe(comm)}`);
    return compareComms(comm === this, core, comm.live('Compare'));
  }

  // -------------------------------------------------------------- collectives

  /** @internal The call descriptor of src/mpir/coll/; blocking calls reuse the communicator's (coll.callRecord). */
  private coll(call: string, blocking = false): coll.Call {
    return coll.callRecord(this, this.live(call), this.world, call, blocking);
  }

  /** Non-blocking barrier. */
  Ibarrier(): Request { return coll.barrier(this.coll('Ibarrier'), true)!; }
  /** Broadcasts the root's buffer to every rank. */
  Bcast(buf: BufSpec, root = 0): void { coll.bcast(this.coll('Bcast', true), buf, root, false); }
  Ibcast(buf: BufSpec, root = 0): Request { return coll.bcast(this.coll('Ibcast'), buf, root, true)!; }
  /** Gathers equal-sized blocks at the root, in rank order; recvbuf matters at the root only (null elsewhere). */
  Gather(sendbuf: BufSpec | InPlace, recvbuf: BufSpec | null, root = 0): void { coll.gather(this.coll('Gather'), sendbuf, recvbuf, root, false); }
  Igather(sendbuf: BufSpec | InPlace, recvbuf: BufSpec | null, root = 0): Request { return coll.gather(this.coll('Igather'), sendbuf, recvbuf, root, true)!; }
  Gatherv(sendbuf: BufSpec | InPlace, recvbuf: BufSpecV | null, root = 0): void { coll.gatherv(this.coll('Gatherv'), sendbuf, recvbuf, root, false); }
  Igatherv(sendbuf: BufSpec | InPlace, recvbuf: BufSpecV | null, root = 0): Request { return coll.gatherv(this.coll('Igatherv'), sendbuf, recvbuf, root, true)!; }
  /** Sends block r of the root's sendbuf to rank r; sendbuf matters at the root only (null elsewhere). */
  Scatter(sendbuf: BufSpec | null, recvbuf: BufSpec | InPlace, root = 0): void { coll.scatter(this.coll('Scatter'), sendbuf, recvbuf, root, false); }
  Iscatter(sendbuf: BufSpec | null, recvbuf: BufSpec | InPlace, root = 0): Request { return coll.scatter(this.coll('Iscatter'), sendbuf, recvbuf, root, true)!; }
  Scatterv(sendbuf: BufSpecV | null, recvbuf: BufSpec | InPlace, root = 0): void { coll.scatterv(this.coll('Scatterv'), sendbuf, recvbuf, root, false); }
  Iscatterv(sendbuf: BufSpecV | null, recvbuf: BufSpec | InPlace, root = 0): Request { return coll.scatterv(this.coll('Iscatterv'), sendbuf, recvbuf, root, true)!; }
  /** Gathers every rank's block at every rank. */
  Allgather(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): void { coll.allgather(this.coll('Allgather', true), sendbuf, recvbuf, false); }
  Iallgather(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): Request { return coll.allgather(this.coll('Iallgather'), sendbuf, recvbuf, true)!; }
  Allgatherv(sendbuf: BufSpec | InPlace, recvbuf: BufSpecV): void { coll.allgatherv(this.coll('Allgatherv'), sendbuf, recvbuf, false); }
  Iallgatherv(sendbuf: BufSpec | InPlace, recvbuf: BufSpecV): Request { return coll.allgatherv(this.coll('Iallgatherv'), sendbuf, recvbuf, true)!; }
  /** Block r of sendbuf goes to rank r; block r of recvbuf comes from rank r. */
  Alltoall(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): void { coll.alltoall(this.coll('Alltoall', true), sendbuf, recvbuf, false); }
  Ialltoall(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): Request { return coll.alltoall(this.coll('Ialltoall'), sendbuf, recvbuf, true)!; }
  Alltoallv(sendbuf: BufSpecV | InPlace, recvbuf: BufSpecV): void { coll.alltoallv(this.coll('Alltoallv'), sendbuf, recvbuf, false); }
  Ialltoallv(sendbuf: BufSpecV | InPlace, recvbuf: BufSpecV): Request { return coll.alltoallv(this.coll('Ialltoallv'), sendbuf, recvbuf, true)!; }
  Alltoallw(sendbuf: BufSpecW | InPlace, recvbuf: BufSpecW): void { coll.alltoallw(this.coll('Alltoallw'), sendbuf, recvbuf, false); }
  Ialltoallw(sendbuf: BufSpecW | InPlace, recvbuf: BufSpecW): Request { return coll.alltoallw(this.coll('Ialltoallw'), sendbuf, recvbuf, true)!; }
  /** Combines every rank's sendbuf with op; the result lands in the root's recvbuf (null elsewhere). */
  Reduce(sendbuf: BufSpec | InPlace, recvbuf: BufSpec | null, op: Op = SUM, root = 0): void { coll.reduce(this.coll('Reduce', true), sendbuf, recvbuf, op, root, false); }
  Ireduce(sendbuf: BufSpec | InPlace, recvbuf: BufSpec | null, op: Op = SUM, root = 0): Request {
    return coll.reduce(this.coll('Ireduce'), sendbuf, recvbuf, op, root, true)!;
  }
  Allreduce(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): void { coll.allreduce(this.coll('Allreduce', true), sendbuf, recvbuf, op, false); }
  Iallreduce(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): Request { return coll.allreduce(this.coll('Iallreduce'), sendbuf, recvbuf, op, true)!; }
  Reduce_scatter_block(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): void {
    coll.reduceScatterBlock(this.coll('Reduce_scatter_block'), sendbuf, recvbuf, op, false);
  }
  Ireduce_scatter_block(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): Request {
    return coll.reduceScatterBlock(this.coll('Ireduce_scatter_block'), sendbuf, recvbuf, op, true)!;
  }
  Reduce_scatter(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, recvcounts: IntList, op: Op = SUM): void {
    coll.reduceScatter(this.coll('Reduce_scatter'), sendbuf, recvbuf, recvcounts, op, false);
  }
  Ireduce_scatter(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, recvcounts: IntList, op: Op = SUM): Request {
    return coll.reduceScatter(this.coll('Ireduce_scatter'), sendbuf, recvbuf, recvcounts, op, true)!;
  }
  /** Inclusive prefix reduction over ranks 0..rank. */
  Scan(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): void { coll.scan(this.coll('Scan'), sendbuf, recvbuf, op, false); }
  Iscan(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): Request { return coll.scan(this.coll('Iscan'), sendbuf, recvbuf, op, true)!; }
  /** Exclusive prefix reduction over ranks 0..rank-1 (rank 0's recvbuf is left unchanged). */
  Exscan(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): void { coll.exscan(this.coll('Exscan'), sendbuf, recvbuf, op, false); }
  Iexscan(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): Request { return coll.exscan(this.coll('Iexscan'), sendbuf, recvbuf, op, true)!; }

  // Object forms of the collectives (node:v8 structured clones, as send and recv).

  /** The root's value, at every rank (others pass null, as usual); intercommunicators: null in the root's group. */
  bcast<T>(obj: T, root = 0): T { this.live('bcast'); coll.checkObjectArgs(this, 'bcast', undefined, root); return coll.bcastObject(this, obj, root) as T; }
  /** Every rank's value as an array at the root (null elsewhere). */
  gather<T>(obj: T, root = 0): T[] | null { this.live('gather'); coll.checkObjectArgs(this, 'gather', undefined, root); return coll.gatherObject(this, obj, root) as T[] | null; }
  /** Element r of the root's array, at rank r (others pass null); intercommunicators: null in the root's group. */
  scatter<T>(objs: readonly T[] | null, root = 0): T { this.live('scatter'); coll.checkObjectArgs(this, 'scatter', undefined, root); return coll.scatterObject(this, objs, root) as T; }
  allgather<T>(obj: T): T[] { this.live('allgather'); return coll.allgatherObject(this, obj) as T[]; }
  /** objs[r] goes to rank r; element r of the result came from rank r. */
  alltoall<T>(objs: readonly T[]): T[] { this.live('alltoall'); return coll.alltoallObject(this, objs) as T[]; }
  /** Values combined in rank order with an op or a function(a, b); the result at the root (null elsewhere). */
  reduce<T>(obj: T, op: Op | ReduceFunction<Reduced<T>> = SUM, root = 0): Reduced<T> | null {
    this.live('reduce');
    coll.checkObjectArgs(this, 'reduce', op, root);
    return coll.reduceObject(this, obj, op, root) as Reduced<T> | null;
  }
  allreduce<T>(obj: T, op: Op | ReduceFunction<Reduced<T>> = SUM): Reduced<T> {
    this.live('allreduce');
    coll.checkObjectArgs(this, 'allreduce', op, undefined);
    return coll.allreduceObject(this, obj, op) as Reduced<T>;
  }
  /** Inclusive scan of values over ranks 0..rank. */
  scan<T>(obj: T, op: Op | ReduceFunction<Reduced<T>> = SUM): Reduced<T> {
    this.live('scan');
    coll.checkObjectArgs(this, 'scan', op, undefined);
    return coll.scanObject(this, obj, op) as Reduced<T>;
  }
  /** Exclusive scan of values; null at rank 0. */
  exscan<T>(obj: T, op: Op | ReduceFunction<Reduced<T>> = SUM): Reduced<T> | null {
    this.live('exscan');
    coll.checkObjectArgs(this, 'exscan', op, undefined);
    return coll.exscanObject(this, obj, op) as Reduced<T> | null;
  }

  /** The communicator of a new core (MPI.COMM_NULL for none); it inherits our error handler. */
  private made(core: CommCore | null): Intracomm {
    if (core === null) return COMM_NULL;
    const comm = new Intracomm(`comm#${core.ctx}`, core);
    comm.errhandler = this.errhandler;
    return derived(comm, this);
  }
}

function failStatic(call: string, errorClass: number, message: string): never {
  throw new MPIException(errorClass, `MPI.Comm.${call}: ${message}`);
}

/** A communicator within one group of processes. */
export class Intracomm extends Comm {
  /**
   * MPI-4: a communicator of the processes of `group` (from a Session's process set, or any
   * group), made without a parent communicator; collective over the group's members only.
   * `stringtag` is checked as a string: it tells apart calls that threads make at once, and a
   * rank calls MPI from one thread (threads.ts), so its calls are told apart by their order.
   */
  static Create_from_group(group: Group, stringtag = 'org.mpi4py', info: InfoArg = INFO_NULL,
                           errhandler: Errhandler | null = null): Intracomm {
    const call = 'MPI.Intracomm.Create_from_group';
    const world = runtime.requireRunning(call);
    const members = group instanceof GroupClass ? group.peek() : null;
    if (members === null) {
      throw new MPIException(ErrorClass.ERR_GROUP, `${call}: group must be a live MPI.Group, got ${group instanceof GroupClass ? 'a freed group' : describe(group)}`);
    }
    if (members.indexOf(world.rank) < 0) {
      throw new MPIException(ErrorClass.ERR_GROUP, `${call}: the calling process (world rank ${world.rank}) is not a member of group`);
    }
    if (typeof stringtag !== 'string') throw new MPIException(ErrorClass.ERR_ARG, `${call}: stringtag must be a string, got ${describe(stringtag)}`);
    const badInfo = checkInfo(info);
    if (badInfo !== null) throw new MPIException(ErrorClass.ERR_INFO, `${call}: ${badInfo}`);
    const handler = errhandler ?? Errhandler.ERRORS_ARE_FATAL;
    const refusal = Errhandler.refusal(handler, 'communicator');
    if (refusal !== null) throw new MPIException(ErrorClass.ERR_ARG, `${call}: errhandler: ${refusal}`);
    const core = createFromGroup(world, members, (errorClass, message) => {
      throw new MPIException(errorClass, `${call}: ${message}`);
    });
    const comm = new Intracomm(`comm#${core.ctx}`, core);
    comm.Set_errhandler(handler);
    setHints(comm, info);
    return derived(comm, group);
  }
}

/**
 * MPI.COMM_NULL: what Split, Split_type, Create and Create_group give processes outside the new
 * communicator. Every call on it raises MPI.ERR_COMM, always thrown: it has no error handler.
 */
class NullComm extends Intracomm {
  protected override live(call: string): CommCore {
    return this.unusable(call);
  }

  override fail(call: string, errorClass: number, message: string): never {
    throw new MPIException(errorClass, `MPI_COMM_NULL.${call}: ${message}`);
  }

  override Get_name(): string { return this.unusable('Get_name'); }
  override Set_name(): void { this.unusable('Set_name'); }
  override Set_errhandler(): void { this.unusable('Set_errhandler'); }
  override Get_errhandler(): Errhandler { return this.unusable('Get_errhandler'); }

  private unusable(call: string): never {
    return this.fail(call, ErrorClass.ERR_COMM, 'MPI.COMM_NULL is the null communicator (given to processes outside ' +
      'a new communicator); it has no members and no call may use it');
  }
}

export const COMM_NULL: Intracomm = new NullComm('MPI_COMM_NULL');

export function worldCore(rank: number, size: number): CommCore {
  const worldRanks = new Int32Array(size);
  for (let r = 0; r < size; r++) worldRanks[r] = r;
  return { rank, size, worldRanks, ctx: 0 };
}

export function selfCore(worldRank: number): CommCore {
  return { rank: 0, size: 1, worldRanks: Int32Array.of(worldRank), ctx: 2 };
}

