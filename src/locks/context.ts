import os from 'node:os';
import { MPI, type Intracomm, type Win } from '../index.js';
import { Waiter } from './wait.js';

/**
 * Where the ranks of a lock's communicator live: the node split (Split_type(COMM_TYPE_SHARED),
 * which under `tsmpiexec --sci-nodes K` gives K emulated SCI nodes, so the hierarchy can be
 * studied on one machine) and, for every rank, its node's index and leader. The thesis calls
 * a node's lowest rank its "master"; nodes are numbered by their leaders' order.
 *
 * Made collectively once and shared by any number of locks; free() collectively at the end.
 */
export class LockContext {
  readonly rank: number;
  readonly size: number;
  /** The ranks of this rank's node (a communicator of its own, for shared windows and local barriers). */
  readonly node: Intracomm;
  readonly nodeRank: number;
  readonly nodeSize: number;
  /** Number of nodes, and this rank's node index in 0..nodeCount-1. */
  readonly nodeCount: number;
  readonly nodeIndex: number;
  /** For every rank of comm: its node's index. */
  readonly nodeOf: Int32Array;
  /** For every node index: its lowest rank in comm (the node's leader, "master"). */
  readonly leaderOf: Int32Array;
  /** For every node index: its ranks in comm, ascending. */
  readonly ranksOf: readonly Int32Array[];
  /** For every rank of comm: its rank inside its node. */
  readonly nodeRankOf: Int32Array;
  /**
   * Ranks of comm on this machine (same processor name; emulated SCI nodes share one), and
   * whether they outnumber its cores: then a waiter must sleep soon, or it steals the CPU from
   * the holder; otherwise it keeps spinning, since a timed sleep costs tens of µs (timer slack).
   */
  readonly machineRanks: number;
  readonly oversubscribed: boolean;

  constructor(readonly comm: Intracomm) {
    this.rank = comm.rank;
    this.size = comm.size;
    this.node = comm.Split_type(MPI.COMM_TYPE_SHARED, this.rank);
    this.nodeRank = this.node.rank;
    this.nodeSize = this.node.size;
    // Each rank's node leader (lowest rank of its node), known to everyone.
    const leader = new Int32Array(1);
    this.node.Allreduce(Int32Array.of(this.rank), leader, MPI.MIN);
    const leaders = new Int32Array(this.size);
    comm.Allgather(leader, leaders);
    const distinct = Array.from(new Set(leaders)).sort((a, b) => a - b);
    this.nodeCount = distinct.length;
    this.leaderOf = Int32Array.from(distinct);
    this.nodeOf = Int32Array.from(leaders, (l) => distinct.indexOf(l));
    this.nodeIndex = this.nodeOf[this.rank]!;
    const ranksOf: Int32Array[] = [];
    for (let n = 0; n < this.nodeCount; n++) ranksOf.push(Int32Array.from(Array.from({ length: this.size }, (_, r) => r).filter((r) => this.nodeOf[r] === n)));
    this.ranksOf = ranksOf;
    this.nodeRankOf = Int32Array.from({ length: this.size }, (_, r) => ranksOf[this.nodeOf[r]!]!.indexOf(r));
    const me = MPI.Get_processor_name();
    this.machineRanks = (comm.allgather(me) as string[]).filter((name) => name === me).length;
    this.oversubscribed = this.machineRanks > os.availableParallelism();
  }

  /** Whether `rank` shares this rank's node (direct loads and stores reach its shared-window part). */
  isLocal(rank: number): boolean {
    return this.nodeOf[rank] === this.nodeIndex;
  }

  get isLeader(): boolean {
    return this.nodeRank === 0;
  }

  /** A fresh waiter for one lock's wait loops (probes this context's communicator; naps soon only when oversubscribed). */
  waiter(probe = true): Waiter {
    return new Waiter(this.comm, this.oversubscribed ? 64 : 1 << 14, 5, 500, probe);
  }

  free(): void {
    this.node.Free();
  }
}

/**
 * A window's memory described as a struct, the thesis' idiom (Fig. 3.4): fields addressed by
 * byte offset with displacement unit 1, each on its own 64-byte line unless packed tighter.
 */
export class WindowLayout {
  private readonly offsets = new Map<string, number>();
  private end = 0;

  /** Adds `bytes` bytes named `name` at the next multiple of `align`. */
  field(name: string, bytes: number, align = 64): this {
    if (this.offsets.has(name)) throw new Error(`WindowLayout: field ${name} twice`);
    const at = Math.ceil(this.end / align) * align;
    this.offsets.set(name, at);
    this.end = at + bytes;
    return this;
  }

  /** The byte offset (target displacement with disp_unit 1) of a field. */
  at(name: string): number {
    const o = this.offsets.get(name);
    if (o === undefined) throw new Error(`WindowLayout: no field ${name}`);
    return o;
  }

  /** Bytes a window part needs, rounded up to whole lines. */
  get size(): number {
    return Math.max(64, Math.ceil(this.end / 64) * 64);
  }
}

/**
 * A lock's window: Allocate(size, disp_unit 1) over comm (every rank may pass its own size,
 * 0 for none), opened with Lock_all once for the lock's life (the thesis' [repo] way: one
 * passive epoch, then atomics and flushes only). `mem` is this rank's part, for direct local
 * polling (MPI.WIN_UNIFIED: remote updates are visible to plain loads of it).
 */
export class LockWindow {
  readonly win: Win;
  readonly mem: Uint8Array;
  readonly i32: Int32Array;
  private open = true;

  constructor(comm: Intracomm, bytes: number) {
    this.win = MPI.Win.Allocate(bytes, 1, MPI.INFO_NULL, comm);
    const m = this.win.tomemory();
    this.mem = m instanceof Uint8Array ? m : new Uint8Array(m as ArrayBuffer);
    this.i32 = new Int32Array(this.mem.buffer, this.mem.byteOffset, Math.floor(this.mem.byteLength / 4));
    this.win.Lock_all(0);
  }

  /** Collective. */
  free(): void {
    if (!this.open) return;
    this.open = false;
    this.win.Unlock_all();
    this.win.Free();
  }
}

/**
 * A node-shared window (Allocate_shared over ctx.node): every rank of the node reaches every
 * part with CPU loads, stores and Atomics (the thesis §3.6; local levels of NUMA locks).
 * `part(r)` is node rank r's part as an Int32Array.
 */
export class NodeSharedWindow {
  readonly win: Win;
  private readonly parts: Int32Array[] = [];

  constructor(node: Intracomm, bytes: number) {
    this.win = MPI.Win.Allocate_shared(bytes, 1, MPI.INFO_NULL, node);
    for (let r = 0; r < node.size; r++) {
      const [m] = this.win.Shared_query(r);
      this.parts.push(new Int32Array(m.buffer, m.byteOffset, Math.floor(m.byteLength / 4)));
    }
  }

  part(nodeRank: number): Int32Array {
    return this.parts[nodeRank]!;
  }

  free(): void {
    this.win.Free();
  }
}
