import type { CommCore } from '../comm.js';
import { splitComm } from '../comm-manage.js';
import { PROC_NULL } from '../constants.js';
import { intListProblem, isInt32 } from '../validate.js';
import { ErrorClass } from '../error-classes.js';
import { adopt, intArray, show } from './common.js';
import { type NeighborRound, Topocomm } from './neighbor-collectives.js';

/** comm.Get_topology of a Cartcomm (MPICH's value). */
export const CART = 2;

/**
 * A communicator on a Cartesian grid (row-major: the last dimension varies fastest).
 *
 * The block order of its neighbour collectives is the standard's: per dimension d, the source
 * then the destination of Shift(d, 1). It moves one direction per round, so when source and
 * destination are one process (a periodic dimension of size 1 or 2) the block sent towards the
 * destination still lands in the receiver's source block, and back.
 */
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
    if (!isInt32(disp)) this.fail('Shift', ErrorClass.ERR_ARG, `disp ${show(disp)} is not an integer (of MPI's int range)`);
    return this.shift(direction, disp);
  }

  /** Collective: the sub-grids keeping the dimensions where remain_dims is true (one per value of the others). */
  Sub(remain_dims: ArrayLike<boolean | number>): Cartcomm {
    const core = this.live('Sub');
    const bad = intListProblem(remain_dims, 'remain_dims', -0x80000000, 0x7fffffff, { flags: true });
    if (bad !== null) this.fail('Sub', ErrorClass.ERR_ARG, bad);
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

  /** @internal The same grid on `core` (Dup, Idup). */
  override twin(core: CommCore): this {
    return adopt(this, new Cartcomm(`cart#${core.ctx}`, core, this.cartDims, this.cartPeriods)) as this;
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
