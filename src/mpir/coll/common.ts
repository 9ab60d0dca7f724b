import { createTrace } from '../../common/trace.js';
import type { CoreRequest } from '../../mpid/index.js';
import type { World } from '../../mpid/world.js';
import { BufferSpec, decodeBuffer, describe } from '../buffer.js';
import type { Comm, CommCore } from '../comm.js';
import { Datatype } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { Op } from '../op.js';
import { Request } from '../request.js';
import { CollPrequest } from './persistent.js';
import { Schedule, launch, nextCollTag, runBlocking } from './schedule.js';
import { IN_PLACE } from '../in-place.js';
import { type Collective, countAlgorithm } from './algorithm-counts.js';
import { show } from '../validate.js';

const collTrace = createTrace('tsmpi:coll');
/** Read once from DEBUG: debug's `.enabled` is a getter, too dear for every small collective. */
const COLL_TRACE = collTrace.enabled;

/**
 * DEBUG=tsmpi:coll: the algorithm a collective call runs (its schedule `s` names the call, as
 * `<communicator>.<Call>`), with the data size; one constant test when off.
 */
export function traceAlgorithm(s: Schedule, collective: Collective, algorithm: string, bytes: number): void {
  countAlgorithm(collective, algorithm);
  if (COLL_TRACE) {
    collTrace('%s (%d ranks, %d bytes): %s', s.call, s.core.size, bytes, algorithm);
  }
}

/** traceAlgorithm for a collective that runs without a schedule (coll/shm-small.ts). */
export function traceCall(c: Call, collective: Collective, algorithm: string, bytes: number): void {
  countAlgorithm(collective, algorithm);
  if (COLL_TRACE) {
    collTrace('%s (%d ranks, %d bytes): %s', `${c.comm.Get_name()}.${c.name}`, c.core.size, bytes, algorithm);
  }
}

/**
 * What every collective entry shares: the call (communicator, its core, the world, the name
 * for messages), buffer decoding with MPI.IN_PLACE, the v-variant buffer form, argument
 * checks, and running a schedule blocking or as a Request.
 */

export { IN_PLACE, InPlace } from '../in-place.js';

export interface Call {
  readonly comm: Comm;
  readonly core: CommCore;
  readonly world: World;
  readonly name: string;
  /**
   * Receive buffers of non-contiguous datatypes: the schedule works on packed copies, unpacked
   * into the user's memory when it ends (execute adds the step). Set by decode.
   */
  unpacks?: Unpack[];
  /**
   * A persistent collective (Bcast_init, ...): execute returns a Prequest that runs the schedule
   * at each Start, and the blocks packed by decode are packed again at each Start (`packs`).
   */
  readonly persistent?: boolean;
  packs?: Unpack[];
}

/** A Call whose fields callRecord sets for each blocking collective of its communicator. */
type ReusedCall = { -readonly [K in keyof Call]: Call[K] };
const blockingCalls = new WeakMap<Comm, ReusedCall>();

/**
 * The call record of a collective: a new one for a non-blocking call (its Request keeps it), the
 * communicator's own for a blocking one, reset here, so the small blocking collectives allocate
 * nothing (coll/small-calls.ts). A blocking collective ends before the next on the same
 * communicator can start (MPI orders them), so one record serves them all.
 */
export function callRecord(comm: Comm, core: CommCore, world: World, name: string, blocking: boolean): Call {
  if (!blocking) return { comm, core, world, name };
  let c = blockingCalls.get(comm);
  if (c === undefined) {
    c = { comm, core, world, name };
    blockingCalls.set(comm, c);
  }
  c.core = core;
  c.world = world;
  c.name = name;
  c.unpacks = undefined;
  return c;
}

/** A packed copy of a non-contiguous receive block, and where it goes when the collective ends. */
export interface Unpack {
  readonly packed: Uint8Array;
  readonly user: Uint8Array;
  readonly count: number;
  readonly datatype: Datatype;
}

/**
 * Collectives run on packed bytes. A block of a non-contiguous datatype is packed into a
 * scratch buffer (also for receive buffers, whose old content IN_PLACE variants read), and
 * receive blocks are unpacked into the user's memory at the end. `what` says the role:
 * buffers named 'sendbuf' are only read.
 */
function packBlock(c: Call, user: Uint8Array, count: number, dt: Datatype, what: string,
                   packed = new Uint8Array(count * dt.size)): Uint8Array {
  dt.packTo(user, count, 0, packed.length, packed, 0);
  const block = { packed, user, count, datatype: dt };
  if (what !== 'sendbuf') (c.unpacks ??= []).push(block);
  if (c.persistent === true) (c.packs ??= []).push(block);
  return packed;
}

/** The user's memory from byte `at` as the origin of a datatype (the whole rest of the buffer). */
function userFrom(bytes: Uint8Array, at: number): Uint8Array {
  return bytes.subarray(at);
}

export interface Decoded {
  bytes: Uint8Array;
  count: number;
  datatype: Datatype;
}

export function fail(c: Call, errorClass: number, message: string): never {
  return c.comm.fail(c.name, errorClass, message);
}

export function decode(c: Call, buf: unknown, what: string): Decoded {
  const spec = new BufferSpec();
  if (!decodeBuffer(buf, spec, 'direct')) fail(c, spec.errorClass, `${what}: ${spec.error}`);
  const d = spec.packed;
  if (d !== null) return { bytes: packBlock(c, d.user, d.count, d.datatype, what), count: spec.count, datatype: spec.datatype };
  return { bytes: spec.bytes, count: spec.count, datatype: spec.datatype };
}

export function isInPlace(buf: unknown): boolean {
  return buf === IN_PLACE;
}

/** A v-variant buffer: bytes of the whole buffer, per-rank counts and displacements (elements). */
export interface DecodedV {
  data: Uint8Array;
  counts: number[];
  displs: number[];
  datatype: Datatype;
}

/**
 * Parses `[buf, [counts, displs], datatype]`, `[buf, counts, displs, datatype]`,
 * `[buf, counts, datatype]` (displacements packed in rank order) or `[buf, [counts, null], datatype]`.
 */
export function decodeV(c: Call, arg: unknown, what: string, n: number): DecodedV {
  if (!Array.isArray(arg) || arg.length < 3 || arg.length > 4) {
    fail(c, ErrorClass.ERR_BUFFER, `${what}: expected [buf, [counts, displs], datatype], got ${describe(arg)}`);
  }
  let counts: unknown;
  let displs: unknown = null;
  let dt: unknown;
  if (arg.length === 4) [, counts, displs, dt] = arg;
  else if (Array.isArray(arg[1]) && arg[1].length === 2 && (Array.isArray(arg[1][0]) || ArrayBuffer.isView(arg[1][0]))) {
    [counts, displs] = arg[1] as unknown[];
    dt = arg[2];
  } else {
    counts = arg[1];
    dt = arg[2];
  }
  const data = arg[0] as unknown;
  if (!(ArrayBuffer.isView(data) || data instanceof ArrayBuffer || data instanceof SharedArrayBuffer)) {
    fail(c, ErrorClass.ERR_BUFFER, `${what}: expected a TypedArray, DataView, Buffer or ArrayBuffer, got ${describe(data)}`);
  }
  if (!(dt instanceof Datatype) || dt.size === 0) fail(c, ErrorClass.ERR_TYPE, `${what}: expected an MPI.Datatype, got ${describe(dt)}`);
  checkCommitted(c, dt, what);
  const cs = intList(c, counts, `${what} counts`, n);
  let ds: number[];
  if (displs === null || displs === undefined) {
    ds = new Array<number>(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      ds[i] = at;
      at += cs[i]!;
    }
  } else ds = intList(c, displs, `${what} displs`, n);
  const bytes = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data as ArrayBufferLike);
  // Displacements count extents; a block spans (count - 1) extents plus one instance's true ub.
  for (let i = 0; i < n; i++) {
    const end = cs[i] === 0 ? 0 : ds[i]! * dt.extent + dt.spanOf(cs[i]!);
    if (ds[i]! < 0 || dt.spanOf(cs[i]!) < 0 || end > bytes.length) {
      fail(c, ErrorClass.ERR_BUFFER, `${what}: block ${i} (displacement ${ds[i]}, count ${cs[i]} x ${dt.name}) ` +
        `does not fit a buffer of ${bytes.length} bytes`);
    }
  }
  if (dt.contiguous && dt.extent === dt.size) return { data: bytes, counts: cs, displs: ds, datatype: dt };
  // Non-contiguous: the blocks packed one after another; displacements become packed ones.
  const packedDispls = new Array<number>(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    packedDispls[i] = total;
    total += cs[i]!;
  }
  const packed = new Uint8Array(total * dt.size);
  for (let i = 0; i < n; i++) {
    if (cs[i] === 0) continue;
    const at = packedDispls[i]! * dt.size;
    packBlock(c, userFrom(bytes, ds[i]! * dt.extent), cs[i]!, dt, what, packed.subarray(at, at + cs[i]! * dt.size));
  }
  return { data: packed, counts: cs, displs: packedDispls, datatype: dt };
}

export function checkCommitted(c: Call, dt: Datatype, what: string): void {
  if (!dt.isCommitted) {
    fail(c, ErrorClass.ERR_TYPE, `${what}: ${dt.isFreed ? `${dt.name} has been freed` : `${dt.name} is not committed; commit it first (dt.Commit())`}`);
  }
}

/**
 * Blocks of per-block datatypes at byte displacements (the w-variants): contiguous ones are
 * used in place; otherwise every block is packed one after another (receive blocks unpacked at
 * the end). Returns the bytes the schedule works on and each block's offset and length there.
 */
export function packedW(c: Call, bytes: Uint8Array, counts: readonly number[], byteDispls: readonly number[],
                        types: readonly Datatype[], what: string): { data: Uint8Array; off: number[]; len: number[] } {
  const n = counts.length;
  const len = counts.map((k, i) => k * types[i]!.size);
  if (types.every((t) => t.contiguous && t.extent === t.size)) return { data: bytes, off: [...byteDispls], len };
  const off = new Array<number>(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    off[i] = total;
    total += len[i]!;
  }
  const data = new Uint8Array(total);
  for (let i = 0; i < n; i++) {
    if (counts[i] === 0) continue;
    packBlock(c, userFrom(bytes, byteDispls[i]!), counts[i]!, types[i]!, what, data.subarray(off[i]!, off[i]! + len[i]!));
  }
  return { data, off, len };
}

export function intList(c: Call, x: unknown, what: string, n: number): number[] {
  if (!(Array.isArray(x) || ArrayBuffer.isView(x))) fail(c, ErrorClass.ERR_ARG, `${what}: expected an array of ${n} integers, got ${describe(x)}`);
  const a = Array.from(x as ArrayLike<number>);
  if (a.length < n) fail(c, ErrorClass.ERR_COUNT, `${what}: expected ${n} entries (one per rank), got ${a.length}`);
  for (let i = 0; i < n; i++) {
    if (!Number.isInteger(a[i]) || a[i]! < 0) fail(c, ErrorClass.ERR_COUNT, `${what}[${i}] = ${show(a[i])} is not a non-negative integer`);
  }
  return a.slice(0, n);
}

export function checkRoot(c: Call, root: number): void {
  if (Number.isInteger(root) && root >= 0 && root < c.core.size) return;
  fail(c, ErrorClass.ERR_ROOT, `root ${show(root)} is out of range for a communicator of size ${c.core.size} ` +
    `(expected 0..${c.core.size - 1})`);
}

export function checkOp(c: Call, op: unknown, dt: Datatype): Op {
  if (!(op instanceof Op)) fail(c, ErrorClass.ERR_OP, `op must be an MPI.Op (MPI.SUM, ..., or MPI.Op.Create), got ${describe(op)}`);
  const why = op.checkType(dt);
  if (why !== null) fail(c, ErrorClass.ERR_OP, `op: ${why}`);
  return op;
}

/** Same element count and datatype on both sides (Reduce, Allreduce, Scan). */
export function checkSame(c: Call, send: Decoded, recv: Decoded): void {
  if (send.datatype !== recv.datatype) {
    fail(c, ErrorClass.ERR_TYPE, `sendbuf is ${send.datatype.name} but recvbuf is ${recv.datatype.name} (they must match)`);
  }
  if (send.count !== recv.count) {
    fail(c, ErrorClass.ERR_COUNT, `sendbuf has ${send.count} elements but recvbuf has ${recv.count} (they must match)`);
  }
}

export function newSchedule(c: Call): Schedule {
  return new Schedule(c.core, c.world.engine, nextCollTag(c.core), `${c.comm.Get_name()}.${c.name}`);
}

/** A non-blocking collective's request: completes when its schedule has run its last round. */
export class CollRequest extends Request {
  constructor(private readonly schedule: Schedule, comm: Comm, private readonly call: string) {
    super(schedule.request, comm);
  }

  protected override onComplete(_core: CoreRequest): void {}

  /** MPI does not allow cancelling a collective: raises MPI.ERR_REQUEST. */
  override Cancel(): void {
    this.comm!.fail(`${this.call} request.Cancel`, ErrorClass.ERR_REQUEST,
      'a non-blocking collective cannot be cancelled (MPI-4 §6.12); complete it with Wait or Test');
  }

  protected override onInactive(): void {
    const e = this.schedule.error;
    if (e !== null) this.comm!.fail(this.call, e.error_class, e.message);
  }
}

/**
 * The end of a collective: receive blocks of non-contiguous datatypes, worked on packed, go to
 * the user's memory. Returns undefined, what a blocking collective entry returns.
 */
export function unpackReceived(c: Call): undefined {
  const unpacks = c.unpacks;
  if (unpacks !== undefined) {
    for (const u of unpacks) u.datatype.unpackTo(u.packed, 0, u.count, 0, u.packed.length, u.user);
  }
  return undefined;
}

/** Runs `s` to completion, or returns its Request when `nonblocking`. */
export function execute(c: Call, s: Schedule, nonblocking: boolean): Request | undefined {
  if (c.unpacks !== undefined) s.round().local(() => unpackReceived(c));
  if (c.persistent === true) {
    const packs = c.packs;
    if (packs !== undefined) {
      s.prepare(() => {
        for (const p of packs) p.datatype.packTo(p.user, p.count, 0, p.packed.length, p.packed, 0);
      }, true);
    }
    return new CollPrequest(s, c.comm, c.name, c.world);
  }
  if (nonblocking) {
    launch(c.world, s);
    return new CollRequest(s, c.comm, c.name);
  }
  try {
    runBlocking(c.world, s);
  } catch (e) {
    if (e instanceof MPIException) fail(c, e.error_class, e.message);
    throw e;
  }
  return undefined;
}

/**
 * A w-variant buffer `[buf, [counts, displs], datatypes]` of `n` blocks: one datatype per block,
 * displacements in bytes (MPI's rule for the w-variants). Returns the bytes the schedule works
 * on with each block's offset and length there (packed when a type is non-contiguous).
 */
export function decodeW(c: Call, arg: unknown, what: string, size: number): { data: Uint8Array; off: number[]; len: number[] } {
  if (!Array.isArray(arg) || arg.length !== 3 || !Array.isArray(arg[1]) || arg[1].length !== 2) {
    fail(c, ErrorClass.ERR_BUFFER, `${what}: expected [buf, [counts, displs], datatypes], got ${describe(arg)}`);
  }
  const data = arg[0] as unknown;
  if (!(ArrayBuffer.isView(data) || data instanceof ArrayBuffer || data instanceof SharedArrayBuffer)) {
    fail(c, ErrorClass.ERR_BUFFER, `${what}: expected a TypedArray, DataView, Buffer or ArrayBuffer, got ${describe(data)}`);
  }
  const counts = intList(c, arg[1][0], `${what} counts`, size);
  const displs = intList(c, arg[1][1], `${what} displs`, size);
  const types = arg[2] as unknown;
  if (!Array.isArray(types) || types.length < size) fail(c, ErrorClass.ERR_TYPE, `${what}: expected ${size} datatypes`);
  const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data as ArrayBufferLike);
  const dts: Datatype[] = [];
  for (let r = 0; r < size; r++) {
    const t = types[r] as unknown;
    if (!(t instanceof Datatype) || t.size === 0) fail(c, ErrorClass.ERR_TYPE, `${what} datatypes[${r}]: expected an MPI.Datatype, got ${describe(t)}`);
    checkCommitted(c, t, `${what} datatypes[${r}]`);
    const span = counts[r] === 0 ? 0 : t.spanOf(counts[r]!);
    if (span < 0 || displs[r]! + span > bytes.length) {
      fail(c, ErrorClass.ERR_BUFFER, `${what}: block ${r} (byte displacement ${displs[r]}, ${counts[r]} x ${t.name}) does not fit ${bytes.length} bytes`);
    }
    dts.push(t);
  }
  return packedW(c, bytes, counts, displs, dts, what);
}

/** A fresh buffer of `n` bytes (scratch of a collective, freed with the schedule). */
export function scratch(n: number): Uint8Array {
  return new Uint8Array(n);
}

export { Schedule };
