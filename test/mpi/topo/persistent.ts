/**
 * Persistent neighbour collectives (MPI-4): Neighbor_allgather(v)_init, Neighbor_alltoall(v/w)_init
 * on a periodic ring (a rank is its own neighbour at 1 and 2 processes) and on a
 * non-periodic line (MPI.PROC_NULL ends), started many times with new data.
 */
import { MPI, type Prequest } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const ROUNDS = 8;
const val = (r: number, round: number, i: number) => r * 1000 + round * 10 + i + 1;

for (const periodic of [true, false]) {
  const cart = world.Create_cart([size], [periodic]);
  const [src, dst] = cart.Shift(0, 1);
  const ins = [src, dst];   // in-neighbour order of a 1-D cart: -1 then +1
  const n = 3;
  const ags = new Int32Array(n);
  const agr = new Int32Array(2 * n);
  const agvr = new Int32Array(2 * n + 1);
  const a2s = new Int32Array(2 * n);
  const a2r = new Int32Array(2 * n);
  const a2vr = new Int32Array(2 * n);
  const a2ws = new Int32Array(2);
  const a2wr = new Int32Array(2);
  const reqs: Prequest[] = [
    cart.Neighbor_allgather_init(ags, agr),
    cart.Neighbor_allgatherv_init(ags, [agvr, [[n, n], [0, n + 1]], MPI.INT]),
    cart.Neighbor_alltoall_init(a2s, a2r),
    cart.Neighbor_alltoallv_init([a2s, [[n, n], [0, n]], MPI.INT], [a2vr, [[n, n], [n, 0]], MPI.INT]),
    cart.Neighbor_alltoallw_init([a2ws, [[1, 1], [0, 4]], [MPI.INT, MPI.INT]], [a2wr, [[1, 1], [4, 0]], [MPI.INT, MPI.INT]], MPI.INFO_NULL),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    ags.forEach((_, i, a) => { a[i] = val(rank, round, i); });
    // Block 0 goes to the -1 neighbour, block 1 to the +1 neighbour.
    a2s.forEach((_, i, a) => { a[i] = val(rank, round, 100 * Math.floor(i / n) + (i % n)); });
    a2ws.forEach((_, i, a) => { a[i] = val(rank, round, 50 + i); });
    agr.fill(-1); agvr.fill(-1); a2r.fill(-1); a2vr.fill(-1); a2wr.fill(-1);
    MPI.Prequest.Startall(reqs);
    MPI.Request.Waitall(reqs);
    const what = `${periodic ? 'ring' : 'line'} round ${round}`;
    for (let b = 0; b < 2; b++) {
      const from = ins[b]!;
      // What neighbour `from` sent towards us: its +1 block if it is our -1 neighbour, and so on.
      const theirBlock = b === 0 ? 1 : 0;
      for (let i = 0; i < n; i++) {
        const want = from === MPI.PROC_NULL ? -1 : val(from, round, i);
        t.equal(agr[b * n + i], want, `Neighbor_allgather_init ${what} block ${b}`);
        t.equal(agvr[b * (n + 1) + i], want, `Neighbor_allgatherv_init ${what} block ${b}`);
        const want2 = from === MPI.PROC_NULL ? -1 : val(from, round, 100 * theirBlock + i);
        t.equal(a2r[b * n + i], want2, `Neighbor_alltoall_init ${what} block ${b}`);
        t.equal(a2vr[(1 - b) * n + i], want2, `Neighbor_alltoallv_init ${what} block ${b}`);
      }
      t.equal(a2wr[1 - b], from === MPI.PROC_NULL ? -1 : val(from, round, 50 + theirBlock), `Neighbor_alltoallw_init ${what} block ${b}`);
    }
  }
  for (const r of reqs) r.Free();
  cart.Free();
}
MPI.Finalize();
t.finish(rank);
