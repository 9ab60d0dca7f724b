import { KIND_GREQ, MODE_STANDARD, STATE_DONE, type CompletionListener, type CoreRequest, type Engine, type ProgressHook } from '../mpid/index.js';
import { BufferSpec, decodeBuffer } from './buffer.js';
import { Comm, type CommCore } from './comm.js';
import { PROC_NULL } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { INFO_NULL } from './info.js';
import * as p2p from './p2p.js';
import { Prequest } from './request.js';
import { runtime } from './runtime.js';
import type { BufSpec, InfoArg } from './types.js';
import { show } from './validate.js';

/**
 * Partitioned point-to-point communication (MPI-4 chapter 4), mpi4py's names:
 * comm.Psend_init(buf, partitions, dest, tag = 0, info) and comm.Precv_init(buf, partitions,
 * source, tag = 0, info) give Prequests; each Start begins a round; on the send side
 * Pready(k) / Pready_range(lo, hi) / Pready_list(ks) hand partition k to MPI, and on the receive
 * side Parrived(k) tells whether partition k is in the receive buffer; Wait/Test complete the
 * round. The buffer's elements split into equal partitions (count a multiple of partitions);
 * the two sides may use different partition counts if the bytes add up the same.
 *
 * Wire: on the communicator's internal context (ctx + 1), with negative tags no other traffic
 * uses. At its first Start a send sends a header (user tag, partitions, bytes, and a base tag it
 * reserves for its partitions) on HEADER_TAG; a receive matches, at its first Start, the first
 * header from its source with its tag, in arrival order (MPI's ordering of point-to-point
 * matching; headers that no receive wants yet wait in `Matcher`). After that every partition
 * is a message of its own, on tag dataTag(base + k), sent at Pready and received straight into
 * its place in the buffer (non-contiguous datatypes: packed at Pready, unpacked on arrival), so
 * partitions arrive in any order, and Parrived(k) is true once every sent partition covering
 * receive partition k has landed. Messages of later rounds cannot overtake: one pair of ranks,
 * one tag per partition, rounds in order.
 */

const HEADER_TAG = -2;
const HEADER_WORDS = 4;
const DATA_TAG_BASE = 16;
/** Data tags wrap after this many partitions made by one process (a tag is reused only then). */
const DATA_SPAN = 0x40000000;
let nextBase = 0;

const dataTag = (slot: number): number => -(DATA_TAG_BASE + (slot % DATA_SPAN));

declare module './comm.js' {
  interface Comm {
    /** Partitioned send of buf in `partitions` equal parts to dest (MPI-4): Start, then Pready each part, then Wait. */
    Psend_init(buf: BufSpec, partitions: number, dest: number, tag?: number, info?: InfoArg): Prequest;
    /** Partitioned receive of buf in `partitions` equal parts from source (no wildcards): Start, Parrived, Wait. */
    Precv_init(buf: BufSpec, partitions: number, source: number, tag?: number, info?: InfoArg): Prequest;
  }
}

/** The buffer of a partitioned operation: its bytes, or a non-contiguous datatype seen as its packed stream. */
interface Layout {
  bytes: number;
  /** Contiguous data: the user's bytes. */
  user: Uint8Array | null;
  /** Non-contiguous data: staging for the packed stream, and how to move it. */
  staging: Uint8Array | null;
  pack: ((from: number, to: number) => void) | null;
  unpack: ((from: number, to: number) => void) | null;
}

function layout(comm: Comm, call: string, buf: unknown, partitions: number): Layout {
  if (!Number.isInteger(partitions) || partitions < 1) {
    comm.fail(call, ErrorClass.ERR_ARG, `partitions must be a positive integer, got ${String(partitions)}`);
  }
  const spec = new BufferSpec();
  if (!decodeBuffer(buf, spec, 'direct')) comm.fail(call, spec.errorClass, `buf: ${spec.error}`);
  if (spec.count % partitions !== 0) {
    comm.fail(call, ErrorClass.ERR_COUNT, `buf holds ${spec.count} x ${spec.datatype.name}, not a multiple of the ${partitions} partitions`);
  }
  const d = spec.packed;
  if (d === null) return { bytes: spec.bytes.length, user: spec.bytes, staging: null, pack: null, unpack: null };
  const bytes = d.count * d.datatype.size;
  const staging = new Uint8Array(bytes);
  return {
    bytes, user: null, staging,
    pack: (from, to) => d.datatype.packTo(d.user, d.count, from, to, staging, from),
    unpack: (from, to) => d.datatype.unpackTo(staging, from, d.count, from, to, d.user),
  };
}

/** What both sides share: the call's checks, the round's request (GREQ) and its completion. */
abstract class Partitioned extends Prequest implements CompletionListener {
  protected round: CoreRequest | null = null;
  protected remaining = 0;
  protected readonly engine: Engine;

  constructor(comm: Comm, protected readonly call: string, protected readonly commCore: CommCore, protected readonly peer: number,
              protected readonly tag: number, protected readonly partitions: number, protected readonly buf: Layout) {
    super(comm, () => this.begin(), call);
    this.engine = runtime.requireRunning(call).engine;
  }

  /** Starts a round: its request, then what the side does. */
  private begin(): CoreRequest | null {
    this.resetRound();
    if (this.peer === PROC_NULL) return null;
    const r = this.engine.requests.acquire(KIND_GREQ);
    r.statusSource = this.peer;
    r.statusTag = this.tag;
    this.round = r;
    // Never 0 (a round has at least one partition, or waits for its header), so the round
    // ends in requestDone, also when a part completes at once.
    this.remaining = this.expected();
    this.startRound();
    return r;
  }

  protected abstract expected(): number;
  /** Clears what a round marks (also for MPI.PROC_NULL, whose rounds complete at once). */
  protected resetRound(): void {}
  protected abstract startRound(): void;

  /** A partition's message completed (engine completion listener). */
  requestDone(r: CoreRequest): void {
    this.partDone(r);
    this.engine.free(r);
    if (--this.remaining === 0) this.roundDone();
  }

  protected partDone(_r: CoreRequest): void {}

  protected roundDone(): void {
    const g = this.round!;
    this.round = null;
    g.statusCount = this.buf.bytes;
    this.engine.complete(g);
  }

  /** Posts one partition message and counts it (it may be complete already). */
  protected track(r: CoreRequest): void {
    if (r.state === STATE_DONE) this.requestDone(r);
    else r.listener = this;
  }

  protected checkPartition(call: string, k: unknown, name = 'partition', count = this.partitions): number {
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k >= count) {
      this.comm!.fail(`Prequest.${call}`, ErrorClass.ERR_ARG, `${name} ${show(k)} is out of range (the request has ${count} ` +
        `partitions: 0..${count - 1})`);
    }
    return k as number;
  }

  /** MPI-4 §4.2: freeing an active partitioned request is erroneous: MPI.ERR_REQUEST. */
  override Free(): void {
    if (this.active) {
      this.comm!.fail(`${this.call} request.Free`, ErrorClass.ERR_REQUEST, 'the partitioned request is active; complete it with Wait or Test first');
    }
    super.Free();
  }

  override Cancel(): void {
    this.comm!.fail(`${this.call} request.Cancel`, ErrorClass.ERR_REQUEST, 'a partitioned request cannot be cancelled; complete it with Wait or Test');
  }
}

class PartitionedSend extends Partitioned {
  private base = -1;
  private readonly ready: Uint8Array;
  private readonly header = new Int32Array(HEADER_WORDS);

  constructor(comm: Comm, core: CommCore, dest: number, tag: number, partitions: number, buf: Layout) {
    super(comm, 'Psend_init', core, dest, tag, partitions, buf);
    this.ready = new Uint8Array(partitions);
  }

  protected expected(): number { return this.partitions; }

  protected override resetRound(): void {
    this.ready.fill(0);
  }

  protected startRound(): void {
    if (this.base >= 0) return;
    this.base = nextBase;
    nextBase = (nextBase + this.partitions) % DATA_SPAN;
    this.header.set([this.tag, this.partitions, this.buf.bytes, this.base]);
    const h = this.engine.isend(new Uint8Array(this.header.buffer), this.commCore.worldRanks[this.peer]!, this.commCore.ctx + 1,
      this.commCore.rank, HEADER_TAG, MODE_STANDARD);
    this.engine.free(h);
  }

  override Pready(partition: number): void {
    this.markReady('Pready', this.checkPartition('Pready', partition));
  }

  override Pready_range(partition_low: number, partition_high: number): void {
    const lo = this.checkPartition('Pready_range', partition_low, 'partition_low');
    const hi = this.checkPartition('Pready_range', partition_high, 'partition_high');
    if (lo > hi) this.comm!.fail('Prequest.Pready_range', ErrorClass.ERR_ARG, `partition_low ${lo} is above partition_high ${hi}`);
    for (let k = lo; k <= hi; k++) this.markReady('Pready_range', k);
  }

  override Pready_list(partitions: ArrayLike<number>): void {
    if (partitions === null || typeof partitions !== 'object' || typeof partitions.length !== 'number') {
      this.comm!.fail('Prequest.Pready_list', ErrorClass.ERR_ARG, 'partitions must be an array of partition numbers');
    }
    for (let i = 0; i < partitions.length; i++) this.checkPartition('Pready_list', partitions[i], `partitions[${i}]`);
    for (let i = 0; i < partitions.length; i++) this.markReady('Pready_list', partitions[i]!);
  }

  override Parrived(_partition: number): boolean {
    return this.notPartitioned('Parrived');
  }

  private markReady(call: string, k: number): void {
    if (!this.active) {
      this.comm!.fail(`Prequest.${call}`, ErrorClass.ERR_REQUEST, 'the partitioned send is not active (Start it first)');
    }
    if (this.ready[k] !== 0) {
      this.comm!.fail(`Prequest.${call}`, ErrorClass.ERR_ARG, `partition ${k} was already marked ready in this round`);
    }
    this.ready[k] = 1;
    if (this.peer === PROC_NULL) return;
    const size = this.buf.bytes / this.partitions;
    const from = k * size;
    let data: Uint8Array;
    if (this.buf.user !== null) data = this.buf.user.subarray(from, from + size);
    else {
      this.buf.pack!(from, from + size);
      data = this.buf.staging!.subarray(from, from + size);
    }
    this.track(this.engine.isend(data, this.commCore.worldRanks[this.peer]!, this.commCore.ctx + 1, this.commCore.rank,
      dataTag(this.base + k), MODE_STANDARD));
  }
}

class PartitionedRecv extends Partitioned {
  /** The matched send's partitions and base tag; -1 until matched. */
  private sendParts = -1;
  private base = -1;
  /** Per sent partition: arrived in this round. */
  private arrived = new Uint8Array(0);
  private readonly inFlight = new Map<CoreRequest, number>();
  error: string | null = null;

  constructor(comm: Comm, core: CommCore, source: number, tag: number, partitions: number, buf: Layout) {
    super(comm, 'Precv_init', core, source, tag, partitions, buf);
  }

  protected expected(): number { return this.sendParts < 0 ? 1 : this.sendParts; }

  protected startRound(): void {
    if (this.sendParts < 0) matcherFor(this.engine).want(this);
    else this.post();
  }

  /** The header of the send this receive matched (Matcher); posts the first round if it waits. */
  matched(header: Int32Array): void {
    const [, parts, bytes, base] = header as unknown as [number, number, number, number];
    if (bytes !== this.buf.bytes) {
      this.error = `the matched Psend_init sends ${bytes} bytes, this receive holds ${this.buf.bytes} (the sizes must be equal)`;
    }
    this.sendParts = parts;
    this.base = base;
    this.arrived = new Uint8Array(parts);
    if (this.round === null) return;
    // The round waited for the header as its one part; now it waits for the partitions.
    if (this.error !== null) {
      this.remaining = 0;
      this.roundDone();
      return;
    }
    this.remaining = parts;
    this.post();
  }

  /** Posts this round's receives, one per sent partition, each straight into its place. */
  private post(): void {
    this.arrived.fill(0);
    if (this.error !== null) {
      this.remaining = 0;
      this.roundDone();
      return;
    }
    const size = this.buf.bytes / this.sendParts;
    const into = this.buf.user ?? this.buf.staging!;
    for (let k = 0; k < this.sendParts; k++) {
      const r = this.engine.irecv(into.subarray(k * size, (k + 1) * size), this.commCore.ctx + 1, this.peer, dataTag(this.base + k));
      this.inFlight.set(r, k);
      this.track(r);
    }
  }

  /** @internal For the Matcher: the context, source and tag headers are matched on. */
  coreCtx(): number { return this.commCore.ctx + 1; }
  /** @internal */
  source(): number { return this.peer; }
  /** @internal */
  userTag(): number { return this.tag; }

  protected override partDone(r: CoreRequest): void {
    const k = this.inFlight.get(r)!;
    this.inFlight.delete(r);
    if (this.buf.unpack !== null) {
      const size = this.buf.bytes / this.sendParts;
      this.buf.unpack(k * size, (k + 1) * size);
    }
    this.arrived[k] = 1;
  }

  override Parrived(partition: number): boolean {
    const j = this.checkPartition('Parrived', partition);
    if (!this.active || this.peer === PROC_NULL) return true;
    if (this.landed(j)) return true;
    this.engine.progress();
    return this.landed(j);
  }

  /** Whether every sent partition that overlaps receive partition j has arrived this round. */
  private landed(j: number): boolean {
    if (this.sendParts < 0) return false;
    const rb = this.buf.bytes / this.partitions;
    const sb = this.buf.bytes / this.sendParts;
    if (rb === 0 || this.round === null) return true;
    const first = Math.floor((j * rb) / sb);
    const last = Math.ceil(((j + 1) * rb) / sb) - 1;
    for (let k = first; k <= last; k++) if (this.arrived[k] === 0) return false;
    return true;
  }

  override Pready(_partition: number): void { this.notPartitioned('Pready'); }
  override Pready_range(_lo: number, _hi: number): void { this.notPartitioned('Pready_range'); }
  override Pready_list(_ks: ArrayLike<number>): void { this.notPartitioned('Pready_list'); }

  /** @internal */
  protected override onInactive(): void {
    if (this.error !== null) this.comm!.fail(this.call, ErrorClass.ERR_TRUNCATE, this.error);
  }
}

/**
 * Matches partitioned receives with the headers of partitioned sends, per (context, source):
 * headers in arrival order, receives in the order they first started. One header receive is
 * posted while some receive waits; the engine's progress hook hands it on.
 */
class Matcher implements ProgressHook {
  private readonly queues = new Map<string, { waiting: PartitionedRecv[]; headers: Int32Array[]; pending: CoreRequest | null; ctx: number; source: number }>();
  private posted = 0;

  constructor(private readonly engine: Engine) {}

  want(r: PartitionedRecv): void {
    const ctx = r.coreCtx();
    const key = `${ctx}:${r.source()}`;
    let q = this.queues.get(key);
    if (q === undefined) {
      q = { waiting: [], headers: [], pending: null, ctx, source: r.source() };
      this.queues.set(key, q);
    }
    const i = q.headers.findIndex((h) => h[0] === r.userTag());
    if (i >= 0) {
      r.matched(q.headers.splice(i, 1)[0]!);
      return;
    }
    q.waiting.push(r);
    if (q.pending === null) this.postHeader(q);
  }

  private postHeader(q: { pending: CoreRequest | null; ctx: number; source: number }): void {
    q.pending = this.engine.irecv(new Uint8Array(4 * HEADER_WORDS), q.ctx, q.source, HEADER_TAG);
    if (this.posted++ === 0) this.engine.addProgressHook(this);
  }

  advance(): number {
    let moved = 0;
    for (const q of this.queues.values()) {
      const p = q.pending;
      if (p === null || p.state !== STATE_DONE) continue;
      const header = new Int32Array(p.buf.slice().buffer);
      this.engine.free(p);
      q.pending = null;
      this.posted--;
      moved++;
      const i = q.waiting.findIndex((r) => r.userTag() === header[0]);
      if (i >= 0) q.waiting.splice(i, 1)[0]!.matched(header);
      else q.headers.push(header);
      if (q.waiting.length > 0) this.postHeader(q);
    }
    if (this.posted === 0) this.engine.removeProgressHook(this);
    return moved;
  }
}

const matchers = new WeakMap<Engine, Matcher>();

function matcherFor(engine: Engine): Matcher {
  let m = matchers.get(engine);
  if (m === undefined) {
    m = new Matcher(engine);
    matchers.set(engine, m);
  }
  return m;
}

Comm.prototype.Psend_init = function (this: Comm, buf: BufSpec, partitions: number, dest: number, tag = 0,
                                      info: InfoArg = INFO_NULL): Prequest {
  const call = 'Psend_init';
  this.checkInfoArg(call, info);
  const core = this.coreFor(call);
  p2p.checkDest(this, call, core, dest);
  p2p.checkTag(this, call, tag, false);
  return new PartitionedSend(this, core, dest, tag, partitions, layout(this, call, buf, partitions));
};

Comm.prototype.Precv_init = function (this: Comm, buf: BufSpec, partitions: number, source: number, tag = 0,
                                      info: InfoArg = INFO_NULL): Prequest {
  const call = 'Precv_init';
  this.checkInfoArg(call, info);
  const core = this.coreFor(call);
  if (!(Number.isInteger(source) && ((source >= 0 && source < core.size) || source === PROC_NULL))) {
    this.fail(call, ErrorClass.ERR_RANK, `source ${String(source)} is invalid: a partitioned receive names its source ` +
      `(0..${core.size - 1} or MPI.PROC_NULL; MPI.ANY_SOURCE is not allowed, MPI-4 §4.2.2)`);
  }
  p2p.checkTag(this, call, tag, false);
  return new PartitionedRecv(this, core, source, tag, partitions, layout(this, call, buf, partitions));
};
