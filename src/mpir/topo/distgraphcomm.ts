import type { CommCore } from '../comm.js';
import { adopt } from './common.js';
import { type NeighborRound, Topocomm } from './neighbor-collectives.js';

/** comm.Get_topology of a Distgraphcomm (MPICH's value). */
export const DIST_GRAPH = 3;

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

  /** @internal The same graph on `core` (Dup, Idup). */
  override twin(core: CommCore): this {
    return adopt(this, new Distgraphcomm(`distgraph#${core.ctx}`, core, this.sources, this.destinations,
      this.sourceweights, this.destweights)) as this;
  }

  protected inDegree(): number { return this.sources.length; }
  protected outDegree(): number { return this.destinations.length; }
  /** One round: every neighbour at once (repeated edges match in order). */
  protected neighborRounds(): NeighborRound[] {
    return [{ recvs: this.sources.map((r, i) => [i, r] as const), sends: this.destinations.map((r, j) => [j, r] as const) }];
  }
}
