import { copyBytes } from '../../common/copy.js';
import { TsmpiError } from '../../common/errors.js';
import { ACC, ADMIT_NO_EPOCH, ADMIT_NOW, CAS, GET, GET_ACC, OP_NONE, PUT, ranksApart, Window } from '../../osc/index.js';
import { expectUnpack } from '../buffer.js';
import { Comm, Intracomm } from '../comm.js';
import { Datatype, Datatypes } from '../datatype.js';
import {
  type AttrOwner, type CopyFn, type DeleteFn, createKeyval, deleteAllAttrs, deleteAttr, freeKeyval, getAttr, setAttr,
} from '../attributes.js';
import { Errhandler, type ErrhandlerFunction } from '../errhandler.js';
import { type Info, checkInfo, getHints, setHints } from '../info.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { Group } from '../group.js';
import { Op, Ops } from '../op.js';
import { Request } from '../request.js';
import { runtime, toMPIException } from '../runtime.js';
import type { BufferLike, BufSpec, InfoArg, TargetSpec } from '../types.js';
import { isInt32, raise, show } from '../validate.js';
import { basicOf, blocksOf, kindOf } from './element-codes.js';
import { OperationArgs } from './operation-args.js';
import { readWindowSettings, windowComm, WINDOW_HOOKS } from './window-binding.js';
import {
  ALL_MODES, LOCK_EXCLUSIVE, LOCK_SHARED, MODE_NOCHECK, MODE_NOSUCCEED, WIN_BASE, WIN_CREATE_FLAVOR, WIN_DISP_UNIT, WIN_FLAVOR_ALLOCATE,
  WIN_FLAVOR_CREATE, WIN_FLAVOR_DYNAMIC, WIN_FLAVOR_SHARED, WIN_MODEL, WIN_SIZE, WIN_UNIFIED,
} from './win-constants.js';

/**
 * MPI's one-sided communication, the API face (as comm.ts is point-to-point's): arguments
 * checked, buffers and datatypes decoded (a target datatype becomes the kind of its basic
 * elements plus its blocks, an Op its code), errors mapped to MPI error classes and handled by
 * the window's errhandler, Rget's result wrapped in a Request. Everything below is the window
 * layer, src/osc (epochs, access methods chosen per target from the devices' memory
 * capabilities, the target's agent, the lock); this file imports nothing of mpid. Beside it:
 * operation-args.ts decodes and checks each operation's arguments, window-binding.ts is what
 * osc is given (the group's collectives, settings, hooks), win-constants.ts the MPI constants.
 */

type Placement = { kind: 'create'; bytes: Uint8Array } | { kind: 'allocate' | 'shared'; size: number };
/** What an operation's result request is, to the face: the engine request the window layer returned. */
type ResultRequest = NonNullable<ReturnType<Window['operate']>>;

export class Win {
  private freed = false;
  private name = 'MPI_WIN';
  private errhandler: Errhandler = Errhandler.ERRORS_ARE_FATAL;
  /** Decodes and checks the arguments of each operation (buffers, the target triple, ops). */
  private readonly args: OperationArgs;
  /** Compare_and_swap's origin and compare operands, side by side (see there). */
  private readonly casOperands = new Uint8Array(32);
  /** Compare_and_swap's operands as issue() describes its data (reused: no record per call). */
  private readonly casData = { bytes: this.casOperands, count: 2, datatype: Datatypes.BYTE as Datatype };
  /** Byte size and displacement unit of every rank's part (the window layer's). */
  private readonly sizes: Float64Array;
  private readonly units: Float64Array;

  private constructor(
    private readonly w: Window,
    private readonly req: Intracomm,
    private readonly owner: ArrayBufferLike | ArrayBufferView,
    readonly dispUnit: number,
    readonly flavor: number,
  ) {
    this.sizes = w.sizes;
    this.units = w.units;
    this.args = new OperationArgs(this.sizes, this.units, (call, errorClass, message) => this.fail(call, errorClass, message));
  }

  /** Collective: exposes `memory` (any typed array, DataView, Buffer or ArrayBuffer) to the group of `comm`. */
  static Create(memory: BufferLike, dispUnit = 1, info: InfoArg = null, comm?: Intracomm): Win {
    const c = checkWinComm('Win.Create', comm === undefined ? runtimeComm() : comm, info);
    const bytes = bytesOf(memory);
    if (bytes === null) {
      return c.fail('Win.Create', ErrorClass.ERR_BUFFER, 'memory must be a typed array, DataView, Buffer, ArrayBuffer or SharedArrayBuffer');
    }
    return Win.make(c, 'Win.Create', { kind: 'create', bytes }, memory as ArrayBufferView, dispUnit, WIN_FLAVOR_CREATE, info);
  }

  /** Collective: allocates `size` bytes of window memory (see tomemory()). */
  static Allocate(size: number, dispUnit = 1, info: InfoArg = null, comm?: Intracomm): Win {
    const c = checkWinComm('Win.Allocate', comm === undefined ? runtimeComm() : comm, info);
    if (!Number.isSafeInteger(size) || size < 0) return c.fail('Win.Allocate', ErrorClass.ERR_SIZE, `size ${show(size)} is not a byte count`);
    return Win.make(c, 'Win.Allocate', { kind: 'allocate', size }, null, dispUnit, WIN_FLAVOR_ALLOCATE, info);
  }

  /**
   * Collective: `size` bytes per rank in one segment that every rank of `comm` maps (they must
   * all share memory: MPI.ERR_RMA_SHARED otherwise); Shared_query(rank) gives any rank's part
   * for plain loads and stores.
   */
  static Allocate_shared(size: number, dispUnit = 1, info: InfoArg = null, comm?: Intracomm): Win {
    const call = 'Win.Allocate_shared';
    const c = checkWinComm(call, comm === undefined ? runtimeComm() : comm, info);
    if (!Number.isSafeInteger(size) || size < 0) return c.fail(call, ErrorClass.ERR_SIZE, `size ${show(size)} is not a byte count`);
    const apart = ranksApart(runtime.requireRunning(call), c.coreFor(call).worldRanks);
    if (apart.length > 0) {
      return c.fail(call, ErrorClass.ERR_RMA_SHARED, `world ranks ${apart.join(', ')} do not share memory with this rank ` +
        '(split the communicator with Split_type(MPI.COMM_TYPE_SHARED) first)');
    }
    return Win.make(c, call, { kind: 'shared', size }, null, dispUnit, WIN_FLAVOR_SHARED, info);
  }

  /**
   * Collective: a window without memory; each rank attaches memory with Attach, and origins
   * address it by absolute address (MPI.Get_address at the target, sent to them), disp_unit 1.
   * Operations go through the target's agent, which finds the attached region.
   */
  static Create_dynamic(info: InfoArg = null, comm?: Intracomm): Win {
    const c = checkWinComm('Win.Create_dynamic', comm === undefined ? runtimeComm() : comm, info);
    const none = new Uint8Array(0);
    return Win.make(c, 'Win.Create_dynamic', { kind: 'create', bytes: none }, none, 1, WIN_FLAVOR_DYNAMIC, info);
  }

  /** Dynamic windows: exposes `memory` (local; no other rank takes part). */
  Attach(memory: BufferLike): void {
    this.live('Attach');
    if (this.w.attached === null) this.fail('Attach', ErrorClass.ERR_RMA_FLAVOR, 'Attach needs a window from Win.Create_dynamic');
    const bytes = bytesOf(memory);
    if (bytes === null) this.fail('Attach', ErrorClass.ERR_BUFFER, 'memory must be a typed array, DataView, Buffer or ArrayBuffer');
    try {
      this.w.attached.attach(bytes, memory as object);
    } catch (e) {
      this.failWith('Attach', e);
    }
  }

  Detach(memory: BufferLike): void {
    this.live('Detach');
    try {
      // Only a dynamic window has memory attached: on another, nothing is.
      if (this.w.attached === null) throw new MPIException(ErrorClass.ERR_RMA_ATTACH, 'Win.Detach: this memory is not attached to the window');
      this.w.attached.detach(memory as object);
    } catch (e) {
      this.failWith('Detach', e);
    }
  }

  /** The window's group (two duplicates of `comm`), its memory, and the window layer below. */
  private static make(comm: Intracomm, call: string, placement: Placement, owner: ArrayBufferLike | ArrayBufferView | null,
                      dispUnit: number, flavor: number, info: InfoArg): Win {
    checkWinComm(call, comm);
    if (!isInt32(dispUnit) || dispUnit <= 0) comm.fail(call, ErrorClass.ERR_DISP, `disp_unit ${show(dispUnit)} must be a positive integer`);
    const world = runtime.requireRunning(call);
    const req = comm.Dup();
    const reply = comm.Dup();
    const group = windowComm(req, req.coreFor(call), reply, reply.coreFor(call));
    const settings = readWindowSettings();
    let w: Window;
    try {
      if (placement.kind === 'create') {
        w = Window.create(world, group, placement.bytes, dispUnit, flavor === WIN_FLAVOR_DYNAMIC, settings, WINDOW_HOOKS);
      } else if (placement.kind === 'allocate') w = Window.allocate(world, group, placement.size, dispUnit, settings, WINDOW_HOOKS);
      else w = Window.allocateShared(world, group, placement.size, dispUnit, settings, WINDOW_HOOKS);
    } catch (e) {
      // Memory that cannot be had (a size past what an array or a segment can hold) is MPI.ERR_NO_MEM.
      if (!(e instanceof RangeError)) throw e;
      req.Free();
      reply.Free();
      const size = placement.kind === 'create' ? placement.bytes.length : placement.size;
      return comm.fail(call, ErrorClass.ERR_NO_MEM, `cannot allocate window memory of size ${size} bytes: ${e.message}`);
    }
    const win = new Win(w, req, owner ?? w.memory, dispUnit, flavor);
    setHints(win, info);
    return win;
  }

  /** [memory of `rank`'s part, its disp_unit]: plain loads and stores reach it (shared windows). */
  Shared_query(rank: number): [Uint8Array, number] {
    this.live('Shared_query');
    this.checkRank('Shared_query', rank);
    const shared = this.w.shared;
    if (shared === null || this.flavor !== WIN_FLAVOR_SHARED) {
      this.fail('Shared_query', ErrorClass.ERR_RMA_FLAVOR, 'Shared_query needs a window made by Win.Allocate_shared');
    }
    const at = shared.offsets[rank]!;
    return [shared.bytes.subarray(at, at + this.sizes[rank]!), this.units[rank]!];
  }

  /** The window memory of Win.Allocate (the memory given to Win.Create otherwise). */
  tomemory(): ArrayBufferLike | ArrayBufferView {
    this.live('tomemory');
    return this.owner;
  }

  Get_group(): Group {
    this.live('Get_group');
    return this.req.Get_group();
  }

  Get_attr(keyval: number): number | ArrayBufferLike | ArrayBufferView | null {
    this.live('Get_attr');
    if (!isInt32(keyval)) this.fail('Get_attr', ErrorClass.ERR_KEYVAL, `keyval ${show(keyval)} is not an attribute key`);
    switch (keyval) {
      case WIN_BASE: return this.owner;
      case WIN_SIZE: return this.w.memory.length;
      case WIN_DISP_UNIT: return this.dispUnit;
      case WIN_CREATE_FLAVOR: return this.flavor;
      // One copy of the memory: direct access and the agent work on what the owner sees.
      case WIN_MODEL: return WIN_UNIFIED;
      default: return getAttr(this.attrOwner(), keyval) as ArrayBufferView | null;
    }
  }

  /** Stores value under a key of MPI.Win.Create_keyval (deleting the value it replaces). */
  Set_attr(keyval: number, value: unknown): void {
    this.live('Set_attr');
    setAttr(this.attrOwner(), keyval, value);
  }

  /** Removes the attribute under keyval, calling the key's delete_fn. */
  Delete_attr(keyval: number): void {
    this.live('Delete_attr');
    deleteAttr(this.attrOwner(), keyval);
  }

  /** A new attribute key for windows; Free and Delete_attr call delete_fn (windows are never copied). */
  static Create_keyval(copy_fn?: CopyFn<Win> | boolean | null, delete_fn?: DeleteFn<Win> | null): number {
    return createKeyval('Win', failStatic, copy_fn, delete_fn);
  }

  /** Frees a key (attributes already set keep it until deleted); returns MPI.KEYVAL_INVALID. */
  static Free_keyval(keyval: number): number {
    return freeKeyval('Win', failStatic, keyval);
  }

  private attrOwner(): AttrOwner {
    return { kind: 'Win', obj: this, fail: (call, errorClass, message) => this.fail(call, errorClass, message) };
  }

  Get_name(): string {
    return this.name;
  }

  Set_name(name: string): void {
    this.live('Set_name');
    if (typeof name !== 'string') this.fail('Set_name', ErrorClass.ERR_ARG, `name must be a string, got ${show(name)}`);
    this.name = name;
  }

  /** Sets the window's hints (tsmpi reads none yet; Get_info returns them). */
  Set_info(info: InfoArg): void {
    this.live('Set_info');
    const bad = checkInfo(info);
    if (bad !== null) this.fail('Set_info', ErrorClass.ERR_INFO, bad);
    setHints(this, info);
  }

  /** A new MPI.Info with the window's hints. */
  Get_info(): Info {
    this.live('Get_info');
    return getHints(this);
  }

  Set_errhandler(handler: Errhandler): void {
    this.live('Set_errhandler');
    const refusal = Errhandler.refusal(handler, 'window');
    if (refusal !== null) this.fail('Set_errhandler', ErrorClass.ERR_ARG, refusal);
    this.errhandler = handler;
  }

  Get_errhandler(): Errhandler {
    return this.errhandler;
  }

  /** A handler for windows that calls `fn(win, errorcode)`; the failing call then throws. */
  static Create_errhandler(fn: ErrhandlerFunction<Win>): Errhandler {
    return Errhandler.user('window', 'Win.Create_errhandler', fn);
  }

  /** Runs this window's handler for `errorcode` (a class or a code of MPI.Add_error_code). */
  Call_errhandler(errorcode: number): void {
    this.live('Call_errhandler');
    this.errhandler.call(this, `${this.name}.Call_errhandler`, errorcode, this.w.rank);
  }

  /** @internal Counters of the remote-put and gathered methods and of the lock's migrations (tests, benchmarks). */
  get remotePut(): { readonly gets: number; readonly written: number } {
    return this.w.remotePut;
  }

  /** @internal */
  get gathered(): { readonly operations: number; readonly messages: number; readonly merged: number } {
    return this.w.gathered;
  }

  /** @internal */
  get lockMigrations(): number {
    return this.w.lockMigrations;
  }

  /** @internal The access method the window layer chose for `rank` (src/osc/select.ts codes). */
  methodOf(rank: number): { readonly access: number; readonly updates: number } {
    return this.w.methodOf(rank);
  }

  // ---------------------------------------------------------------- operations

  Put(origin: BufSpec, targetRank: number, target?: TargetSpec | null): void {
    this.issue('Put', PUT, origin, null, targetRank, target, null, null);
  }

  Get(origin: BufSpec, targetRank: number, target?: TargetSpec | null): void {
    this.issue('Get', GET, null, origin, targetRank, target, null, null);
  }

  Accumulate(origin: BufSpec, targetRank: number, target: TargetSpec | null | undefined = undefined, op: Op = Ops.SUM): void {
    this.issue('Accumulate', ACC, origin, null, targetRank, target, op, null);
  }

  Get_accumulate(origin: BufSpec | null, result: BufSpec, targetRank: number, target: TargetSpec | null | undefined = undefined,
                 op: Op = Ops.SUM): void {
    this.issue('Get_accumulate', GET_ACC, op === Ops.NO_OP ? null : origin, result, targetRank, target, op, null);
  }

  Fetch_and_op(origin: BufSpec | null, result: BufSpec, targetRank: number, targetDisp = 0, op: Op = Ops.SUM): void {
    const dt = this.args.decode('Fetch_and_op', result, 1).datatype;
    // The target as its displacement (count 1 and the result's type follow): no triple per call.
    this.issue('Fetch_and_op', GET_ACC, op === Ops.NO_OP ? null : origin, result, targetRank,
      typeof targetDisp === 'number' ? targetDisp : [targetDisp, 1, dt], op, 1);
  }

  Compare_and_swap(origin: BufSpec, compare: BufSpec, result: BufSpec, targetRank: number, targetDisp = 0): void {
    const dt = this.args.decode('Compare_and_swap', result, 1).datatype;
    const size = dt.size;
    // Origin then compare, in a scratch of the window's: every path copies the operands before
    // the call returns (the direct update, the agent's message, the device atomic, a deferred
    // operation's copy), so one buffer serves every call. (A predefined element is at most 16 bytes.)
    // The paths read 2 x size bytes from its start, so the whole scratch goes (no view per call).
    const both = size <= 16 ? this.casOperands : new Uint8Array(2 * size);
    const o = this.args.decode('Compare_and_swap', origin, 0).bytes;
    if (o.length < size) this.args.shortBuffer('Compare_and_swap', 'origin', o, size);
    copyBytes(o, 0, both, 0, size);
    const c = this.args.decode('Compare_and_swap', compare, 2).bytes;
    if (c.length < size) this.args.shortBuffer('Compare_and_swap', 'compare', c, size);
    copyBytes(c, 0, both, size, size);
    this.issue('Compare_and_swap', CAS, both, result, targetRank, typeof targetDisp === 'number' ? targetDisp : [targetDisp, 1, dt],
      null, 1);
  }

  /**
   * Request-based operations (only in passive-target epochs, as MPI says): the request
   * completes when the operation is complete locally: at once for Rput and Raccumulate (the
   * data were copied or applied by the call), when the data are back for Rget and
   * Rget_accumulate. Remote completion still comes from Flush or Unlock.
   */
  Rput(origin: BufSpec, targetRank: number, target?: TargetSpec | null): Request {
    this.checkRequestEpoch('Rput', targetRank);
    this.issue('Rput', PUT, origin, null, targetRank, target, null, null);
    return Request.procNull(this.req);
  }

  Rget(origin: BufSpec, targetRank: number, target?: TargetSpec | null): Request {
    this.checkRequestEpoch('Rget', targetRank);
    return this.requestFor(this.issue('Rget', GET, null, origin, targetRank, target, null, null, true));
  }

  Raccumulate(origin: BufSpec, targetRank: number, target: TargetSpec | null | undefined = undefined, op: Op = Ops.SUM): Request {
    this.checkRequestEpoch('Raccumulate', targetRank);
    this.issue('Raccumulate', ACC, origin, null, targetRank, target, op, null);
    return Request.procNull(this.req);
  }

  Rget_accumulate(origin: BufSpec | null, result: BufSpec, targetRank: number, target: TargetSpec | null | undefined = undefined,
                  op: Op = Ops.SUM): Request {
    this.checkRequestEpoch('Rget_accumulate', targetRank);
    return this.requestFor(this.issue('Rget_accumulate', GET_ACC, op === Ops.NO_OP ? null : origin, result, targetRank, target,
      op, null, true));
  }

  private checkRequestEpoch(call: string, targetRank: number): void {
    this.live(call);
    try {
      this.w.checkRequestEpoch(targetRank);
    } catch (e) {
      this.failWith(call, e);
    }
  }

  /** A user request for a result (or an already complete one); the next flush waits for it without freeing it. */
  private requestFor(core: ResultRequest | null): Request {
    if (core === null) return Request.procNull(this.req);
    const r = new Request(core, this.req);
    this.w.hold(r);
    return r;
  }

  /**
   * Issues one operation; returns the result's request when `held` is set (the caller hands it
   * to the user), null otherwise (results are then waited for at the next sync).
   */
  private issue(call: string, kind: number, origin: unknown, result: unknown, targetRank: number, target: unknown,
                op: Op | null, fixedCount: number | null, held = false): ResultRequest | null {
    // null is the internal "no op" of Put and Get: a user's accumulate must name an MPI.Op.
    if ((kind === ACC || kind === GET_ACC) && !(op instanceof Op)) this.fail(call, ErrorClass.ERR_OP, `op must be an MPI.Op, got ${show(op)}`);
    // Every message is built in the cold helpers below, so that this path stays small enough
    // for V8 to inline what it calls.
    this.live(call);
    if (origin === null && result === null) this.fail(call, ErrorClass.ERR_BUFFER, 'origin must be a buffer, got null');
    if (targetRank === -1) return null; // MPI.PROC_NULL
    if (!Number.isInteger(targetRank) || targetRank < 0 || targetRank >= this.sizes.length) this.args.badRank(call, targetRank);
    const admitted = this.w.admit(targetRank);
    if (admitted !== ADMIT_NOW) {
      if (admitted === ADMIT_NO_EPOCH) this.failWith(call, this.w.accessError(targetRank));
      this.defer(call, kind, origin, result, targetRank, target, op, fixedCount);
      return null;
    }
    let data: { bytes: Uint8Array; count: number; datatype: Datatype } | null = null;
    if (origin instanceof Uint8Array && kind === CAS) {
      data = this.casData;
      data.bytes = origin;
    } else if (origin !== null) data = this.args.decode(call, origin, 0);
    const into = result !== null ? this.args.decode(call, result, 1, kind === GET ? 'origin' : 'result') : null;
    this.args.target(call, target, into ?? data!, fixedCount);
    const tdt = this.args.datatype;
    const bytes = this.args.count * tdt.size;
    // A derived target type travels as its list of (offset, length) blocks; operations apply
    // to its basic elements, so they are described by the predefined type of that kind.
    const blocks = tdt.predefined ? null : blocksOf(tdt, this.args.count);
    const dt = tdt.predefined ? tdt : basicOf(tdt);
    if (dt === null || (kind === CAS && !tdt.predefined)) return this.args.mixedType(call, tdt);
    if (kind !== CAS && kind !== GET && data !== null && data.bytes.length < bytes) this.args.shortBuffer(call, 'origin', data.bytes, bytes);
    if (into !== null && into.bytes.length < bytes) this.args.shortBuffer(call, 'result', into.bytes, bytes);
    const offset = this.args.disp * this.units[targetRank]!;
    if (bytes > 0 && this.flavor !== WIN_FLAVOR_DYNAMIC) {
      const lo = offset + (blocks !== null ? blocks.lo : 0);
      const hi = offset + (blocks !== null ? blocks.hi : bytes);
      if (lo < 0 || hi > this.sizes[targetRank]!) this.args.outOfRange(call, targetRank, lo, hi);
    }
    const code = op !== null ? this.args.opCode(call, op, dt) : OP_NONE;
    const r = this.w.operate(kind, targetRank, offset, blocks !== null ? blocks.list : null, kindOf(dt), code, bytes / dt.size,
      bytes, data !== null ? data.bytes : null, into !== null ? into.bytes : null, held);
    if (into !== null && into.needsUnpack !== null) {
      // A non-contiguous result went to a temporary buffer: unpack it now (direct access) or when it arrives.
      if (r === null) into.datatype.unpackTo(into.bytes, 0, into.count, 0, into.bytes.length, into.needsUnpack);
      else expectUnpack(r, into);
    }
    return held ? r : null;
  }

  /**
   * Loose post/start: an operation to a target whose POSTED has not arrived is kept (its data
   * copied now, as the origin buffer may change after the call) and issued once it arrives.
   */
  private defer(call: string, kind: number, origin: unknown, result: unknown, t: number, target: unknown, op: Op | null,
                fixedCount: number | null): void {
    let copy: Uint8Array | null = null;
    let spec = target;
    if (origin !== null) {
      const data = origin instanceof Uint8Array && kind === CAS ? origin : this.args.decode(call, origin, 0).bytes;
      copy = data.slice();
      // The copy is bytes: the target triple keeps the origin's count and datatype.
      if (kind !== CAS && fixedCount === null) {
        const ref = this.args.decode(call, result ?? origin, result !== null ? 1 : 0, kind === GET ? 'origin' : undefined);
        this.args.target(call, target, ref, null);
        spec = [this.args.disp, this.args.count, this.args.datatype];
      }
    }
    this.w.defer(t, () => this.issue(call, kind, copy, result, t, spec, op, fixedCount));
  }

  // ---------------------------------------------------------------- synchronisation

  Fence(assert = 0): void {
    this.live('Fence');
    this.checkAssert('Fence', assert);
    try {
      this.w.fence((assert & MODE_NOSUCCEED) === 0);
    } catch (e) {
      this.failWith('Fence', e);
    }
  }

  Start(group: Group, assert = 0): void {
    this.live('Start');
    this.checkAssert('Start', assert);
    try {
      this.w.checkStart();
    } catch (e) {
      this.failWith('Start', e);
    }
    this.w.start(this.membersOf('Start', group), (assert & MODE_NOCHECK) !== 0);
  }

  Complete(): void {
    this.live('Complete');
    try {
      this.w.complete();
    } catch (e) {
      this.failWith('Complete', e);
    }
  }

  Post(group: Group, assert = 0): void {
    this.live('Post');
    this.checkAssert('Post', assert);
    try {
      this.w.checkPost();
    } catch (e) {
      this.failWith('Post', e);
    }
    this.w.post(this.membersOf('Post', group));
  }

  Wait(): void {
    this.live('Wait');
    try {
      this.w.wait();
    } catch (e) {
      this.failWith('Wait', e);
    }
  }

  Test(): boolean {
    this.live('Test');
    try {
      return this.w.test();
    } catch (e) {
      return this.failWith('Test', e);
    }
  }

  Lock(rank: number, lockType: number = LOCK_EXCLUSIVE, assert = 0): void {
    this.live('Lock');
    this.checkAssert('Lock', assert);
    if (lockType !== LOCK_EXCLUSIVE && lockType !== LOCK_SHARED) {
      this.fail('Lock', ErrorClass.ERR_LOCKTYPE, `lock type ${show(lockType)} is neither MPI.LOCK_EXCLUSIVE nor MPI.LOCK_SHARED`);
    }
    this.checkRank('Lock', rank);
    try {
      this.w.lock(rank, lockType, (assert & MODE_NOCHECK) !== 0);
    } catch (e) {
      this.failWith('Lock', e);
    }
  }

  Unlock(rank: number): void {
    this.live('Unlock');
    this.checkRank('Unlock', rank);
    try {
      this.w.unlock(rank);
    } catch (e) {
      this.failWith('Unlock', e);
    }
  }

  Lock_all(assert = 0): void {
    this.live('Lock_all');
    this.checkAssert('Lock_all', assert);
    try {
      this.w.lockAll((assert & MODE_NOCHECK) !== 0);
    } catch (e) {
      this.failWith('Lock_all', e);
    }
  }

  Unlock_all(): void {
    this.live('Unlock_all');
    try {
      this.w.unlockAll();
    } catch (e) {
      this.failWith('Unlock_all', e);
    }
  }

  Flush(rank: number): void {
    this.live('Flush');
    this.checkRank('Flush', rank);
    try {
      this.w.flush(rank);
    } catch (e) {
      this.failWith('Flush', e);
    }
  }

  Flush_all(): void {
    this.live('Flush_all');
    this.w.flushAll();
  }

  /** Local completion: our buffers are reusable once the gets have arrived (puts were copied at the call). */
  Flush_local(rank: number): void {
    this.live('Flush_local');
    this.checkRank('Flush_local', rank);
    try {
      this.w.flushLocal(rank);
    } catch (e) {
      this.failWith('Flush_local', e);
    }
  }

  Flush_local_all(): void {
    this.live('Flush_local_all');
    this.w.flushLocalAll();
  }

  /** The window memory is always the one copy (unified model): nothing to synchronise. */
  Sync(): void {
    this.live('Sync');
  }

  /** Collective: completes everything, then stops the agent. */
  Free(): void {
    this.live('Free');
    try {
      this.w.free();
    } catch (e) {
      this.failWith('Free', e);
    }
    this.freed = true;
    deleteAllAttrs(this);
  }

  // ---------------------------------------------------------------- checks and errors

  private live(call: string): void {
    if (this.freed) this.fail(call, ErrorClass.ERR_WIN, 'the window has been freed');
    runtime.requireRunning(`Win.${call}`);
  }

  private checkRank(call: string, rank: number): void {
    const size = this.sizes.length;
    if (!Number.isInteger(rank) || rank < 0 || rank >= size) {
      this.fail(call, ErrorClass.ERR_RANK, `rank ${show(rank)} is out of range for a window of ${size} ranks`);
    }
  }

  private checkAssert(call: string, assert: number): void {
    if (!Number.isInteger(assert) || (assert & ~ALL_MODES) !== 0) {
      this.fail(call, ErrorClass.ERR_ASSERT, `assert ${show(assert)} is not a combination of MPI.MODE_* flags`);
    }
  }

  /** The world ranks of `group`, all of them in the window's group. */
  private membersOf(call: string, group: Group): Int32Array {
    if (!(group instanceof Group)) this.fail(call, ErrorClass.ERR_GROUP, 'group must be an MPI.Group');
    const members = group.peek();
    if (members === null) return this.fail(call, ErrorClass.ERR_GROUP, 'the group has been freed');
    const mine = this.req.coreFor(`Win.${call}`).worldRanks;
    for (const w of members) {
      if (!mine.includes(w)) this.fail(call, ErrorClass.ERR_RMA_SYNC, `world rank ${w} is not in the window's group`);
    }
    return members;
  }

  private fail(call: string, errorClass: number, message: string): never {
    return this.raise(new MPIException(errorClass, `Win.${call}: ${message}`));
  }

  /** An error of the window layer (RmaSyncError, RmaAttachError, ...), as its MPI error class (runtime.ts maps them). */
  private failWith(call: string, e: unknown): never {
    if (e instanceof MPIException) return this.raise(e);
    if (!(e instanceof TsmpiError)) throw e;
    return this.raise(toMPIException(`Win.${call}`, e));
  }

  private raise(exception: MPIException): never {
    return this.errhandler.raise(this, exception, this.w.rank);
  }
}

function bytesOf(memory: unknown): Uint8Array | null {
  if (ArrayBuffer.isView(memory)) return new Uint8Array(memory.buffer, memory.byteOffset, memory.byteLength);
  if (memory instanceof ArrayBuffer || memory instanceof SharedArrayBuffer) return new Uint8Array(memory);
  return null;
}

let worldComm: Intracomm | null = null;
/** @internal mpi.ts registers COMM_WORLD, the default communicator of window creation. */
export function setDefaultComm(comm: Intracomm): void {
  worldComm = comm;
}
/**
 * The communicator and info of a window constructor: a live intracommunicator (MPI.ERR_COMM,
 * thrown: there is no handler to use yet) and an info (MPI.ERR_INFO, through comm's handler).
 */
function checkWinComm(call: string, comm: unknown, info: unknown = null): Intracomm {
  // A freed or null communicator raises here, naming the call, through its own handler.
  if (!(comm instanceof Intracomm)) {
    const what = comm instanceof Comm ? 'an intercommunicator' : show(comm);
    raise(call, ErrorClass.ERR_COMM, `comm must be an intracommunicator, got ${what}`);
  }
  comm.coreFor(call);
  const bad = checkInfo(info);
  if (bad !== null) comm.fail(call, ErrorClass.ERR_INFO, bad);
  return comm as Intracomm;
}

function runtimeComm(): Intracomm {
  return worldComm!;
}

function failStatic(call: string, errorClass: number, message: string): never {
  throw new MPIException(errorClass, `MPI.Win.${call}: ${message}`);
}
