import { COMM_NULL, Intracomm, type CommCore } from '../comm.js';
import { dupComm, splitComm } from '../comm-manage.js';
import { UNDEFINED } from '../constants.js';
import { ErrorClass } from '../error-classes.js';
import { checkInfo } from '../info.js';
import type { InfoArg } from '../types.js';
import { Cartcomm } from './cartcomm.js';
import { intListProblem } from '../validate.js';
import { adopt, intArray } from './common.js';
import { Distgraphcomm } from './distgraphcomm.js';
import { Graphcomm } from './graphcomm.js';

/**
 * The topology constructors of an Intracomm (Create_cart, Create_graph,
 * Create_dist_graph_adjacent, Create_dist_graph) and the mapping queries (Cart_map, Graph_map),
 * installed on Intracomm's prototype here so that comm.ts does not import the topology classes
 * (which extend Intracomm). Ranks are never reordered (reorder is allowed to keep the order).
 * The new communicator takes its context id the way Split does (comm-manage.ts).
 */

/** Our process in a new topology communicator, or COMM_NULL for callers left out. */
function members(comm: Intracomm, call: string, nnodes: number): CommCore | null {
  const core = comm.coreFor(call);
  if (nnodes > core.size) {
    comm.fail(call, ErrorClass.ERR_ARG, `the topology has ${nnodes} nodes, more than the ${core.size} processes of the communicator`);
  }
  return splitComm(comm, core, core.rank < nnodes ? 0 : UNDEFINED, core.rank, call);
}

/** A grid's dims and periods (for all dimensions or per dimension), checked; with its number of nodes. */
function cartGrid(comm: Intracomm, call: string, dims: unknown, periods: unknown): { d: number[]; p: boolean[]; nnodes: number } {
  const d = intArray(comm, call, 'dims', dims, ErrorClass.ERR_DIMS);
  let nnodes = 1;
  for (let i = 0; i < d.length; i++) {
    if (d[i]! <= 0) comm.fail(call, ErrorClass.ERR_DIMS, `dims[${i}] is ${d[i]} (expected a positive integer)`);
    nnodes *= d[i]!;
  }
  if (typeof periods !== 'boolean') {
    const bad = intListProblem(periods, 'periods', -0x80000000, 0x7fffffff, { flags: true });
    if (bad !== null) comm.fail(call, ErrorClass.ERR_ARG, `${bad} (or one boolean for every dimension)`);
  }
  const p = typeof periods === 'boolean' ? new Array<boolean>(d.length).fill(periods) : Array.from(periods as ArrayLike<unknown>, Boolean);
  if (p.length !== d.length) comm.fail(call, ErrorClass.ERR_ARG, `periods has ${p.length} entries, dims ${d.length}`);
  return { d, p, nnodes };
}

function createCart(this: Intracomm, dims: ArrayLike<number>, periods: ArrayLike<boolean | number> | boolean = false,
                    reorder = false): Cartcomm | Intracomm {
  const call = 'Create_cart';
  const { d, p, nnodes } = cartGrid(this, call, dims, periods);
  void reorder;
  const core = members(this, call, nnodes);
  if (core === null) return COMM_NULL;
  return adopt(this, new Cartcomm(`cart#${core.ctx}`, core, d, p));
}

/** A graph in MPI's (index, edges) form, checked. */
function graphShape(comm: Intracomm, call: string, index: unknown, edges: unknown): { ix: number[]; ed: number[] } {
  const ix = intArray(comm, call, 'index', index, ErrorClass.ERR_TOPOLOGY);
  const ed = intArray(comm, call, 'edges', edges, ErrorClass.ERR_TOPOLOGY);
  const nnodes = ix.length;
  for (let i = 0; i < nnodes; i++) {
    if (ix[i]! < (i === 0 ? 0 : ix[i - 1]!) || ix[i]! > ed.length) {
      comm.fail(call, ErrorClass.ERR_TOPOLOGY, `index must be non-decreasing and at most edges.length ${ed.length}; ` +
        `index[${i}] is ${ix[i]}`);
    }
  }
  if (nnodes > 0 && ix[nnodes - 1] !== ed.length) {
    comm.fail(call, ErrorClass.ERR_TOPOLOGY, `index[${nnodes - 1}] is ${ix[nnodes - 1]}, not edges.length ${ed.length}`);
  }
  for (let i = 0; i < ed.length; i++) {
    if (ed[i]! < 0 || ed[i]! >= nnodes) {
      comm.fail(call, ErrorClass.ERR_TOPOLOGY, `edges[${i}] is ${ed[i]} (expected a node 0..${nnodes - 1})`);
    }
  }
  return { ix, ed };
}

function createGraph(this: Intracomm, index: ArrayLike<number>, edges: ArrayLike<number>, reorder = false): Graphcomm | Intracomm {
  const call = 'Create_graph';
  const { ix, ed } = graphShape(this, call, index, edges);
  const nnodes = ix.length;
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
  const { nnodes } = cartGrid(this, 'Cart_map', dims, periods);
  if (nnodes > core.size) this.fail('Cart_map', ErrorClass.ERR_ARG, `the grid has ${nnodes} nodes, more than the ${core.size} processes`);
  return core.rank < nnodes ? core.rank : UNDEFINED;
}

/** comm.Graph_map: the rank this process would have in Create_graph(index, edges) (no reordering), or MPI.UNDEFINED. */
function graphMap(this: Intracomm, index: ArrayLike<number>, edges: ArrayLike<number>): number {
  const core = this.coreFor('Graph_map');
  const nnodes = graphShape(this, 'Graph_map', index, edges).ix.length;
  if (nnodes > core.size) this.fail('Graph_map', ErrorClass.ERR_ARG, `the graph has ${nnodes} nodes, more than the ${core.size} processes`);
  return core.rank < nnodes ? core.rank : UNDEFINED;
}

declare module '../comm.js' {
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
