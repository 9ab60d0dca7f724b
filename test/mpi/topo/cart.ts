/**
 * Cartesian topologies: 1D, 2D and 3D grids, periodic and not, from MPI.Compute_dims; coordinates
 * against row-major order, Shift at the edges, Get_cart_rank wrapping, Sub, Dup, and the
 * processes left out of a grid smaller than the communicator.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
t.equal(world.Get_topology(), MPI.UNDEFINED, 'COMM_WORLD has no topology');

/** Row-major coordinates of r in dims (the reference). */
function coordsOf(r: number, dims: number[]): number[] {
  const c = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) { c[d] = r % dims[d]!; r = Math.floor(r / dims[d]!); }
  return c;
}
function rankOf(c: number[], dims: number[]): number {
  let r = 0;
  for (let d = 0; d < dims.length; d++) r = r * dims[d]! + c[d]!;
  return r;
}

for (const ndims of [1, 2, 3]) {
  for (const periodic of [false, true]) {
    const label = `${ndims}D ${periodic ? 'periodic' : 'non-periodic'}`;
    const dims = MPI.Compute_dims(size, ndims);
    const periods = new Array<boolean>(ndims).fill(periodic);
    const cart = world.Create_cart(dims, periods, false);
    t.equal(cart.Get_topology(), MPI.CART, `${label}: Get_topology`);
    t.equal(cart.size, size, `${label}: size`);
    t.equal(cart.rank, rank, `${label}: rank kept (no reorder)`);
    const [tdims, tperiods, tcoords] = cart.Get_topo();
    t.equal(JSON.stringify(tdims), JSON.stringify(dims), `${label}: Get_topo dims`);
    t.equal(JSON.stringify(tperiods), JSON.stringify(periods), `${label}: Get_topo periods`);
    t.equal(JSON.stringify(tcoords), JSON.stringify(coordsOf(rank, dims)), `${label}: Get_topo coords`);
    t.equal(cart.ndim, ndims, `${label}: ndim`);
    for (let r = 0; r < size; r++) {
      t.equal(JSON.stringify(cart.Get_coords(r)), JSON.stringify(coordsOf(r, dims)), `${label}: Get_coords(${r})`);
      t.equal(cart.Get_cart_rank(coordsOf(r, dims)), r, `${label}: Get_cart_rank(coords of ${r})`);
    }
    const me = coordsOf(rank, dims);
    for (let d = 0; d < ndims; d++) {
      for (const disp of [1, -1, 2]) {
        const expect = (step: number): number => {
          const c = me.slice();
          const x = c[d]! + step;
          if ((x < 0 || x >= dims[d]!) && !periodic) return MPI.PROC_NULL;
          c[d] = ((x % dims[d]!) + dims[d]!) % dims[d]!;
          return rankOf(c, dims);
        };
        const [src, dst] = cart.Shift(d, disp);
        t.equal(src, expect(-disp), `${label}: Shift(${d}, ${disp}) source`);
        t.equal(dst, expect(disp), `${label}: Shift(${d}, ${disp}) dest`);
      }
      // Out-of-range coordinates wrap only in periodic dimensions.
      const out = me.slice();
      out[d] = dims[d]!;
      cart.Set_errhandler(MPI.ERRORS_RETURN);
      if (periodic) {
        out[d] = 0;
        const wrapped = rankOf(out, dims);
        out[d] = dims[d]!;
        t.equal(cart.Get_cart_rank(out), wrapped, `${label}: Get_cart_rank wraps in dimension ${d}`);
        out[d] = -1;
        const back = me.slice();
        back[d] = dims[d]! - 1;
        t.equal(cart.Get_cart_rank(out), rankOf(back, dims), `${label}: Get_cart_rank wraps -1 in dimension ${d}`);
      } else {
        t.throws(() => cart.Get_cart_rank(out), MPI.ERR_RANK, /non-periodic/, `${label}: Get_cart_rank out of range`);
      }
      cart.Set_errhandler(MPI.ERRORS_ARE_FATAL);
    }

    // Sub keeping each single dimension: the processes on one line of the grid.
    for (let d = 0; d < ndims; d++) {
      const keep = dims.map((_, i) => i === d);
      const sub = cart.Sub(keep);
      t.equal(sub.Get_topology(), MPI.CART, `${label}: Sub topology`);
      t.equal(sub.size, dims[d], `${label}: Sub(${keep}) size`);
      t.equal(sub.rank, me[d], `${label}: Sub(${keep}) rank is the coordinate`);
      t.equal(JSON.stringify(sub.dims), JSON.stringify([dims[d]]), `${label}: Sub dims`);
      // The members are this line of the grid, in order.
      const line = sub.Get_group().Translate_ranks(null, world.Get_group());
      const expected = Array.from({ length: dims[d]! }, (_, i) => { const c = me.slice(); c[d] = i; return rankOf(c, dims); });
      t.equal(JSON.stringify(line), JSON.stringify(expected), `${label}: Sub(${keep}) members`);
      const x = new Int32Array(1);
      sub.Sendrecv(Int32Array.of(rank), (sub.rank + 1) % sub.size, 5, x, (sub.rank - 1 + sub.size) % sub.size, 5);
      t.equal(x[0], expected[(sub.rank - 1 + sub.size) % sub.size], `${label}: message on the Sub`);
      sub.Free();
    }
    const none = cart.Sub(new Array<boolean>(ndims).fill(false));
    t.equal(none.size, 1, `${label}: Sub of no dimension has one process`);
    none.Free();

    const dup = cart.Dup();
    t.check(dup instanceof MPI.Cartcomm, `${label}: Dup is a Cartcomm`);
    t.equal(JSON.stringify(dup.Get_topo()), JSON.stringify(cart.Get_topo()), `${label}: Dup keeps the topology`);
    dup.Free();
    cart.Free();
  }
}

// A grid smaller than the communicator: the others get COMM_NULL.
const small = world.Create_cart([1], [false]);
if (rank === 0) t.equal(small.Get_topology(), MPI.CART, 'a one-process grid');
else t.equal(small, MPI.COMM_NULL, 'a process outside the grid gets COMM_NULL');
if (rank === 0) small.Free();

// Cart_map and Graph_map: the rank without reordering, MPI.UNDEFINED beyond the topology.
t.equal(world.Cart_map([size], [false]), rank, 'Cart_map over every process');
t.equal(world.Cart_map([1]), rank === 0 ? 0 : MPI.UNDEFINED, 'Cart_map of a one-process grid');
t.equal(world.Graph_map([0], []), rank === 0 ? 0 : MPI.UNDEFINED, 'Graph_map of a one-node graph');

// Wrong arguments.
world.Set_errhandler(MPI.ERRORS_RETURN);
t.throws(() => world.Create_cart([size + 1]), MPI.ERR_ARG, /more than/, 'a grid larger than the communicator');
t.throws(() => world.Create_cart([0]), MPI.ERR_DIMS, /dims\[0\]/, 'a zero dimension');
world.Set_errhandler(MPI.ERRORS_ARE_FATAL);

MPI.Finalize();
t.finish(rank);
