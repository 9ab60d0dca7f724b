import { type Request as CoreRequest, MODE_STANDARD, STATE_DONE } from '../../mpid/request.js';
import { BufferSpec, decodeBuffer, expectUnpack, finishUnpack, type NonContiguous } from '../buffer.js';
import type { CommCore, Intracomm } from '../comm.js';
import { Datatype, Datatypes } from '../datatype.js';
import { Errhandler } from '../errhandler.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { Group } from '../group.js';
import { Op, Ops } from '../op.js';
import { runtime } from '../runtime.js';
import { Request } from '../request.js';
import { abortJob } from '../abort.js';
import type { World } from '../../mpid/world.js';
import { RMA_GATHER_MAX, RMA_LOCK_POLICY, RMA_METHOD, RMA_PSCW, RMA_REMOTE_PUT_MIN } from '../config.js';
import { AtomicViews } from './atomic.js';
import { LockAreas, UPDATE_AGENT, UPDATE_CPU } from './lock-area.js';
import { exposedMemoryOf } from './alloc-mem.js';
import { nodeSegmentWindow, type Part, spreadWindow, type WindowMemory } from './window-memory.js';
import { mergePuts } from './gather.js';
import type { ExposedMemory } from '../../mpid/remote-memory.js';
import { walk } from '../dtype/cursor.js';
import { addon } from '../../native/addon.js';
import type { BufferLike, BufSpec, InfoArg, TargetSpec } from '../types.js';

/**
 * One-sided communication (issue 6), SCI-MPICH's access methods (003b §3.2):
 *  - direct: the window's parts lie in memory every origin maps (window-memory.ts: a node
 *    segment, or exported SISCI memory across nodes); Put and Get are stores and loads
 *    (checked remote writes across nodes), accumulates and atomics CPU atomics or loads and
 *    stores under the part's mutex (lock-area.ts); complete when the call returns, served
 *    without the target;
 *  - emulated: every operation travels as a message on the window's own context to the
 *    target's agent (a progress hook of the engine), which applies it in arrival order (with
 *    CPU atomics on shared memory) and replies on a second context; a FLUSH answered by the
 *    target means every earlier operation of ours is applied there (messages do not overtake);
 *  - remote-put: a large Get into our exported memory is written there by the target's agent;
 *  - gathered (TSMPI_RMA_METHOD=gather): small Puts and Accumulates per target go as one
 *    message at the next synchronisation (gather.ts sorts and merges the Puts).
 *
 * Synchronisation: Fence (flush every target touched since the last sync, then a barrier: the
 * flush replies arrive before anyone enters the barrier, so no fast barrier overtakes data, the
 * double barrier's point in 003b §3.4.1), Post/Start/Complete/Wait/Test (POSTED and COMPLETE
 * messages; strict, or loose with TSMPI_RMA_PSCW=loose), Lock/Unlock (research 004's hybrid lock,
 * one-sided: lock-area.ts), Lock_all/Unlock_all, Flush*, Sync.
 */

export { LOCK_EXCLUSIVE, LOCK_SHARED } from './lock-types.js';
import { LOCK_EXCLUSIVE, LOCK_SHARED } from './lock-types.js';
export const MODE_NOCHECK = 1024;
export const MODE_NOSTORE = 2048;
export const MODE_NOPUT = 4096;
export const MODE_NOPRECEDE = 8192;
export const MODE_NOSUCCEED = 16384;
const ALL_MODES = MODE_NOCHECK | MODE_NOSTORE | MODE_NOPUT | MODE_NOPRECEDE | MODE_NOSUCCEED;
export const WIN_BASE = 0x66000001;
export const WIN_SIZE = 0x66000003;
export const WIN_DISP_UNIT = 0x66000005;
export const WIN_CREATE_FLAVOR = 0x66000007;
export const WIN_MODEL = 0x66000009;
export const WIN_FLAVOR_CREATE = 1;
export const WIN_FLAVOR_ALLOCATE = 2;
export const WIN_FLAVOR_DYNAMIC = 3;
export const WIN_FLAVOR_SHARED = 4;
export const WIN_SEPARATE = 1;
export const WIN_UNIFIED = 2;

/** Request kinds (tags on the request context). */
const PUT = 1;
const GET = 2;
const ACC = 3;
const GET_ACC = 4;
const CAS = 5;
const FLUSH = 6;
const LOCK = 7;
const UNLOCK = 8;
const COMPLETE = 9;
/** Several gathered requests in one message: per request kind, length, then its bytes (8-aligned). */
const BATCH = 10;
/** Tag of POSTED on the reply context (operation ids, the other reply tags, stay below it). */
const POSTED_TAG = 0x3fffffff;
/** id, byte offset, count, datatype, op, has-data flag, blocks of a derived target type (0: contiguous). */
const HEADER_DOUBLES = 7;
const HEADER_BYTES = HEADER_DOUBLES * 8;
/** Header double 5 of a GET: the origin's exported memory (segment id, offset) follows the header. */
const REMOTE_PUT = 2;

const DATATYPES: readonly Datatype[] = Object.values(Datatypes);
const BYTE_TYPE = DATATYPES.indexOf(Datatypes.BYTE);
/** Longest nap of a waiter on a lock (a release does not notify across processes; this bounds the miss). */
const LOCK_NAP_MS = 1;
const OPS: readonly Op[] = Object.values(Ops);
const NAP = new Int32Array(new SharedArrayBuffer(4));

/** An operation of a loose post/start epoch kept until its target posts (origin data copied). */
interface DeferredOp {
  readonly call: string;
  readonly kind: number;
  readonly origin: Uint8Array | null;
  readonly result: unknown;
  readonly target: unknown;
  readonly op: Op | null;
  readonly fixedCount: number | null;
}

/** Lock requests the agent has not granted yet (policy cpu: ranks of other nodes), in arrival order. */
interface TargetLock {
  readonly waiting: { origin: number; type: number; tag: number }[];
}

type AccessEpoch = 'none' | 'fence' | 'start' | 'lock';

export class Win {
  private freed = false;
  private errhandler: Errhandler = Errhandler.ERRORS_ARE_FATAL;
  /** Byte size and displacement unit of every rank's part. */
  private readonly sizes: Float64Array;
  private readonly units: Float64Array;
  private nextId = 0;
  /** Targets whose last operation has no reply, so a FLUSH must confirm it (at the next sync). */
  private readonly dirty = new Set<number>();
  /** Replies (gets, fetching atomics) not yet arrived, per target. */
  private readonly pendingReplies = new Map<number, CoreRequest[]>();
  private accessEpoch: AccessEpoch = 'none';
  private fenceOpen = false;
  /** Targets locked by us, with the lock type. */
  private readonly locked = new Map<number, number>();
  private lockAll = false;
  private startGroup: Int32Array | null = null;
  /**
   * Loose post/start (TSMPI_RMA_PSCW=loose): per target of the access epoch, its POSTED receive
   * while it has not arrived, and the operations kept for it until then (data copied).
   */
  private readonly loose = RMA_PSCW.read() === 'loose';
  private readonly postedWait = new Map<number, CoreRequest>();
  private readonly remotePutMin = RMA_REMOTE_PUT_MIN.read();
  /** The agent's atomic views of shared window memory, by buffer. */
  private readonly agentViews = new Map<ArrayBufferLike, AtomicViews>();
  /** One word staged for wordAccess. */
  private readonly wordBytes = new Uint8Array(8);
  private readonly word = { i32: new Int32Array(this.wordBytes.buffer), i64: new BigInt64Array(this.wordBytes.buffer) };
  /** @internal Gets served by remote-put (origin side), and remote-puts written (target side). */
  readonly remotePut = { gets: 0, written: 0 };
  private readonly deferred = new Map<number, DeferredOp[]>();
  private postGroup: Int32Array | null = null;
  private completesSeen = 0;
  private readonly lock: TargetLock = { waiting: [] };
  /** The lock areas of every part (research 004's hybrid lock, one-sided: lock-area.ts). */
  private readonly locks: LockAreas;
  private readonly memory: Uint8Array;
  private readonly shared: WindowMemory['shared'];
  /** Direct access to every part (loads, stores, CPU atomics or the device path), or null: the agent. */
  private readonly parts: Part[] | null;
  private agentRequest: CoreRequest | null = null;
  /**
   * The origin's message buffer, reused by every operation: a message is copied into the device
   * (or fully sent) before send() returns, so an operation allocates no buffer of its own.
   */
  private scratch = new Uint8Array(HEADER_BYTES + 256);
  private scratchHeader = new Float64Array(this.scratch.buffer, 0, HEADER_DOUBLES);
  private readonly specs = [new BufferSpec(), new BufferSpec(), new BufferSpec()];
  /** Dynamic windows: the memory attached, by absolute address. */
  private readonly attached: { bytes: Uint8Array; address: number; owner: object }[] = [];
  /**
   * The gather method (003b §3.2d, TSMPI_RMA_METHOD=gather): small Puts and Accumulates per
   * target, sent as one BATCH message at the next synchronisation (or before any other request
   * to that target, so the order stays). Not done: the thesis's sorting by origin address and
   * merging of neighbouring transactions.
   */
  private readonly gatherMax = RMA_METHOD.read() === 'gather' ? RMA_GATHER_MAX.read() : -1;
  private readonly batches = new Map<number, { buf: Uint8Array; len: number }>();
  /** @internal Gathered method: operations gathered, BATCH messages sent, Puts merged into a neighbour. */
  readonly gathered = { operations: 0, messages: 0, merged: 0 };
  /** Requests of Rget / Rget_accumulate handed to the user, until the next flush. */
  private readonly userRequests: Request[] = [];
  private readonly agent = { advance: () => this.serve() };

  private constructor(
    private readonly world: World,
    private readonly req: Intracomm,
    private readonly reqCore: CommCore,
    private readonly replyCore: CommCore,
    private readonly reply: Intracomm,
    private readonly wm: WindowMemory,
    private readonly owner: ArrayBufferLike | ArrayBufferView,
    readonly dispUnit: number,
    readonly flavor: number,
  ) {
    this.memory = wm.bytes;
    this.shared = wm.shared;
    this.parts = RMA_METHOD.read() === 'auto' ? wm.parts : null;
    this.locks = new LockAreas(wm.areas, reqCore.rank, reqCore.size, RMA_LOCK_POLICY.read(), () => this.idle());
    this.sizes = new Float64Array(reqCore.size);
    this.units = new Float64Array(reqCore.size);
    const mine = Float64Array.of(this.memory.length, dispUnit);
    const all = new Float64Array(2 * reqCore.size);
    req.Allgather(mine, all);
    for (let r = 0; r < reqCore.size; r++) {
      this.sizes[r] = all[2 * r]!;
      this.units[r] = all[2 * r + 1]!;
    }
    this.postAgentReceive();
    world.engine.addProgressHook(this.agent);
  }

  /** Collective: exposes `memory` (any typed array, DataView, Buffer or ArrayBuffer) to the group of `comm`. */
  static Create(memory: BufferLike, dispUnit = 1, _info: InfoArg = null, comm?: Intracomm): Win {
    const c = comm ?? runtimeComm();
    const bytes = bytesOf(memory);
    if (bytes === null) {
      return c.fail('Win.Create', ErrorClass.ERR_BUFFER, 'memory must be a typed array, DataView, Buffer, ArrayBuffer or SharedArrayBuffer');
    }
    return Win.make(c, 'Win.Create', bytes, memory as ArrayBufferView, dispUnit, WIN_FLAVOR_CREATE);
  }

  /** Collective: allocates `size` bytes of window memory (see tomemory()). */
  static Allocate(size: number, dispUnit = 1, _info: InfoArg = null, comm?: Intracomm): Win {
    const c = comm ?? runtimeComm();
    if (!Number.isSafeInteger(size) || size < 0) return c.fail('Win.Allocate', ErrorClass.ERR_SIZE, `size ${size} is not a byte count`);
    // Memory the devices expose: one node segment when every rank of the window maps it (then Put
    // and Get go by direct stores and loads), process memory otherwise.
    const world = runtime.requireRunning('Win.Allocate');
    const onNode = Array.from(c.coreFor('Win.Allocate').worldRanks).every((w) => world.onSameNode(w));
    if (onNode) return Win.make(c, 'Win.Allocate', null, null, dispUnit, WIN_FLAVOR_ALLOCATE, size);
    // Across SCI nodes: memory exported for remote loads and stores (direct access, 003b §3.2a).
    const exposed = RMA_METHOD.read() === 'auto' ? world.exposeMemory(Math.max(size, 1)) : null;
    const memory = exposed !== null ? exposed.bytes.subarray(0, size) : new Uint8Array(new SharedArrayBuffer(size));
    return Win.make(c, 'Win.Allocate', memory, memory, dispUnit, WIN_FLAVOR_ALLOCATE, 0, exposed);
  }

  /**
   * Collective: `size` bytes per rank in one segment that every rank of `comm` maps (they must
   * all share memory: MPI.ERR_RMA_SHARED otherwise); Shared_query(rank) gives any rank's part
   * for plain loads and stores.
   */
  static Allocate_shared(size: number, dispUnit = 1, _info: InfoArg = null, comm?: Intracomm): Win {
    const c = comm ?? runtimeComm();
    const call = 'Win.Allocate_shared';
    if (!Number.isSafeInteger(size) || size < 0) return c.fail(call, ErrorClass.ERR_SIZE, `size ${size} is not a byte count`);
    const world = runtime.requireRunning(call);
    const core = c.coreFor(call);
    const apart = Array.from(core.worldRanks).filter((w) => !world.onSameNode(w));
    if (apart.length > 0) {
      return c.fail(call, ErrorClass.ERR_RMA_SHARED, `world ranks ${apart.join(', ')} do not share memory with this rank ` +
        '(split the communicator with Split_type(MPI.COMM_TYPE_SHARED) first)');
    }
    return Win.make(c, call, null, null, dispUnit, WIN_FLAVOR_SHARED, size);
  }

  /**
   * Collective: a window without memory; each rank attaches memory with Attach, and origins
   * address it by absolute address (MPI.Get_address at the target, sent to them), disp_unit 1.
   * Operations go through the target's agent, which finds the attached region.
   */
  static Create_dynamic(_info: InfoArg = null, comm?: Intracomm): Win {
    const c = comm ?? runtimeComm();
    const none = new Uint8Array(0);
    return Win.make(c, 'Win.Create_dynamic', none, none, 1, WIN_FLAVOR_DYNAMIC);
  }

  /** Dynamic windows: exposes `memory` (local; no other rank takes part). */
  Attach(memory: BufferLike): void {
    this.live('Attach');
    if (this.flavor !== WIN_FLAVOR_DYNAMIC) this.fail('Attach', ErrorClass.ERR_RMA_FLAVOR, 'Attach needs a window from Win.Create_dynamic');
    const bytes = bytesOf(memory);
    if (bytes === null) this.fail('Attach', ErrorClass.ERR_BUFFER, 'memory must be a typed array, DataView, Buffer or ArrayBuffer');
    const address = addon.addressOf(bytes);
    for (const a of this.attached) {
      if (address < a.address + a.bytes.length && a.address < address + bytes.length) {
        this.fail('Attach', ErrorClass.ERR_RMA_ATTACH, `memory at ${address} overlaps memory attached before`);
      }
    }
    this.attached.push({ bytes, address, owner: memory as object });
  }

  Detach(memory: BufferLike): void {
    this.live('Detach');
    const i = this.attached.findIndex((a) => a.owner === memory);
    if (i < 0) this.fail('Detach', ErrorClass.ERR_RMA_ATTACH, 'this memory is not attached to the window');
    this.attached.splice(i, 1);
  }

  /**
   * bytes === null: a shared window of `sharedSize` bytes per rank, in a node segment made here;
   * otherwise `bytes` is this rank's part, `exposed` the exported memory it lies in (if any).
   */
  private static make(comm: Intracomm, call: string, bytes: Uint8Array | null, owner: ArrayBufferLike | ArrayBufferView | null,
                      dispUnit: number, flavor: number, sharedSize = 0, exposed: ExposedMemory | null = null): Win {
    if (!Number.isInteger(dispUnit) || dispUnit <= 0) comm.fail(call, ErrorClass.ERR_DISP, `disp_unit ${dispUnit} must be a positive integer`);
    const world = runtime.requireRunning(call);
    const req = comm.Dup();
    const reply = comm.Dup();
    const policy = RMA_LOCK_POLICY.read();
    const core = req.coreFor(call);
    // Everything the agent needs exists before the window is made: its hook may run from the
    // first progress on, and other ranks may already send it requests.
    const wm = bytes === null ? nodeSegmentWindow(world, req, sharedSize, policy)
      : spreadWindow(world, req, core.worldRanks, bytes, exposed ?? exposedMemoryOf(bytes.buffer), policy);
    return new Win(world, req, core, reply.coreFor(call), reply, wm, owner ?? wm.bytes, dispUnit, flavor);
  }

  /** [memory of `rank`'s part, its disp_unit]: plain loads and stores reach it (shared windows). */
  Shared_query(rank: number): [Uint8Array, number] {
    this.live('Shared_query');
    this.checkRank('Shared_query', rank);
    if (this.shared === null || this.flavor !== WIN_FLAVOR_SHARED) {
      this.fail('Shared_query', ErrorClass.ERR_RMA_FLAVOR, 'Shared_query needs a window made by Win.Allocate_shared');
    }
    const at = this.shared.offsets[rank]!;
    return [this.shared.bytes.subarray(at, at + this.sizes[rank]!), this.units[rank]!];
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
    switch (keyval) {
      case WIN_BASE: return this.owner;
      case WIN_SIZE: return this.memory.length;
      case WIN_DISP_UNIT: return this.dispUnit;
      case WIN_CREATE_FLAVOR: return this.flavor;
      // One copy of the memory: direct access and the agent work on what the owner sees.
      case WIN_MODEL: return WIN_UNIFIED;
      default: return null;
    }
  }

  Set_errhandler(handler: Errhandler): void {
    this.errhandler = handler;
  }

  Get_errhandler(): Errhandler {
    return this.errhandler;
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
    const dt = this.decode('Fetch_and_op', result, 1).datatype;
    this.issue('Fetch_and_op', GET_ACC, op === Ops.NO_OP ? null : origin, result, targetRank, [targetDisp, 1, dt], op, 1);
  }

  Compare_and_swap(origin: BufSpec, compare: BufSpec, result: BufSpec, targetRank: number, targetDisp = 0): void {
    const dt = this.decode('Compare_and_swap', result, 1).datatype;
    const both = new Uint8Array(2 * dt.size);
    both.set(this.decode('Compare_and_swap', origin, 0).bytes.subarray(0, dt.size), 0);
    both.set(this.decode('Compare_and_swap', compare, 2).bytes.subarray(0, dt.size), dt.size);
    this.issue('Compare_and_swap', CAS, both, result, targetRank, [targetDisp, 1, dt], null, 1);
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
    if (targetRank !== -1 && !this.lockAll && !this.locked.has(targetRank)) {
      this.fail(call, ErrorClass.ERR_RMA_SYNC, `request-based operations need a passive-target epoch (Lock or Lock_all) ` +
        `to rank ${targetRank}`);
    }
  }

  /** A user request for a reply (or an already complete one); flush waits for it without freeing it. */
  private requestFor(core: CoreRequest | null): Request {
    if (core === null) return Request.procNull(this.req);
    const r = new Request(core, this.req);
    this.userRequests.push(r);
    return r;
  }

  /**
   * Issues one operation; returns the reply's engine request when `userRequest` is set (the
   * caller hands it to the user), null otherwise (replies are then waited for at the next sync).
   */
  private issue(call: string, kind: number, origin: unknown, result: unknown, targetRank: number, target: unknown,
                op: Op | null, fixedCount: number | null, userRequest = false): CoreRequest | null {
    this.live(call);
    if (targetRank === -1) return null; // MPI.PROC_NULL
    if (!Number.isInteger(targetRank) || targetRank < 0 || targetRank >= this.reqCore.size) {
      this.fail(call, ErrorClass.ERR_RANK, `target rank ${targetRank} is out of range for a window of ${this.reqCore.size} ranks`);
    }
    this.checkAccess(call, targetRank);
    if (this.postedWait.size > 0 && this.deferIfUnposted(call, kind, origin, result, targetRank, target, op, fixedCount)) return null;
    const data: { bytes: Uint8Array; count: number; datatype: Datatype } | null =
      origin instanceof Uint8Array && kind === CAS ? { bytes: origin, count: 2, datatype: Datatypes.BYTE }
        : origin !== null ? this.decode(call, origin, 0) : null;
    const into = result !== null ? this.decode(call, result, 1) : null;
    const ref = into ?? data!;
    const [disp, count, tdt] = this.target(call, target, ref, fixedCount);
    const bytes = count * tdt.size;
    // A derived target type travels as its list of (offset, length) blocks; operations apply
    // to its basic elements, so they are described by the predefined type of that kind.
    const blocks = tdt.predefined ? null : blocksOf(tdt, count);
    const dt = tdt.predefined ? tdt : basicOf(tdt);
    if (dt === null || (kind === CAS && !tdt.predefined)) {
      this.fail(call, ErrorClass.ERR_TYPE, `target datatype ${tdt.name} mixes basic types; one-sided operations here ` +
        'take a predefined type or one derived from a single basic type');
    }
    const elements = bytes / dt.size;
    if (kind !== CAS && data !== null && data.bytes.length < bytes && kind !== GET) {
      this.fail(call, ErrorClass.ERR_COUNT, `the origin buffer holds ${data.bytes.length} bytes, the target range ${bytes}`);
    }
    if (into !== null && into.bytes.length < bytes) {
      this.fail(call, ErrorClass.ERR_COUNT, `the result buffer holds ${into.bytes.length} bytes, the target range ${bytes}`);
    }
    const offset = disp * this.units[targetRank]!;
    const lo = offset + (blocks !== null ? blocks.lo : 0);
    const hi = offset + (blocks !== null ? blocks.hi : bytes);
    if (bytes > 0 && this.flavor !== WIN_FLAVOR_DYNAMIC && (lo < 0 || hi > this.sizes[targetRank]!)) {
      this.fail(call, ErrorClass.ERR_RMA_RANGE, `target range [${lo}, ${hi}) bytes is outside rank ${targetRank}'s ` +
        `window of ${this.sizes[targetRank]} bytes (disp ${disp} x disp_unit ${this.units[targetRank]})`);
    }
    if (op !== null) {
      if (!OPS.includes(op) || op === Ops.OP_NULL) this.fail(call, ErrorClass.ERR_OP, `${op.name}: one-sided accumulates take predefined ops only`);
      const bad = op.checkType(dt);
      if (bad !== null) this.fail(call, ErrorClass.ERR_OP, bad);
    }
    if (this.parts !== null && this.direct(targetRank, kind, offset, blocks !== null ? blocks.list : null, dt, op,
      bytes, data !== null ? data.bytes : null, into !== null ? into.bytes : null)) {
      if (into !== null) this.unpackNow(into);
      return null;
    }
    if (kind === GET && blocks === null && into!.needsUnpack === null && this.remotePutMin > 0 && bytes >= this.remotePutMin) {
      const mem = exposedMemoryOf(into!.bytes.buffer);
      if (mem !== null) return this.remotePutGet(targetRank, offset, bytes, dt, mem.id, into!.bytes.byteOffset - mem.bytes.byteOffset, userRequest);
    }
    const id = this.nextId;
    this.nextId = (this.nextId + 1) % POSTED_TAG;
    const payload = kind === PUT || kind === ACC || (kind === GET_ACC && data !== null) ? bytes : kind === CAS ? 2 * bytes : 0;
    const listBytes = blocks !== null ? blocks.list.length * 8 : 0;
    const total = HEADER_BYTES + listBytes + payload;
    if (this.scratch.length < total) {
      this.scratch = new Uint8Array(2 * total);
      this.scratchHeader = new Float64Array(this.scratch.buffer, 0, HEADER_DOUBLES);
    }
    const msg = this.scratch.subarray(0, total);
    const h = this.scratchHeader;
    h[0] = id;
    h[1] = offset;
    h[2] = elements;
    h[3] = DATATYPES.indexOf(dt);
    h[4] = op !== null ? OPS.indexOf(op) : -1;
    h[5] = data === null ? 0 : 1;
    h[6] = blocks !== null ? blocks.list.length / 2 : 0;
    if (blocks !== null) msg.set(new Uint8Array(blocks.list.buffer, 0, listBytes), HEADER_BYTES);
    if (payload > 0) msg.set(data!.bytes.subarray(0, payload), HEADER_BYTES + listBytes);
    let reply: CoreRequest | null = null;
    if (into !== null) {
      reply = this.world.engine.irecv(into.bytes.subarray(0, bytes), this.replyCore.ctx, targetRank, id);
      expectUnpack(reply, into);
      if (!userRequest) {
        let list = this.pendingReplies.get(targetRank);
        if (list === undefined) this.pendingReplies.set(targetRank, (list = []));
        list.push(reply);
      }
    }
    if ((kind === PUT || kind === ACC) && payload <= this.gatherMax && blocks === null) {
      this.gather(targetRank, kind, msg);
      this.gathered.operations++;
      this.dirty.add(targetRank);
      return null;
    }
    this.sendBatch(targetRank);
    this.send(targetRank, kind, msg);
    // A fetching operation's reply proves that the target applied it and everything we sent it
    // before (messages do not overtake): only operations without a reply need a FLUSH later.
    if (into === null) this.dirty.add(targetRank);
    else this.dirty.delete(targetRank);
    return userRequest ? reply : null;
  }

  /**
   * Remote-put access (003b §3.2c): the result lies in our exported memory, so the target's
   * agent writes the data straight into it (one checked remote write, no data message) and
   * answers with an empty reply, which completes the Get like a data reply would.
   */
  private remotePutGet(t: number, offset: number, bytes: number, dt: Datatype, segmentId: number, at: number,
                       userRequest: boolean): CoreRequest | null {
    const id = this.nextId;
    this.nextId = (this.nextId + 1) % POSTED_TAG;
    const msg = new Uint8Array(HEADER_BYTES + 16);
    const h = new Float64Array(msg.buffer, 0, HEADER_DOUBLES + 2);
    h[0] = id;
    h[1] = offset;
    h[2] = bytes / dt.size;
    h[3] = DATATYPES.indexOf(dt);
    h[4] = -1;
    h[5] = REMOTE_PUT;
    h[HEADER_DOUBLES] = segmentId;
    h[HEADER_DOUBLES + 1] = at;
    const reply = this.world.engine.irecv(new Uint8Array(0), this.replyCore.ctx, t, id);
    if (!userRequest) {
      let list = this.pendingReplies.get(t);
      if (list === undefined) this.pendingReplies.set(t, (list = []));
      list.push(reply);
    }
    this.sendBatch(t);
    this.send(t, GET, msg);
    this.dirty.delete(t);
    this.remotePut.gets++;
    return userRequest ? reply : null;
  }

  private target(call: string, target: unknown, ref: { count: number; datatype: Datatype }, fixedCount: number | null):
    [number, number, Datatype] {
    let disp = 0;
    let count = fixedCount ?? ref.count;
    let dt = ref.datatype;
    if (Array.isArray(target)) {
      disp = target[0] ?? 0;
      if (target.length > 1) count = target[1] as number;
      if (target.length > 2) dt = target[2] as Datatype;
    } else if (typeof target === 'number') disp = target;
    else if (target !== undefined && target !== null) this.fail(call, ErrorClass.ERR_ARG, 'target must be [disp, count, datatype] or a displacement');
    if (!Number.isInteger(disp)) this.fail(call, ErrorClass.ERR_DISP, `target displacement ${disp} is not an integer`);
    if (!Number.isInteger(count) || count < 0) this.fail(call, ErrorClass.ERR_COUNT, `target count ${count} is not a count`);
    if (!(dt instanceof Datatype) || dt === Datatypes.DATATYPE_NULL) this.fail(call, ErrorClass.ERR_TYPE, 'the target datatype is not a datatype');
    if (!dt.isCommitted) this.fail(call, ErrorClass.ERR_TYPE, `target datatype ${dt.name} is not committed (or was freed)`);
    return [disp, count, dt];
  }

  /**
   * Decodes into scratch spec `slot` (0 origin, 1 result, 2 compare): valid until the next call
   * with that slot. A non-contiguous origin is packed into a temporary buffer (data sent) or
   * gets one to receive into (results, unpacked when they arrive).
   */
  private decode(call: string, arg: unknown, slot: number): BufferSpec {
    const spec = this.specs[slot]!;
    const mode: NonContiguous = slot === 1 ? 'unpack' : 'pack';
    if (!decodeBuffer(arg, spec, mode)) this.fail(call, spec.errorClass, spec.error);
    return spec;
  }

  /** A non-contiguous result decoded into a temporary buffer: unpack it into the user's memory now. */
  private unpackNow(spec: BufferSpec): void {
    if (spec.needsUnpack !== null) spec.datatype.unpackTo(spec.bytes, 0, spec.count, 0, spec.bytes.length, spec.needsUnpack);
  }

  private send(targetRank: number, kind: number, msg: Uint8Array): void {
    const r = this.world.engine.isend(msg, this.reqCore.worldRanks[targetRank]!, this.reqCore.ctx, this.reqCore.rank, kind, MODE_STANDARD);
    // The message is ours (not the user's buffer): the request frees itself when done.
    this.world.progress.wait(r);
    this.world.engine.free(r);
  }

  private gather(targetRank: number, kind: number, msg: Uint8Array): void {
    let b = this.batches.get(targetRank);
    if (b === undefined) this.batches.set(targetRank, (b = { buf: new Uint8Array(4096), len: 0 }));
    const need = b.len + 16 + Math.ceil(msg.length / 8) * 8;
    if (need > b.buf.length) {
      const bigger = new Uint8Array(Math.max(need, 2 * b.buf.length));
      bigger.set(b.buf.subarray(0, b.len));
      b.buf = bigger;
    }
    const entry = new Float64Array(b.buf.buffer, b.len, 2);
    entry[0] = kind;
    entry[1] = msg.length;
    b.buf.set(msg, b.len + 16);
    b.len = need;
  }

  /** Sends what was gathered for `targetRank`, if anything, as one message. */
  private sendBatch(targetRank: number): void {
    const b = this.batches.get(targetRank);
    if (b === undefined || b.len === 0) return;
    const sorted = mergePuts(b.buf, b.len, PUT, HEADER_DOUBLES, BYTE_TYPE);
    if (sorted !== null) this.gathered.merged += sorted.merged;
    this.gathered.messages++;
    this.send(targetRank, BATCH, sorted !== null ? sorted.bytes : b.buf.subarray(0, b.len));
    b.len = 0;
  }

  private checkAccess(call: string, targetRank: number): void {
    if (this.lockAll || this.locked.has(targetRank)) return;
    if (this.accessEpoch === 'fence' && this.fenceOpen) return;
    if (this.accessEpoch === 'start' && this.startGroup!.includes(this.reqCore.worldRanks[targetRank]!)) return;
    this.fail(call, ErrorClass.ERR_RMA_SYNC, `no access epoch to rank ${targetRank} is open (call Fence, Start with a group ` +
      'holding it, Lock or Lock_all first)');
  }

  // ---------------------------------------------------------------- synchronisation

  Fence(assert = 0): void {
    this.live('Fence');
    this.checkAssert('Fence', assert);
    if (this.accessEpoch === 'start' || this.accessEpoch === 'lock' || this.lockAll) {
      this.fail('Fence', ErrorClass.ERR_RMA_SYNC, 'a Start or Lock epoch is still open; end it (Complete, Unlock) before Fence');
    }
    this.flushAll();
    this.req.Barrier();
    const open = (assert & MODE_NOSUCCEED) === 0;
    this.accessEpoch = open ? 'fence' : 'none';
    this.fenceOpen = open;
  }

  Start(group: Group, assert = 0): void {
    this.live('Start');
    this.checkAssert('Start', assert);
    if (this.accessEpoch === 'start' || this.locked.size > 0 || this.lockAll) {
      this.fail('Start', ErrorClass.ERR_RMA_SYNC, 'an access epoch is already open (Complete or Unlock it first)');
    }
    const members = this.membersOf('Start', group);
    // Strict variant: wait for every target's POSTED; loose: only post the receives.
    if ((assert & MODE_NOCHECK) === 0) {
      for (const w of members) {
        const t = this.rankOfWorld(w);
        const r = this.world.engine.irecv(new Uint8Array(0), this.replyCore.ctx, t, POSTED_TAG);
        if (this.loose) {
          this.postedWait.set(t, r);
          continue;
        }
        this.world.progress.wait(r);
        this.world.engine.free(r);
      }
    }
    this.startGroup = members;
    this.accessEpoch = 'start';
    this.fenceOpen = false;
  }

  Complete(): void {
    this.live('Complete');
    if (this.accessEpoch !== 'start') this.fail('Complete', ErrorClass.ERR_RMA_SYNC, 'Complete without a matching Start');
    for (const w of this.startGroup!) {
      const t = this.rankOfWorld(w);
      this.awaitPosted(t, true);
      this.flush(t);
      this.send(t, COMPLETE, headerOnly(0));
    }
    this.startGroup = null;
    this.accessEpoch = 'none';
  }

  Post(group: Group, assert = 0): void {
    this.live('Post');
    this.checkAssert('Post', assert);
    if (this.postGroup !== null) this.fail('Post', ErrorClass.ERR_RMA_SYNC, 'an exposure epoch is already open (Wait for it first)');
    const members = this.membersOf('Post', group);
    this.postGroup = members;
    for (const w of members) {
      const r = this.world.engine.isend(new Uint8Array(0), w, this.replyCore.ctx, this.replyCore.rank, POSTED_TAG, MODE_STANDARD);
      this.world.progress.wait(r);
      this.world.engine.free(r);
    }
  }

  Wait(): void {
    this.live('Wait');
    if (this.postGroup === null) this.fail('Wait', ErrorClass.ERR_RMA_SYNC, 'Wait without a matching Post');
    const want = this.postGroup.length;
    while (this.completesSeen < want) this.world.progress.step();
    this.completesSeen -= want;
    this.postGroup = null;
  }

  Test(): boolean {
    this.live('Test');
    if (this.postGroup === null) this.fail('Test', ErrorClass.ERR_RMA_SYNC, 'Test without a matching Post');
    this.world.engine.progress();
    if (this.completesSeen < this.postGroup.length) return false;
    this.completesSeen -= this.postGroup.length;
    this.postGroup = null;
    return true;
  }

  Lock(rank: number, lockType: number = LOCK_EXCLUSIVE, assert = 0): void {
    this.live('Lock');
    this.checkAssert('Lock', assert);
    if (lockType !== LOCK_EXCLUSIVE && lockType !== LOCK_SHARED) {
      this.fail('Lock', ErrorClass.ERR_LOCKTYPE, `lock type ${lockType} is neither MPI.LOCK_EXCLUSIVE nor MPI.LOCK_SHARED`);
    }
    this.checkRank('Lock', rank);
    if (this.locked.has(rank) || this.lockAll) this.fail('Lock', ErrorClass.ERR_RMA_SYNC, `rank ${rank} is already locked by this process`);
    if (this.accessEpoch === 'start' || (this.accessEpoch === 'fence' && this.fenceOpen && this.dirty.size > 0)) {
      this.fail('Lock', ErrorClass.ERR_RMA_SYNC, 'an active-target epoch is open (Complete it, or Fence with MPI.MODE_NOSUCCEED)');
    }
    if ((assert & MODE_NOCHECK) === 0) this.acquire(rank, lockType);
    this.locked.set(rank, lockType);
  }

  Unlock(rank: number): void {
    this.live('Unlock');
    this.checkRank('Unlock', rank);
    if (!this.locked.has(rank)) this.fail('Unlock', ErrorClass.ERR_RMA_SYNC, `rank ${rank} is not locked by this process`);
    this.flush(rank);
    this.release(rank, this.locked.get(rank)!);
    this.locked.delete(rank);
  }

  Lock_all(assert = 0): void {
    this.live('Lock_all');
    this.checkAssert('Lock_all', assert);
    if (this.lockAll || this.locked.size > 0) this.fail('Lock_all', ErrorClass.ERR_RMA_SYNC, 'a lock epoch is already open');
    if ((assert & MODE_NOCHECK) === 0) for (let r = 0; r < this.reqCore.size; r++) this.acquire(r, LOCK_SHARED);
    this.lockAll = true;
  }

  Unlock_all(): void {
    this.live('Unlock_all');
    if (!this.lockAll) this.fail('Unlock_all', ErrorClass.ERR_RMA_SYNC, 'Unlock_all without Lock_all');
    this.flushAll();
    for (let r = 0; r < this.reqCore.size; r++) this.release(r, LOCK_SHARED);
    this.lockAll = false;
  }

  Flush(rank: number): void {
    this.live('Flush');
    this.checkRank('Flush', rank);
    this.checkPassive('Flush', rank);
    this.flush(rank);
  }

  Flush_all(): void {
    this.live('Flush_all');
    this.flushAll();
  }

  /** Local completion: our buffers are reusable once the gets have arrived (puts were copied at the call). */
  Flush_local(rank: number): void {
    this.live('Flush_local');
    this.checkRank('Flush_local', rank);
    this.checkPassive('Flush_local', rank);
    this.waitReplies(rank);
  }

  Flush_local_all(): void {
    this.live('Flush_local_all');
    for (const rank of [...this.pendingReplies.keys()]) this.waitReplies(rank);
  }

  /** The window memory is always the one copy (unified model): nothing to synchronise. */
  Sync(): void {
    this.live('Sync');
  }

  /** Collective: completes everything, then stops the agent. */
  Free(): void {
    this.live('Free');
    if (this.locked.size > 0 || this.lockAll || this.accessEpoch === 'start' || this.postGroup !== null) {
      this.fail('Free', ErrorClass.ERR_RMA_SYNC, 'an epoch is still open (Unlock, Complete or Wait first)');
    }
    this.flushAll();
    this.req.Barrier();
    // Nobody touches another part any more: drop our mappings, then (all dropped) remove ours.
    this.wm.release();
    this.req.Barrier();
    this.wm.remove();
    this.world.engine.removeProgressHook(this.agent);
    if (this.agentRequest !== null) {
      this.world.engine.cancel(this.agentRequest);
      this.world.engine.free(this.agentRequest);
      this.agentRequest = null;
    }
    this.req.Free();
    this.reply.Free();
    this.freed = true;
  }

  /**
   * Takes the lock of `rank`'s part (lock-area.ts: CPU compare-exchange in cpu mode, Lamport's
   * mutex and loads and stores in device mode; nothing needs the target). Under policy cpu a
   * rank of another node asks the target's agent instead (004's two-sided path).
   */
  private acquire(rank: number, lockType: number): void {
    if (this.locks.viaAgent(rank)) this.roundTrip(rank, LOCK, lockType);
    else this.locks.acquire(rank, lockType);
  }

  private release(rank: number, lockType: number): void {
    if (this.locks.viaAgent(rank)) {
      this.send(rank, UNLOCK, headerOnly(lockType));
      return;
    }
    // The lock is the same whoever granted it; wake the target's agent if it waits for it on behalf of others.
    if (this.locks.release(rank, lockType)) this.world.wakeLocal(this.reqCore.worldRanks[rank]!);
  }

  /** One step of a wait on a lock area: progress, and a nap when nothing moved. */
  private idle(): void {
    if (this.world.engine.progress() === 0) Atomics.wait(NAP, 0, 0, LOCK_NAP_MS);
  }

  /** @internal Mode changes of our own part's lock (research 004's migrations). */
  get lockMigrations(): number {
    return this.locks.migrations;
  }

  /** Sends request `kind` (value in header double 1) to `rank`'s agent and waits for its empty reply. */
  private roundTrip(rank: number, kind: number, value: number): void {
    const id = this.nextId;
    this.nextId = (this.nextId + 1) % POSTED_TAG;
    const r = this.world.engine.irecv(new Uint8Array(0), this.replyCore.ctx, rank, id);
    const h = headerOnly(value);
    new Float64Array(h.buffer, 0, HEADER_DOUBLES)[0] = id;
    this.send(rank, kind, h);
    this.world.progress.wait(r);
    this.world.engine.free(r);
  }

  private flush(rank: number): void {
    this.sendBatch(rank);
    if (this.dirty.has(rank)) {
      this.roundTrip(rank, FLUSH, 0);
      this.dirty.delete(rank);
    }
    this.waitReplies(rank);
  }

  private flushAll(): void {
    for (const rank of [...this.dirty]) this.flush(rank);
    for (const rank of this.pendingReplies.keys()) this.waitReplies(rank);
  }

  private waitReplies(rank: number): void {
    // Requests the user holds: wait for those still active, but leave freeing to the user.
    if (this.userRequests.length > 0) {
      for (const u of this.userRequests) if (u.core !== null) this.world.progress.wait(u.core);
      this.userRequests.length = 0;
    }
    const list = this.pendingReplies.get(rank);
    if (list === undefined || list.length === 0) return;
    for (const r of list) {
      this.world.progress.wait(r);
      finishUnpack(r);
      this.world.engine.free(r);
    }
    list.length = 0;
  }

  // ---------------------------------------------------------------- the agent (target side)

  private postAgentReceive(): void {
    this.agentRequest = this.world.engine.irecvAllocating(this.reqCore.ctx, -2 /* ANY_SOURCE */, -1 /* ANY_TAG */);
  }

  /** Applies every request that has arrived, in arrival order; returns how many. */
  private serve(): number {
    let n = 0;
    while (this.agentRequest !== null && this.agentRequest.state === STATE_DONE) {
      const r = this.agentRequest;
      const origin = r.statusSource;
      const kind = r.statusTag;
      const msg = r.buf;
      this.world.engine.free(r);
      this.postAgentReceive();
      this.apply(origin, kind, msg);
      n++;
    }
    // Requests blocked on a word held by ranks of our node: look again.
    if (this.lock.waiting.length > 0) n += this.grantLocks();
    return n;
  }

  private apply(origin: number, kind: number, msg: Uint8Array): void {
    if (kind === BATCH) {
      // Gathered requests: each applied as if it had come alone, in order.
      for (let at = 0; at < msg.length;) {
        const entry = new Float64Array(msg.buffer, msg.byteOffset + at, 2);
        const len = entry[1]!;
        this.apply(origin, entry[0]!, msg.subarray(at + 16, at + 16 + len));
        at += 16 + Math.ceil(len / 8) * 8;
      }
      return;
    }
    const h = new Float64Array(msg.buffer, msg.byteOffset, HEADER_DOUBLES);
    const id = h[0]!;
    const count = h[2]!;
    const dt = DATATYPES[h[3]!]!;
    const op = h[4]! >= 0 ? OPS[h[4]!]! : null;
    const bytes = count * (dt?.size ?? 0);
    const nBlocks = h[6]!;
    let mem = this.memory;
    let offset = h[1]!;
    if (this.flavor === WIN_FLAVOR_DYNAMIC && kind <= CAS) {
      const region = this.regionAt(origin, offset, nBlocks > 0 ? this.blockSpan(msg, nBlocks) : bytes);
      mem = region.bytes;
      offset -= region.address;
    }
    if (this.parts !== null && (kind === ACC || kind === GET_ACC || kind === CAS)) {
      // Policy cpu, a rank of another node: applied like our node's direct updates (CPU atomics
      // or the mutex), so they stay atomic together.
      const list = nBlocks > 0 ? new Float64Array(msg.slice(HEADER_BYTES, HEADER_BYTES + nBlocks * 16).buffer) : null;
      const result = kind === ACC ? null : new Uint8Array(bytes);
      this.direct(this.reqCore.rank, kind, offset, list, dt, op, bytes,
        h[5] === 1 ? msg.subarray(HEADER_BYTES + nBlocks * 16) : null, result);
      if (result !== null) this.replyTo(origin, id, result);
      return;
    }
    if (nBlocks > 0) {
      // A derived target type: its blocks, then the packed data.
      const list = new Float64Array(msg.slice(HEADER_BYTES, HEADER_BYTES + nBlocks * 16).buffer);
      const data = msg.subarray(HEADER_BYTES + nBlocks * 16);
      this.applyBlocks(mem, origin, kind, id, offset, list, dt, op, h[5] === 1 ? data : null, bytes);
      return;
    }
    const data = msg.subarray(HEADER_BYTES);
    if (kind <= CAS && kind !== GET && mem.buffer instanceof SharedArrayBuffer && this.applyAtomically(origin, kind, id, mem,
      offset, bytes, count, dt, op, h[5] === 1 ? data : null)) return;
    switch (kind) {
      case PUT:
        mem.set(data.subarray(0, bytes), offset);
        return;
      case ACC:
        op!.apply(data.subarray(0, bytes), mem.subarray(offset, offset + bytes), count, dt);
        return;
      case GET:
        if (h[5] === REMOTE_PUT) {
          const where = new Float64Array(msg.buffer, msg.byteOffset + HEADER_BYTES, 2);
          const out = this.world.mapMemory(this.replyCore.worldRanks[origin]!, where[0]!, where[1]! + bytes);
          out.write(where[1]!, mem, offset, bytes);
          out.release();
          this.remotePut.written++;
          this.replyTo(origin, id, new Uint8Array(0));
          return;
        }
        // No copy: MPI forbids changing the target memory while a Get of it is in its epoch.
        this.replyTo(origin, id, mem.subarray(offset, offset + bytes));
        return;
      case GET_ACC: {
        this.replyTo(origin, id, mem.slice(offset, offset + bytes));
        if (h[5] === 1) op!.apply(data.subarray(0, bytes), mem.subarray(offset, offset + bytes), count, dt);
        return;
      }
      case CAS: {
        const old = mem.slice(offset, offset + bytes);
        this.replyTo(origin, id, old);
        const compare = data.subarray(bytes, 2 * bytes);
        let equal = true;
        for (let i = 0; i < bytes; i++) if (old[i] !== compare[i]) equal = false;
        if (equal) mem.set(data.subarray(0, bytes), offset);
        return;
      }
      case FLUSH:
        this.replyTo(origin, id, new Uint8Array(0));
        return;
      case LOCK:
        // Policy cpu: a rank of another node; granted in arrival order as the lock allows.
        this.lock.waiting.push({ origin, type: this.lockTypeOf(h), tag: id });
        this.grantLocks();
        return;
      case UNLOCK:
        this.locks.agentRelease(this.lockTypeOf(h));
        this.grantLocks();
        return;
      case COMPLETE:
        this.completesSeen++;
        return;

      default:
        abortJob(1, `tsmpi: window agent got request kind ${kind} from rank ${origin}`);
    }
  }

  /**
   * The agent's side on shared memory (a SharedArrayBuffer that other threads or processes may
   * poll or update with CPU atomics at the same time: node-shared memory re-exposed by
   * Win.Create, memory of Alloc_mem): a word-sized Put as one store, accumulates and atomics
   * with CPU atomics per element, so nobody sees an element half written (V8 copies shared
   * memory byte by byte). False when the elements do not qualify (the caller copies).
   */
  private applyAtomically(origin: number, kind: number, id: number, mem: Uint8Array, offset: number, bytes: number,
                          count: number, dt: Datatype, op: Op | null, data: Uint8Array | null): boolean {
    const at = mem.byteOffset + offset;
    let views = this.agentViews.get(mem.buffer);
    if (views === undefined) this.agentViews.set(mem.buffer, (views = new AtomicViews(mem.buffer)));
    if (kind === PUT) {
      if ((bytes !== 4 && bytes !== 8) || (at & (bytes - 1)) !== 0) return false;
      this.wordAccess(views, PUT, at, bytes, data, null, 0);
      return true;
    }
    if (!AtomicViews.directFor(dt, at)) return false;
    if (kind === ACC) {
      views.apply(op!, dt, at, count, data, null);
      return true;
    }
    const result = new Uint8Array(bytes);
    if (kind === CAS) views.compareAndSwap(dt, at, data!.subarray(0, bytes), data!.subarray(bytes, 2 * bytes), result);
    else views.apply(op!, dt, at, count, data, result);
    this.replyTo(origin, id, result);
    return true;
  }

  /** The agent's side of an operation on a derived target type. */
  private applyBlocks(mem: Uint8Array, origin: number, kind: number, id: number, offset: number, list: Float64Array, dt: Datatype,
                      op: Op | null, data: Uint8Array | null, bytes: number): void {
    let fetched: Uint8Array | null = null;
    if (kind === GET || kind === GET_ACC) {
      fetched = new Uint8Array(bytes);
      for (let b = 0, at = 0; b < list.length; b += 2) {
        fetched.set(mem.subarray(offset + list[b]!, offset + list[b]! + list[b + 1]!), at);
        at += list[b + 1]!;
      }
      this.replyTo(origin, id, fetched);
    }
    if (data === null || kind === GET) return;
    for (let b = 0, at = 0; b < list.length; b += 2) {
      const o = offset + list[b]!;
      const len = list[b + 1]!;
      if (kind === PUT) mem.set(data.subarray(at, at + len), o);
      else op!.apply(data.subarray(at, at + len), mem.subarray(o, o + len), len / dt.size, dt);
      at += len;
    }
  }

  /**
   * Direct access (003b §3.2a) to `t`'s part, complete when the call returns and served
   * without the owner: Put and Get by stores and loads (checked remote writes across SCI
   * nodes); accumulates and atomics by CPU atomics (memory shared with the owner, cpu mode) or
   * by loads and stores under the part's mutex (device mode, lock-area.ts), which keeps them
   * atomic per element among all ranks. `list`: a derived target type's (offset, length)
   * blocks. False: the update must go to the owner's agent (policy cpu, another node).
   */
  private direct(t: number, kind: number, offset: number, list: Float64Array | null, dt: Datatype, op: Op | null,
                 bytes: number, data: Uint8Array | null, into: Uint8Array | null): boolean {
    const part = this.parts![t]!;
    const at = part.base + offset;
    const n = list !== null ? list.length : 2;
    if (kind === PUT || kind === GET) {
      for (let b = 0, pos = 0; b < n; b += 2) {
        const o = at + (list !== null ? list[b]! : 0);
        const len = list !== null ? list[b + 1]! : bytes;
        // One aligned word: one load (any part: remote loads of a word are whole on SCI too) or,
        // in memory we share with the owner, one store (remote stores go through the checked
        // copy, whose word-sized copy is one store).
        if ((len === 4 || len === 8) && (o & (len - 1)) === 0 && (kind === GET || part.atomics !== null)) this.wordAccess(part.words, kind, o, len, data, into, pos);
        else if (kind === PUT) part.mem.write(o, data!, pos, len);
        else into!.set(part.mem.bytes.subarray(o, o + len), pos);
        pos += len;
      }
      return true;
    }
    let cpuCapable = part.atomics !== null && (kind !== CAS || list === null);
    for (let b = 0; cpuCapable && b < n; b += 2) cpuCapable = AtomicViews.directFor(dt, at + (list !== null ? list[b]! : 0));
    const how = this.locks.beginUpdate(t, cpuCapable);
    if (how === UPDATE_AGENT) return false;
    try {
      if (kind === CAS) {
        if (how === UPDATE_CPU) part.atomics!.compareAndSwap(dt, at, data!.subarray(0, bytes), data!.subarray(bytes, 2 * bytes), into!);
        else this.plainCompareAndSwap(part, at, bytes, data!, into!);
        return true;
      }
      for (let b = 0, pos = 0; b < n; b += 2) {
        const o = at + (list !== null ? list[b]! : 0);
        const len = list !== null ? list[b + 1]! : bytes;
        const src = data !== null ? data.subarray(pos, pos + len) : null;
        const dst = into !== null ? into.subarray(pos, pos + len) : null;
        if (how === UPDATE_CPU) part.atomics!.apply(op!, dt, o, len / dt.size, src, dst);
        else this.plainUpdate(part, o, len, dt, op!, src, dst);
        pos += len;
      }
      return true;
    } finally {
      this.locks.endUpdate(t, how);
    }
  }

  /**
   * A Put or Get of one aligned 4- or 8-byte word in memory we share with its owner, as one
   * store or load: V8 copies into and out of a SharedArrayBuffer byte by byte, so a rank
   * polling the word (a lock hand-over: MPI-3.1 §11.7 allows polling in the unified model)
   * could otherwise see it half written.
   */
  private wordAccess(atomics: { readonly i32: Int32Array; readonly i64: BigInt64Array }, kind: number, at: number, len: number, data: Uint8Array | null,
                     into: Uint8Array | null, pos: number): void {
    const w = this.word;
    if (kind === PUT) {
      this.wordBytes.set(data!.subarray(pos, pos + len));
      if (len === 4) Atomics.store(atomics.i32, at >> 2, w.i32[0]!);
      else Atomics.store(atomics.i64, at >> 3, w.i64[0]!);
    } else {
      if (len === 4) w.i32[0] = Atomics.load(atomics.i32, at >> 2);
      else w.i64[0] = Atomics.load(atomics.i64, at >> 3);
      into!.set(this.wordBytes.subarray(0, len), pos);
    }
  }

  /** A read-modify-write by loads and stores (the caller holds the part's mutex). */
  private plainUpdate(part: Part, at: number, len: number, dt: Datatype, op: Op, src: Uint8Array | null, dst: Uint8Array | null): void {
    const current = part.mem.bytes.slice(at, at + len);
    if (dst !== null) dst.set(current);
    if (src === null) return;
    op.apply(src, current, len / dt.size, dt);
    if ((len === 4 || len === 8) && (at & (len - 1)) === 0 && part.atomics !== null) this.wordAccess(part.words, PUT, at, len, current, null, 0);
    else part.mem.write(at, current, 0, len);
  }

  private plainCompareAndSwap(part: Part, at: number, bytes: number, both: Uint8Array, into: Uint8Array): void {
    const old = part.mem.bytes.slice(at, at + bytes);
    into.set(old);
    for (let i = 0; i < bytes; i++) if (old[i] !== both[bytes + i]) return;
    part.mem.write(at, both, 0, bytes);
  }

  /** Dynamic windows: the attached region holding [address, address + span); an erroneous access ends the job. */
  private regionAt(origin: number, address: number, span: number): { bytes: Uint8Array; address: number } {
    for (const a of this.attached) {
      if (address >= a.address && address + span <= a.address + a.bytes.length) return a;
    }
    return abortJob(1, `tsmpi: rank ${this.reqCore.rank}: MPI.ERR_RMA_RANGE: rank ${origin} accessed [${address}, ` +
      `${address + span}) of a dynamic window where no attached memory lies`);
  }

  /** The highest byte a derived-type block list in a message reaches (dynamic windows). */
  private blockSpan(msg: Uint8Array, nBlocks: number): number {
    const list = new Float64Array(msg.slice(HEADER_BYTES, HEADER_BYTES + nBlocks * 16).buffer);
    let hi = 0;
    for (let b = 0; b < list.length; b += 2) hi = Math.max(hi, list[b]! + list[b + 1]!);
    return hi;
  }

  private lockTypeOf(h: Float64Array): number {
    return h[1]!;
  }

  /**
   * Grants queued lock requests in order, taking our lock for each (ranks of our node may hold
   * it); stops at the first that must wait, which the lock area records so that their release
   * wakes us. Returns the grants made.
   */
  private grantLocks(): number {
    const l = this.lock;
    let granted = 0;
    while (l.waiting.length > 0) {
      const w = l.waiting[0]!;
      if (!this.locks.agentTryTake(w.type)) return granted;
      l.waiting.shift();
      this.replyTo(w.origin, w.tag, new Uint8Array(0));
      granted++;
    }
    this.locks.agentIdle();
    return granted;
  }

  private replyTo(origin: number, tag: number, data: Uint8Array): void {
    // Not waited for here (the agent runs inside progress): the engine completes it on its own.
    const r = this.world.engine.isend(data, this.replyCore.worldRanks[origin]!, this.replyCore.ctx, this.replyCore.rank, tag,
      MODE_STANDARD);
    if (r.state === STATE_DONE) this.world.engine.free(r);
    else this.detached.push(r);
  }

  private readonly detached: CoreRequest[] = [];

  /**
   * Loose post/start: an operation to a target whose POSTED has not arrived is kept (its data
   * copied now, as the origin buffer may change after the call) and issued once it arrives.
   * True when the operation was kept.
   */
  private deferIfUnposted(call: string, kind: number, origin: unknown, result: unknown, t: number, target: unknown,
                          op: Op | null, fixedCount: number | null): boolean {
    if (!this.postedWait.has(t) || this.awaitPosted(t, false)) return false;
    let copy: Uint8Array | null = null;
    let spec = target;
    if (origin !== null) {
      const data = origin instanceof Uint8Array && kind === CAS ? origin : this.decode(call, origin, 0).bytes;
      copy = data.slice();
      // The copy is bytes: the target triple keeps the origin's count and datatype.
      if (kind !== CAS && fixedCount === null) {
        const ref = this.decode(call, result ?? origin, result !== null ? 1 : 0);
        spec = this.target(call, target, ref, null);
      }
    }
    let list = this.deferred.get(t);
    if (list === undefined) this.deferred.set(t, (list = []));
    list.push({ call, kind, origin: copy, result, target: spec, op, fixedCount });
    return true;
  }

  /** Loose post/start: whether `t` has posted (waiting for it when `block`); issues what was kept for it. */
  private awaitPosted(t: number, block: boolean): boolean {
    const r = this.postedWait.get(t);
    if (r === undefined) return true;
    if (block) this.world.progress.wait(r);
    else if (r.state !== STATE_DONE) {
      this.world.engine.progress();
      if (r.state !== STATE_DONE) return false;
    }
    this.world.engine.free(r);
    this.postedWait.delete(t);
    const list = this.deferred.get(t);
    if (list !== undefined) {
      this.deferred.delete(t);
      for (const d of list) this.issue(d.call, d.kind, d.origin, d.result, t, d.target, d.op, d.fixedCount);
    }
    return true;
  }

  // ---------------------------------------------------------------- checks

  private live(call: string): void {
    if (this.freed) this.fail(call, ErrorClass.ERR_WIN, 'the window has been freed');
    runtime.requireRunning(`Win.${call}`);
    if (this.detached.length > 0) this.reapDetached();
  }

  private reapDetached(): void {
    let kept = 0;
    for (const r of this.detached) {
      if (r.state === STATE_DONE) this.world.engine.free(r);
      else this.detached[kept++] = r;
    }
    this.detached.length = kept;
  }

  private checkRank(call: string, rank: number): void {
    if (!Number.isInteger(rank) || rank < 0 || rank >= this.reqCore.size) {
      this.fail(call, ErrorClass.ERR_RANK, `rank ${rank} is out of range for a window of ${this.reqCore.size} ranks`);
    }
  }

  private checkPassive(call: string, rank: number): void {
    if (!this.lockAll && !this.locked.has(rank)) {
      this.fail(call, ErrorClass.ERR_RMA_SYNC, `${call} needs a passive-target epoch to rank ${rank} (Lock or Lock_all)`);
    }
  }

  private checkAssert(call: string, assert: number): void {
    if (!Number.isInteger(assert) || (assert & ~ALL_MODES) !== 0) {
      this.fail(call, ErrorClass.ERR_ASSERT, `assert ${assert} is not a combination of MPI.MODE_* flags`);
    }
  }

  private membersOf(call: string, group: Group): Int32Array {
    if (!(group instanceof Group)) this.fail(call, ErrorClass.ERR_GROUP, 'group must be an MPI.Group');
    const members = group.peek();
    if (members === null) return this.fail(call, ErrorClass.ERR_GROUP, 'the group has been freed');
    for (const w of members) {
      if (!this.reqCore.worldRanks.includes(w)) this.fail(call, ErrorClass.ERR_RMA_SYNC, `world rank ${w} is not in the window's group`);
    }
    return members;
  }

  private rankOfWorld(w: number): number {
    return this.reqCore.worldRanks.indexOf(w);
  }

  private fail(call: string, errorClass: number, message: string): never {
    const exception = new MPIException(errorClass, `Win.${call}: ${message}`);
    if (!this.errhandler.isFatal || runtime.phase !== 'running') throw exception;
    return abortJob(1, `tsmpi: rank ${this.reqCore.rank}: fatal error (MPI.ERRORS_ARE_FATAL): ${exception.message}`);
  }
}

/** A request without data: kind-specific value in header double 1 (the lock type). */
function headerOnly(value: number): Uint8Array {
  const msg = new Uint8Array(HEADER_BYTES);
  new Float64Array(msg.buffer, 0, HEADER_DOUBLES)[1] = value;
  return msg;
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
function runtimeComm(): Intracomm {
  return worldComm!;
}

/**
 * The (offset, length) blocks of `count` instances of a derived type, in type-map order, with
 * neighbours merged, and the lowest and highest byte touched.
 */
function blocksOf(dt: Datatype, count: number): { list: Float64Array; lo: number; hi: number } {
  const out: number[] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < count; i++) {
    const base = i * dt.extent;
    walk(dt.flat, 0, 0, 0, dt.size, (mem: number, _packed: number, len: number) => {
      const o = base + mem;
      const last = out.length - 2;
      if (last >= 0 && out[last]! + out[last + 1]! === o) out[last + 1]! += len;
      else out.push(o, len);
      if (o < lo) lo = o;
      if (o + len > hi) hi = o + len;
    });
  }
  return { list: Float64Array.from(out), lo: out.length > 0 ? lo : 0, hi: out.length > 0 ? hi : 0 };
}

/** The predefined type of a derived type's single basic kind, or null when it mixes kinds. */
function basicOf(dt: Datatype): Datatype | null {
  const match = DATATYPES.find((t) => t.predefined && t.kind === dt.kind && t !== Datatypes.DATATYPE_NULL && t !== Datatypes.PACKED);
  return match ?? null;
}
