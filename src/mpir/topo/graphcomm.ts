import type { CommCore } from '../comm.js';
import { ErrorClass } from '../error-classes.js';
import { adopt, show } from './common.js';
import { type NeighborRound, Topocomm } from './neighbor-collectives.js';

/** comm.Get_topology of a Graphcomm (MPICH's value). */
export const GRAPH = 1;

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

  /** @internal The same graph on `core` (Dup, Idup). */
  override twin(core: CommCore): this {
    return adopt(this, new Graphcomm(`graph#${core.ctx}`, core, this.index, this.edges)) as this;
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
