import v8 from 'node:v8';
import { describe } from './buffer.js';
import { type Call, type Schedule, decode, decodeV, decodeW, execute, newSchedule } from './coll/common.js';
import { COMM_NULL, Comm, Intracomm, type CommCore } from './comm.js';
import { dupComm, splitComm } from './comm-manage.js';
import { PROC_NULL, UNDEFINED } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { checkInfo } from './info.js';
import type { Request } from './request.js';
import { runtime } from './runtime.js';
import type { BufSpec, BufSpecV, BufSpecW, InfoArg } from './types.js';

/**
 * Process topologies, mpi4py-style: comm.Create_cart / Create_graph / Create_dist_graph_adjacent
 * make an MPI.Cartcomm / Graphcomm / Distgraphcomm (each an Intracomm that also knows its
 * neighbours); MPI.Compute_dims balances a grid. Ranks are never reordered (reorder is allowed to
 * keep the order). The new communicator takes its context id the way Split does (comm-manage.ts).
 *
 * Neighbour collectives (Neighbor_allgather, Neighbor_alltoall, their v-variants and non-blocking
 * forms, and the object forms neighbor_allgather / neighbor_alltoall, which send sizes first) are
 * schedules of the collectives engine (coll/schedule.ts): point-to-point on the communicator's
 * collective context (ctx + 1) with its next collective tag, advanced by the engine's progress
 * hook. Block order is the standard's: a Cartcomm's neighbours are, per dimension d, the source
 * then the destination of Shift(d, 1). A Cartcomm moves one direction per round, so when source
 * and destination are one process (a periodic dimension of size 1 or 2) the block sent towards
 * the destination still lands in the receiver's source block, and back.
 */

/** Topology kinds of comm.Get_topology (MPICH's values). */
export const GRAPH = 1;
export const CART = 2;
export const DIST_GRAPH = 3;

function show(x: unknown): string {
  return typeof x === 'number' ? String(x) : describe(x);
}

function intArray(comm: Comm, call: string, what: string, x: unknown, errorClass: number = ErrorClass.ERR_ARG): number[] {
  if (!(Array.isArray(x) || ArrayBuffer.isView(x))) comm.fail(call, errorClass, `${what} must be an array of integers, got ${describe(x)}`);
  const out = Array.from(x as ArrayLike<number>);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isInteger(out[i])) comm.fail(call, errorClass, `${what}[${i}] is ${show(out[i])}, not an integer`);
  }
  return out;
}

// ------------------------------------------------------------------ Compute_dims

/**
 * MPI.Compute_dims: a grid of nnodes processes in dims.length (or `dims`, if a number)
 * dimensions. Non-zero entries are kept; zeros are filled so that the free dimensions are as
 * close to each other as possible (smallest largest-minus-smallest, then smallest largest),
 * in non-increasing order. MPI.ERR_DIMS when nnodes is not a multiple of the fixed entries.
 */
export function computeDims(nnodes: number, dims: number | ArrayLike<number>): number[] {
  const fail = (message: string): never => {
    throw new MPIException(ErrorClass.ERR_DIMS, `MPI.Compute_dims: ${message}`);
  };
  if (!(Number.isInteger(nnodes) && nnodes > 0)) fail(`nnodes ${show(nnodes)} is invalid (expected a positive integer)`);
  const out = typeof dims === 'number' ? new Array<number>(Number.isInteger(dims) && dims >= 0 ? dims : fail(
    `ndims ${show(dims)} is invalid (expected a non-negative integer)`)).fill(0) : Array.from(dims);
  let fixed = 1;
  let free = 0;
  for (let i = 0; i < out.length; i++) {
    const d = out[i]!;
    if (!(Number.isInteger(d) && d >= 0)) fail(`dims[${i}] is ${show(d)} (expected 0 or a positive integer)`);
    if (d > 0) fixed *= d;
    else free++;
  }
  if (nnodes % fixed !== 0) fail(`nnodes ${nnodes} is not a multiple of the product ${fixed} of the non-zero dims`);
  const rest = nnodes / fixed;
  if (free === 0) {
    if (rest !== 1) fail(`the dims multiply to ${fixed}, not nnodes ${nnodes}, and none is free`);
    return out;
  }
  const factors = balancedFactors(rest, free);
  for (let i = 0, j = 0; i < out.length; i++) if (out[i] === 0) out[i] = factors[j++]!;
  return out;
}

/** The k factors of n (non-increasing) with the smallest spread, then the smallest largest factor. */
function balancedFactors(n: number, k: number): number[] {
  let best: number[] | null = null;
  const current: number[] = [];
  // Factors are chosen non-increasing: the next one divides what is left and is at most the last.
  const search = (left: number, slots: number, max: number): void => {
    if (slots === 1) {
      if (left > max) return;
      current.push(left);
      const spread = current[0]! - left;
      if (best === null || spread < best[0]! - best[best.length - 1]! ||
          (spread === best[0]! - best[best.length - 1]! && current[0]! < best[0]!)) best = current.slice();
      current.pop();
      return;
    }
    // The largest remaining factor is at least the slots-th root of what is left.
    const low = Math.max(1, Math.ceil(Math.pow(left, 1 / slots) - 1e-9));
    for (let f = Math.min(max, left); f >= low; f--) {
      if (left % f !== 0) continue;
      current.push(f);
      search(left / f, slots - 1, f);
      current.pop();
    }
  };
  search(n, k, n);
  return best!;
}

// -------------------------------------------------------------- constructors

/** Our process in a new topology communicator, or COMM_NULL for callers left out. */
function members(comm: Intracomm, call: string, nnodes: number): CommCore | null {
  const core = comm.coreFor(call);
  if (nnodes > core.size) {
    comm.fail(call, ErrorClass.ERR_ARG, `the topology has ${nnodes} nodes, more than the ${core.size} processes of the communicator`);
  }
  return splitComm(comm, core, core.rank < nnodes ? 0 : UNDEFINED, core.rank, call);
}

function adopt<T extends Intracomm>(parent: Comm, made: T): T {
  made.Set_errhandler(parent.Get_errhandler());
  return made;
}

function createCart(this: Intracomm, dims: ArrayLike<number>, periods: ArrayLike<boolean | number> | boolean = false,
                    reorder = false): Cartcomm | Intracomm {
  const call = 'Create_cart';
  const d = intArray(this, call, 'dims', dims, ErrorClass.ERR_DIMS);
  let nnodes = 1;
  for (let i = 0; i < d.length; i++) {
    if (d[i]! <= 0) this.fail(call, ErrorClass.ERR_DIMS, `dims[${i}] is ${d[i]} (expected a positive integer)`);
    nnodes *= d[i]!;
  }
  const p = typeof periods === 'boolean' ? new Array<boolean>(d.length).fill(periods) : Array.from(periods, Boolean);
  if (p.length !== d.length) this.fail(call, ErrorClass.ERR_ARG, `periods has ${p.length} entries, dims ${d.length}`);
  void reorder;
  const core = members(this, call, nnodes);
  if (core === null) return COMM_NULL;
  return adopt(this, new Cartcomm(`cart#${core.ctx}`, core, d, p));
}

function createGraph(this: Intracomm, index: ArrayLike<number>, edges: ArrayLike<number>, reorder = false): Graphcomm | Intracomm {
  const call = 'Create_graph';
  const ix = intArray(this, call, 'index', index, ErrorClass.ERR_TOPOLOGY);
  const ed = intArray(this, call, 'edges', edges, ErrorClass.ERR_TOPOLOGY);
  const nnodes = ix.length;
  for (let i = 0; i < nnodes; i++) {
    if (ix[i]! < (i === 0 ? 0 : ix[i - 1]!) || ix[i]! > ed.length) {
      this.fail(call, ErrorClass.ERR_TOPOLOGY, `index must be non-decreasing and at most edges.length ${ed.length}; ` +
        `index[${i}] is ${ix[i]}`);
    }
  }
  if (nnodes > 0 && ix[nnodes - 1] !== ed.length) {
    this.fail(call, ErrorClass.ERR_TOPOLOGY, `index[${nnodes - 1}] is ${ix[nnodes - 1]}, not edges.length ${ed.length}`);
  }
  for (let i = 0; i < ed.length; i++) {
    if (ed[i]! < 0 || ed[i]! >= nnodes) {
      this.fail(call, ErrorClass.ERR_TOPOLOGY, `edges[${i}] is ${ed[i]} (expected a node 0..${nnodes - 1})`);
    }
  }
  void reorder;
  const core = members(this, call, nnodes);
  if (core === null) return COMM_NULL;
  return adopt(this, new Graphcomm(`graph#${core.ctx}`, core, ix, ed));
}

function createDistGraphAdjacent(this: Intracomm, sources: ArrayLike<number>, destinations: ArrayLike<number>,
                                 sourceweights: ArrayLike<number> | null = null, destweights: ArrayLike<number> | null = null,
                                 info: InfoArg | undefined = undefined, reorder = false): Distgraphcomm {
  const call = 'Create_dist_graph_adjacent';
  const core = this.coreFor(call);
  const badInfo = checkInfo(info);
  if (badInfo !== null) this.fail(call, ErrorClass.ERR_INFO, badInfo);
  const src = intArray(this, call, 'sources', sources, ErrorClass.ERR_RANK);
  const dst = intArray(this, call, 'destinations', destinations, ErrorClass.ERR_RANK);
  for (const [what, list] of [['sources', src], ['destinations', dst]] as const) {
    for (let i = 0; i < list.length; i++) {
      if (list[i]! < 0 || list[i]! >= core.size) {
        this.fail(call, ErrorClass.ERR_RANK, `${what}[${i}] is ${list[i]} (expected 0..${core.size - 1})`);
      }
    }
  }
  const sw = sourceweights === null ? null : intArray(this, call, 'sourceweights', sourceweights);
  const dw = destweights === null ? null : intArray(this, call, 'destweights', destweights);
  if ((sw !== null && sw.length !== src.length) || (dw !== null && dw.length !== dst.length)) {
    this.fail(call, ErrorClass.ERR_ARG, 'a weights array must have one entry per neighbour');
  }
  void reorder;
  const made = dupComm(this, core);
  return adopt(this, new Distgraphcomm(`distgraph#${made.ctx}`, made, src, dst, sw, dw));
}

/**
 * comm.Create_dist_graph: each process names any edges (sources[i] → degrees[i] destinations
 * from `destinations`); an allgather of every process's edges tells each process its own in- and
 * out-neighbours, both in the order of the edges (process by process, then as listed), which is
 * the order messages between two processes are sent and received in.
 */
function createDistGraph(this: Intracomm, sources: ArrayLike<number>, degrees: ArrayLike<number>, destinations: ArrayLike<number>,
                         weights: ArrayLike<number> | null = null, info: InfoArg | undefined = undefined, reorder = false): Distgraphcomm {
  const call = 'Create_dist_graph';
  const core = this.coreFor(call);
  const badInfo = checkInfo(info);
  if (badInfo !== null) this.fail(call, ErrorClass.ERR_INFO, badInfo);
  const src = intArray(this, call, 'sources', sources, ErrorClass.ERR_RANK);
  const deg = intArray(this, call, 'degrees', degrees);
  const dst = intArray(this, call, 'destinations', destinations, ErrorClass.ERR_RANK);
  if (deg.length !== src.length) this.fail(call, ErrorClass.ERR_ARG, `degrees has ${deg.length} entries, sources ${src.length}`);
  let edges = 0;
  for (let i = 0; i < deg.length; i++) {
    if (deg[i]! < 0) this.fail(call, ErrorClass.ERR_ARG, `degrees[${i}] is ${deg[i]} (expected a non-negative integer)`);
    edges += deg[i]!;
  }
  if (edges > dst.length) this.fail(call, ErrorClass.ERR_ARG, `the degrees add up to ${edges}, more than the ${dst.length} destinations`);
  for (const [what, list] of [['sources', src], ['destinations', dst]] as const) {
    for (let i = 0; i < list.length; i++) {
      if (list[i]! < 0 || list[i]! >= core.size) {
        this.fail(call, ErrorClass.ERR_RANK, `${what}[${i}] is ${list[i]} (expected 0..${core.size - 1})`);
      }
    }
  }
  const w = weights === null ? null : intArray(this, call, 'weights', weights);
  if (w !== null && w.length < edges) this.fail(call, ErrorClass.ERR_ARG, `weights has ${w.length} entries for ${edges} edges`);
  void reorder;
  const all = this.allgather({ src, deg, dst, w }) as Array<{ src: number[]; deg: number[]; dst: number[]; w: number[] | null }>;
  const ins: number[] = [];
  const outs: number[] = [];
  const inW: number[] = [];
  const outW: number[] = [];
  let weighted = false;
  for (const p of all) {
    if (p.w !== null) weighted = true;
    for (let i = 0, e = 0; i < p.src.length; i++) {
      for (let k = 0; k < p.deg[i]!; k++, e++) {
        const from = p.src[i]!;
        const to = p.dst[e]!;
        const weight = p.w === null ? 1 : p.w[e]!;
        if (from === core.rank) { outs.push(to); outW.push(weight); }
        if (to === core.rank) { ins.push(from); inW.push(weight); }
      }
    }
  }
  const made = dupComm(this, core);
  return adopt(this, new Distgraphcomm(`distgraph#${made.ctx}`, made, ins, outs, weighted ? inW : null, weighted ? outW : null));
}

/** comm.Cart_map: the rank this process would have in Create_cart(dims, periods) (no reordering), or MPI.UNDEFINED. */
function cartMap(this: Intracomm, dims: ArrayLike<number>, periods: ArrayLike<boolean | number> | boolean = false): number {
  const core = this.coreFor('Cart_map');
  const d = intArray(this, 'Cart_map', 'dims', dims, ErrorClass.ERR_DIMS);
  void periods;
  let nnodes = 1;
  for (let i = 0; i < d.length; i++) {
    if (d[i]! <= 0) this.fail('Cart_map', ErrorClass.ERR_DIMS, `dims[${i}] is ${d[i]} (expected a positive integer)`);
    nnodes *= d[i]!;
  }
  if (nnodes > core.size) this.fail('Cart_map', ErrorClass.ERR_ARG, `the grid has ${nnodes} nodes, more than the ${core.size} processes`);
  return core.rank < nnodes ? core.rank : UNDEFINED;
}

/** comm.Graph_map: the rank this process would have in Create_graph(index, edges) (no reordering), or MPI.UNDEFINED. */
function graphMap(this: Intracomm, index: ArrayLike<number>, edges: ArrayLike<number>): number {
  const core = this.coreFor('Graph_map');
  const nnodes = intArray(this, 'Graph_map', 'index', index, ErrorClass.ERR_TOPOLOGY).length;
  void edges;
  if (nnodes > core.size) this.fail('Graph_map', ErrorClass.ERR_ARG, `the graph has ${nnodes} nodes, more than the ${core.size} processes`);
  return core.rank < nnodes ? core.rank : UNDEFINED;
}

declare module './comm.js' {
  interface Intracomm {
    /** The rank this process would have in Create_cart(dims, periods), or MPI.UNDEFINED. */
    Cart_map(dims: ArrayLike<number>, periods?: ArrayLike<boolean | number> | boolean): number;
    /** The rank this process would have in Create_graph(index, edges), or MPI.UNDEFINED. */
    Graph_map(index: ArrayLike<number>, edges: ArrayLike<number>): number;
    /** Collective: a Cartcomm on a dims grid (periods: per dimension or for all); processes beyond it get COMM_NULL. */
    Create_cart(dims: ArrayLike<number>, periods?: ArrayLike<boolean | number> | boolean, reorder?: boolean): Cartcomm;
    /** Collective: a Graphcomm (MPI's index/edges form); processes beyond index.length get COMM_NULL. */
    Create_graph(index: ArrayLike<number>, edges: ArrayLike<number>, reorder?: boolean): Graphcomm;
    /** Collective: a Distgraphcomm where each process names its own in- and out-neighbours. */
    Create_dist_graph_adjacent(sources: ArrayLike<number>, destinations: ArrayLike<number>,
                               sourceweights?: ArrayLike<number> | null, destweights?: ArrayLike<number> | null,
                               info?: InfoArg, reorder?: boolean): Distgraphcomm;
    /** Collective: a Distgraphcomm from edges any process may name (sources[i] → degrees[i] of destinations). */
    Create_dist_graph(sources: ArrayLike<number>, degrees: ArrayLike<number>, destinations: ArrayLike<number>,
                      weights?: ArrayLike<number> | null, info?: InfoArg, reorder?: boolean): Distgraphcomm;
  }
}

Intracomm.prototype.Create_cart = createCart as Intracomm['Create_cart'];
Intracomm.prototype.Create_graph = createGraph as Intracomm['Create_graph'];
Intracomm.prototype.Create_dist_graph_adjacent = createDistGraphAdjacent;
Intracomm.prototype.Create_dist_graph = createDistGraph;
Intracomm.prototype.Cart_map = cartMap;
Intracomm.prototype.Graph_map = graphMap;

// ------------------------------------------------------------ neighbour traffic

/** One round of a neighbour collective: blocks to receive from and to send to, as (block, rank). */
interface NeighborRound {
  readonly recvs: ReadonlyArray<readonly [number, number]>;
  readonly sends: ReadonlyArray<readonly [number, number]>;
}

/** A topology communicator: an Intracomm that knows its in- and out-neighbours. */
abstract class Topocomm extends Intracomm {
  /** The number of blocks of recvbuf (in-neighbours, PROC_NULL included). */
  protected abstract inDegree(): number;
  /** The number of blocks of an alltoall sendbuf (out-neighbours, PROC_NULL included). */
  protected abstract outDegree(): number;
  /** The rounds of a neighbour collective (PROC_NULL entries are skipped). */
  protected abstract neighborRounds(): NeighborRound[];

  /** Collective: each out-neighbour gets sendbuf; block i of recvbuf is what in-neighbour i sent. */
  Neighbor_allgather(sendbuf: BufSpec, recvbuf: BufSpec): void {
    this.neighbor('Neighbor_allgather', sendbuf, recvbuf, false, false);
  }

  /** Collective: block i of sendbuf goes to out-neighbour i; block i of recvbuf comes from in-neighbour i. */
  Neighbor_alltoall(sendbuf: BufSpec, recvbuf: BufSpec): void {
    this.neighbor('Neighbor_alltoall', sendbuf, recvbuf, true, false);
  }

  /** Non-blocking Neighbor_allgather: the buffers belong to MPI until the request completes. */
  Ineighbor_allgather(sendbuf: BufSpec, recvbuf: BufSpec): Request {
    return this.neighbor('Ineighbor_allgather', sendbuf, recvbuf, false, true)!;
  }

  /** Non-blocking Neighbor_alltoall: the buffers belong to MPI until the request completes. */
  Ineighbor_alltoall(sendbuf: BufSpec, recvbuf: BufSpec): Request {
    return this.neighbor('Ineighbor_alltoall', sendbuf, recvbuf, true, true)!;
  }

  /** Collective: like Neighbor_allgather, block i of recvbuf ([buf, [counts, displs], datatype]) sized per in-neighbour. */
  Neighbor_allgatherv(sendbuf: BufSpec, recvbuf: BufSpecV): void {
    this.neighborV('Neighbor_allgatherv', sendbuf, recvbuf, false, false);
  }

  /** Collective: like Neighbor_alltoall with [buf, [counts, displs], datatype] on both sides. */
  Neighbor_alltoallv(sendbuf: BufSpecV, recvbuf: BufSpecV): void {
    this.neighborV('Neighbor_alltoallv', sendbuf, recvbuf, true, false);
  }

  Ineighbor_allgatherv(sendbuf: BufSpec, recvbuf: BufSpecV): Request {
    return this.neighborV('Ineighbor_allgatherv', sendbuf, recvbuf, false, true)!;
  }

  Ineighbor_alltoallv(sendbuf: BufSpecV, recvbuf: BufSpecV): Request {
    return this.neighborV('Ineighbor_alltoallv', sendbuf, recvbuf, true, true)!;
  }

  /**
   * Collective: like Neighbor_alltoallv with one datatype per neighbour and byte displacements:
   * [buf, [counts, displs], datatypes] on both sides.
   */
  Neighbor_alltoallw(sendbuf: BufSpecW, recvbuf: BufSpecW): void {
    this.neighborW('Neighbor_alltoallw', sendbuf, recvbuf, false);
  }

  Ineighbor_alltoallw(sendbuf: BufSpecW, recvbuf: BufSpecW): Request {
    return this.neighborW('Ineighbor_alltoallw', sendbuf, recvbuf, true)!;
  }

  /** The w-variant: blocks of per-neighbour datatypes at byte displacements (packed when non-contiguous). */
  private neighborW(name: string, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
    const c: Call = { comm: this, core: this.live(name), world: runtime.requireRunning(name), name };
    const recv = decodeW(c, recvbuf, 'recvbuf', this.inDegree());
    const send = decodeW(c, sendbuf, 'sendbuf', this.outDegree());
    const recvBlock = (i: number): Uint8Array => recv.data.subarray(recv.off[i]!, recv.off[i]! + recv.len[i]!);
    const sendBlock = (j: number): Uint8Array => send.data.subarray(send.off[j]!, send.off[j]! + send.len[j]!);
    return execute(c, this.neighborSchedule(c, sendBlock, recvBlock), nonblocking);
  }

  /** The v-variants: blocks where counts and displs (in elements of the datatype) put them. */
  private neighborV(name: string, sendbuf: unknown, recvbuf: unknown, alltoall: boolean, nonblocking: boolean): Request | undefined {
    const c: Call = { comm: this, core: this.live(name), world: runtime.requireRunning(name), name };
    const recv = decodeV(c, recvbuf, 'recvbuf', this.inDegree());
    const recvBlock = (i: number): Uint8Array =>
      recv.data.subarray(recv.displs[i]! * recv.datatype.size, (recv.displs[i]! + recv.counts[i]!) * recv.datatype.size);
    let sendBlock: (j: number) => Uint8Array;
    if (alltoall) {
      const send = decodeV(c, sendbuf, 'sendbuf', this.outDegree());
      sendBlock = (j) => send.data.subarray(send.displs[j]! * send.datatype.size, (send.displs[j]! + send.counts[j]!) * send.datatype.size);
    } else {
      const send = decode(c, sendbuf, 'sendbuf').bytes;
      sendBlock = () => send;
    }
    return execute(c, this.neighborSchedule(c, sendBlock, recvBlock), nonblocking);
  }

  /**
   * Builds the schedule of a neighbour collective (coll/schedule.ts: the communicator's next
   * collective tag on ctx + 1) and runs it, or returns its Request. Messages to ourselves are
   * local copies, paired in order within a round.
   */
  private neighbor(name: string, sendbuf: unknown, recvbuf: unknown, alltoall: boolean, nonblocking: boolean): Request | undefined {
    const c: Call = { comm: this, core: this.live(name), world: runtime.requireRunning(name), name };
    const send = decode(c, sendbuf, 'sendbuf').bytes;
    const recv = decode(c, recvbuf, 'recvbuf').bytes;
    const nIn = this.inDegree();
    const nOut = this.outDegree();
    let block = send.length;
    if (alltoall) {
      if (nOut > 0 && send.length % nOut !== 0) {
        this.fail(name, ErrorClass.ERR_COUNT, `sendbuf of ${send.length} bytes does not split into ${nOut} equal blocks`);
      }
      block = nOut === 0 ? 0 : send.length / nOut;
    }
    // Blocks have one size everywhere (the standard's matching type signatures): recvbuf holds
    // the in-neighbours' blocks one after the other from its start.
    if (recv.length < nIn * block) {
      this.fail(name, ErrorClass.ERR_BUFFER, `recvbuf of ${recv.length} bytes holds less than ${nIn} blocks of ${block} bytes`);
    }
    const sendBlock = (j: number): Uint8Array => (alltoall ? send.subarray(j * block, (j + 1) * block) : send);
    const recvBlock = (i: number): Uint8Array => recv.subarray(i * block, (i + 1) * block);
    return execute(c, this.neighborSchedule(c, sendBlock, recvBlock), nonblocking);
  }

  /** Collective: each out-neighbour gets obj; the values of the in-neighbours, in order (null for MPI.PROC_NULL). */
  neighbor_allgather<T>(obj: T): Array<T | null> {
    const bytes = v8.serialize(obj);
    return this.neighborObjects('neighbor_allgather', () => bytes) as Array<T | null>;
  }

  /** Collective: objs[i] goes to out-neighbour i; the values of the in-neighbours, in order (null for MPI.PROC_NULL). */
  neighbor_alltoall<T>(objs: readonly T[]): Array<T | null> {
    const nOut = this.outDegree();
    if (!Array.isArray(objs) || objs.length !== nOut) {
      this.fail('neighbor_alltoall', ErrorClass.ERR_ARG, `objs must be an array of ${nOut} values (one per out-neighbour), ` +
        `got ${Array.isArray(objs) ? `${objs.length} values` : describe(objs)}`);
    }
    const bytes = objs.map((o) => v8.serialize(o));
    return this.neighborObjects('neighbor_alltoall', (j) => bytes[j]!) as Array<T | null>;
  }

  /** Object forms: the sizes first (one int32 per block), then the serialized values. */
  private neighborObjects(name: string, sendBytes: (j: number) => Uint8Array): unknown[] {
    const c: Call = { comm: this, core: this.live(name), world: runtime.requireRunning(name), name };
    const nIn = this.inDegree();
    const nOut = this.outDegree();
    const sendSizes = new Int32Array(nOut);
    for (let j = 0; j < nOut; j++) sendSizes[j] = sendBytes(j).length;
    const sizes = new Int32Array(nIn).fill(-1);
    const sendSizeBytes = new Uint8Array(sendSizes.buffer);
    const sizeBytes = new Uint8Array(sizes.buffer);
    execute(c, this.neighborSchedule(c, (j) => sendSizeBytes.subarray(4 * j, 4 * j + 4),
      (i) => sizeBytes.subarray(4 * i, 4 * i + 4)), false);
    const received = Array.from(sizes, (n) => (n < 0 ? null : new Uint8Array(n)));
    execute(c, this.neighborSchedule(c, sendBytes, (i) => received[i]!), false);
    return received.map((b) => (b === null ? null : v8.deserialize(b)));
  }

  /** One schedule of a neighbour collective: block i of the receive side from in-neighbour i, block j to out-neighbour j. */
  private neighborSchedule(c: Call, sendBlock: (j: number) => Uint8Array, recvBlock: (i: number) => Uint8Array): Schedule {
    const name = c.name;
    const me = c.core.rank;
    const s = newSchedule(c);
    for (const round of this.neighborRounds()) {
      s.round();
      const selfRecvs: number[] = [];
      const selfSends: number[] = [];
      for (const [i, r] of round.recvs) {
        if (r === me) selfRecvs.push(i);
        else if (r !== PROC_NULL) s.recv(recvBlock(i), r);
      }
      for (const [j, r] of round.sends) {
        if (r === me) selfSends.push(j);
        else if (r !== PROC_NULL) s.send(sendBlock(j), r);
      }
      if (selfRecvs.length !== selfSends.length) {
        this.fail(name, ErrorClass.ERR_TOPOLOGY, `this process is its own in-neighbour ${selfRecvs.length} times but its ` +
          `own out-neighbour ${selfSends.length} times`);
      }
      for (let k = 0; k < selfRecvs.length; k++) {
        const to = recvBlock(selfRecvs[k]!);
        const from = sendBlock(selfSends[k]!);
        if (to.length !== from.length) {
          this.fail(name, ErrorClass.ERR_COUNT, `this process sends itself ${from.length} bytes where ${to.length} are expected`);
        }
        s.local(() => to.set(from));
      }
    }
    return s;
  }
}

// ------------------------------------------------------------------- Cartcomm

/** A communicator on a Cartesian grid (row-major: the last dimension varies fastest). */
export class Cartcomm extends Topocomm {
  private readonly myCoords: number[];
  private readonly neighbors: number[] = [];

  /** @internal Made by comm.Create_cart, Create_graph, Create_dist_graph(_adjacent), Sub and Dup. */
  constructor(name: string, core: CommCore, private readonly cartDims: number[], private readonly cartPeriods: boolean[]) {
    super(name, core);
    this.myCoords = this.coordsOf(core.rank);
    for (let d = 0; d < cartDims.length; d++) this.neighbors.push(...this.shift(d, 1));
  }

  override Get_topology(): number {
    this.live('Get_topology');
    return CART;
  }

  get ndim(): number { return this.cartDims.length; }
  get dims(): number[] { return this.cartDims.slice(); }
  get periods(): boolean[] { return this.cartPeriods.slice(); }
  get coords(): number[] { return this.myCoords.slice(); }
  get topo(): [number[], boolean[], number[]] { return this.Get_topo(); }

  Get_dim(): number {
    this.live('Get_dim');
    return this.cartDims.length;
  }

  /** [dims, periods, coords of this process]. */
  Get_topo(): [number[], boolean[], number[]] {
    this.live('Get_topo');
    return [this.cartDims.slice(), this.cartPeriods.slice(), this.myCoords.slice()];
  }

  /** The coordinates of `rank`. */
  Get_coords(rank: number): number[] {
    const core = this.live('Get_coords');
    if (!(Number.isInteger(rank) && rank >= 0 && rank < core.size)) {
      this.fail('Get_coords', ErrorClass.ERR_RANK, `rank ${show(rank)} is out of range (expected 0..${core.size - 1})`);
    }
    return this.coordsOf(rank);
  }

  /** The rank at `coords`; periodic dimensions wrap, others raise MPI.ERR_RANK out of range. */
  Get_cart_rank(coords: ArrayLike<number>): number {
    this.live('Get_cart_rank');
    const c = intArray(this, 'Get_cart_rank', 'coords', coords);
    if (c.length !== this.cartDims.length) {
      this.fail('Get_cart_rank', ErrorClass.ERR_ARG, `coords has ${c.length} entries; the grid has ${this.cartDims.length} dimensions`);
    }
    let rank = 0;
    for (let d = 0; d < c.length; d++) {
      const n = this.cartDims[d]!;
      let x = c[d]!;
      if (x < 0 || x >= n) {
        if (!this.cartPeriods[d]) {
          this.fail('Get_cart_rank', ErrorClass.ERR_RANK, `coords[${d}] is ${x}, outside 0..${n - 1} of a non-periodic dimension`);
        }
        x = ((x % n) + n) % n;
      }
      rank = rank * n + x;
    }
    return rank;
  }

  /** [source, dest]: the ranks `disp` steps back and forward along `direction` (MPI.PROC_NULL off a non-periodic edge). */
  Shift(direction: number, disp = 1): [number, number] {
    this.live('Shift');
    if (!(Number.isInteger(direction) && direction >= 0 && direction < this.cartDims.length)) {
      this.fail('Shift', ErrorClass.ERR_DIMS, `direction ${show(direction)} is out of range (expected 0..${this.cartDims.length - 1})`);
    }
    if (!Number.isInteger(disp)) this.fail('Shift', ErrorClass.ERR_ARG, `disp ${show(disp)} is not an integer`);
    return this.shift(direction, disp);
  }

  /** Collective: the sub-grids keeping the dimensions where remain_dims is true (one per value of the others). */
  Sub(remain_dims: ArrayLike<boolean | number>): Cartcomm {
    const core = this.live('Sub');
    const keep = Array.from(remain_dims, Boolean);
    if (keep.length !== this.cartDims.length) {
      this.fail('Sub', ErrorClass.ERR_ARG, `remain_dims has ${keep.length} entries; the grid has ${this.cartDims.length} dimensions`);
    }
    let color = 0;
    for (let d = 0; d < keep.length; d++) if (!keep[d]) color = color * this.cartDims[d]! + this.myCoords[d]!;
    const sub = splitComm(this, core, color, core.rank, 'Sub')!;
    const dims = this.cartDims.filter((_, d) => keep[d]);
    const periods = this.cartPeriods.filter((_, d) => keep[d]);
    return adopt(this, new Cartcomm(`cart#${sub.ctx}`, sub, dims, periods));
  }

  /** Collective: the same grid on a new context, with the attributes copy_fn keeps. */
  override Dup(info?: InfoArg): this {
    const parent = this.live('Dup');
    this.checkInfoArg('Dup', info);
    const core = dupComm(this, parent);
    const made = adopt(this, new Cartcomm(`cart#${core.ctx}`, core, this.cartDims, this.cartPeriods));
    this.inherit(made, info);
    return made as this;
  }

  protected inDegree(): number { return this.neighbors.length; }
  protected outDegree(): number { return this.neighbors.length; }
  /**
   * Two rounds per dimension d: towards the destination (block 2d + 1 to it, block 2d from the
   * source), then back (block 2d to the source, block 2d + 1 from the destination). One
   * direction per round keeps the blocks apart where source and destination are one process.
   */
  protected neighborRounds(): NeighborRound[] {
    const rounds: NeighborRound[] = [];
    for (let d = 0; d < this.cartDims.length; d++) {
      const src = this.neighbors[2 * d]!;
      const dst = this.neighbors[2 * d + 1]!;
      rounds.push({ sends: [[2 * d + 1, dst]], recvs: [[2 * d, src]] });
      rounds.push({ sends: [[2 * d, src]], recvs: [[2 * d + 1, dst]] });
    }
    return rounds;
  }

  private coordsOf(rank: number): number[] {
    const coords = new Array<number>(this.cartDims.length);
    for (let d = this.cartDims.length - 1; d >= 0; d--) {
      coords[d] = rank % this.cartDims[d]!;
      rank = Math.floor(rank / this.cartDims[d]!);
    }
    return coords;
  }

  private shift(direction: number, disp: number): [number, number] {
    const at = (step: number): number => {
      const c = this.myCoords.slice();
      const n = this.cartDims[direction]!;
      const x = c[direction]! + step;
      if ((x < 0 || x >= n) && !this.cartPeriods[direction]) return PROC_NULL;
      c[direction] = ((x % n) + n) % n;
      let rank = 0;
      for (let d = 0; d < c.length; d++) rank = rank * this.cartDims[d]! + c[d]!;
      return rank;
    };
    return [at(-disp), at(disp)];
  }
}

// ------------------------------------------------------------------ Graphcomm

/** A communicator on a graph given in MPI's (index, edges) form; neighbours are both in and out. */
export class Graphcomm extends Topocomm {
  /** @internal Made by comm.Create_cart, Create_graph, Create_dist_graph(_adjacent), Sub and Dup. */
  constructor(name: string, core: CommCore, private readonly index: number[], private readonly edges: number[]) {
    super(name, core);
  }

  override Get_topology(): number {
    this.live('Get_topology');
    return GRAPH;
  }

  get nnodes(): number { return this.index.length; }
  get nedges(): number { return this.edges.length; }
  get topo(): [number[], number[]] { return this.Get_topo(); }

  /** [nnodes, nedges]. */
  Get_dims(): [number, number] {
    this.live('Get_dims');
    return [this.index.length, this.edges.length];
  }

  /** [index, edges]. */
  Get_topo(): [number[], number[]] {
    this.live('Get_topo');
    return [this.index.slice(), this.edges.slice()];
  }

  /** The neighbours of `rank`, in edge order. */
  Get_neighbors(rank: number): number[] {
    this.checkNode('Get_neighbors', rank);
    return this.edges.slice(rank === 0 ? 0 : this.index[rank - 1]!, this.index[rank]!);
  }

  Get_neighbors_count(rank: number): number {
    this.checkNode('Get_neighbors_count', rank);
    return this.index[rank]! - (rank === 0 ? 0 : this.index[rank - 1]!);
  }

  override Dup(info?: InfoArg): this {
    const parent = this.live('Dup');
    this.checkInfoArg('Dup', info);
    const core = dupComm(this, parent);
    const made = adopt(this, new Graphcomm(`graph#${core.ctx}`, core, this.index, this.edges));
    this.inherit(made, info);
    return made as this;
  }

  private mine(): number[] { return this.Get_neighbors(this.live('neighbours').rank); }
  protected inDegree(): number { return this.mine().length; }
  protected outDegree(): number { return this.mine().length; }
  /** One round: every neighbour at once (repeated edges match in order). */
  protected neighborRounds(): NeighborRound[] {
    const mine = this.mine();
    const pairs = mine.map((r, i) => [i, r] as const);
    return [{ recvs: pairs, sends: pairs }];
  }

  private checkNode(call: string, rank: number): void {
    this.live(call);
    if (!(Number.isInteger(rank) && rank >= 0 && rank < this.index.length)) {
      this.fail(call, ErrorClass.ERR_RANK, `rank ${show(rank)} is out of range (expected 0..${this.index.length - 1})`);
    }
  }
}

// -------------------------------------------------------------- Distgraphcomm

/** A communicator where each process knows only its own in- (sources) and out-neighbours (destinations). */
export class Distgraphcomm extends Topocomm {
  /** @internal Made by comm.Create_cart, Create_graph, Create_dist_graph(_adjacent), Sub and Dup. */
  constructor(name: string, core: CommCore, private readonly sources: number[], private readonly destinations: number[],
              private readonly sourceweights: number[] | null, private readonly destweights: number[] | null) {
    super(name, core);
  }

  override Get_topology(): number {
    this.live('Get_topology');
    return DIST_GRAPH;
  }

  /** [indegree, outdegree, weighted]. */
  Get_dist_neighbors_count(): [number, number, boolean] {
    this.live('Get_dist_neighbors_count');
    return [this.sources.length, this.destinations.length, this.sourceweights !== null || this.destweights !== null];
  }

  /** [sources, destinations, [sourceweights, destweights] or null when unweighted]. */
  Get_dist_neighbors(): [number[], number[], [number[] | null, number[] | null] | null] {
    this.live('Get_dist_neighbors');
    const weighted = this.sourceweights !== null || this.destweights !== null;
    return [this.sources.slice(), this.destinations.slice(),
      weighted ? [this.sourceweights?.slice() ?? null, this.destweights?.slice() ?? null] : null];
  }

  override Dup(info?: InfoArg): this {
    const parent = this.live('Dup');
    this.checkInfoArg('Dup', info);
    const core = dupComm(this, parent);
    const made = adopt(this, new Distgraphcomm(`distgraph#${core.ctx}`, core, this.sources, this.destinations,
      this.sourceweights, this.destweights));
    this.inherit(made, info);
    return made as this;
  }

  protected inDegree(): number { return this.sources.length; }
  protected outDegree(): number { return this.destinations.length; }
  /** One round: every neighbour at once (repeated edges match in order). */
  protected neighborRounds(): NeighborRound[] {
    return [{ recvs: this.sources.map((r, i) => [i, r] as const), sends: this.destinations.map((r, j) => [j, r] as const) }];
  }
}
