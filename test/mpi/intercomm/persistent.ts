/**
 * Persistent collectives on an intercommunicator (MPI-4 §6.13 over MPI-3.1 §5.2.2): groups of
 * unequal size, every root of both groups (MPI.ROOT / MPI.PROC_NULL / the remote root), new data
 * at every Start, Barrier_init, and Scan_init refused with MPI.ERR_COMM.
 */
import { MPI, type Prequest } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';
import { intercommHow, intercommOfHalves } from '../util/halves.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const ROUNDS = 8;
if (size < 2) {
  if (rank === 0) process.stdout.write('intercomm persistent: needs at least 2 processes\n');
} else {
  const split = Math.floor(size / 2);
  const inA = rank < split;
  const { local, inter } = intercommOfHalves(split, intercommHow(process.argv.slice(2)), 6);
  inter.Set_errhandler(MPI.ERRORS_RETURN);
  const me = inter.rank;
  const nRemote = inter.Get_remote_size();
  const g = inA ? 0 : 1;
  const other = 1 - g;
  const n = 5;
  const val = (group: number, r: number, round: number, i: number) => group * 100000 + r * 1000 + round * 10 + i;
  const remoteSum = (round: number, i: number) => { let a = 0; for (let r = 0; r < nRemote; r++) a += val(other, r, round, i); return a; };

  // Rooted: one Bcast_init and one Reduce_init per root of each group.
  const reqs: Prequest[] = [];
  const checks: ((round: number) => void)[] = [];
  const fills: ((round: number) => void)[] = [];
  for (const rootGroup of [0, 1]) {
    const rootCount = rootGroup === 0 ? split : size - split;
    for (let root = 0; root < rootCount; root++) {
      const mine = g === rootGroup;
      const isRoot = mine && me === root;
      const arg = mine ? (isRoot ? MPI.ROOT : MPI.PROC_NULL) : root;
      const b = new Int32Array(n);
      reqs.push(inter.Bcast_init(b, arg));
      fills.push((round) => b.forEach((_, i, a) => { a[i] = isRoot ? val(g, me, round, i) : -1; }));
      checks.push((round) => {
        if (!mine) t.check(b.every((x, i) => x === val(rootGroup, root, round, i)), `Bcast_init root ${rootGroup}:${root} round ${round}`);
      });
      const rs = new Int32Array(n);
      const rr = new Int32Array(n);
      reqs.push(inter.Reduce_init(rs, rr, MPI.SUM, arg));
      fills.push((round) => rs.forEach((_, i, a) => { a[i] = val(g, me, round, i); }));
      checks.push((round) => {
        if (isRoot) t.check(rr.every((x, i) => x === remoteSum(round, i)), `Reduce_init root ${rootGroup}:${root} round ${round}`);
      });
    }
  }
  const ars = new Int32Array(n);
  const arr = new Int32Array(n);
  reqs.push(inter.Allreduce_init(ars, arr, MPI.SUM));
  fills.push((round) => ars.forEach((_, i, a) => { a[i] = val(g, me, round, i); }));
  checks.push((round) => t.check(arr.every((x, i) => x === remoteSum(round, i)), `Allreduce_init round ${round}`));
  const ags = new Int32Array(n);
  const agr = new Int32Array(n * nRemote);
  reqs.push(inter.Allgather_init(ags, agr));
  fills.push((round) => ags.forEach((_, i, a) => { a[i] = val(g, me, round, i); }));
  checks.push((round) => t.check(agr.every((x, j) => x === val(other, Math.floor(j / n), round, j % n)), `Allgather_init round ${round}`));
  const a2s = new Int32Array(nRemote);
  const a2r = new Int32Array(nRemote);
  reqs.push(inter.Alltoall_init(a2s, a2r));
  fills.push((round) => a2s.forEach((_, r, a) => { a[r] = val(g, me, round, r); }));
  checks.push((round) => t.check(a2r.every((x, r) => x === val(other, r, round, me)), `Alltoall_init round ${round}`));
  reqs.push(inter.Barrier_init());

  for (let round = 0; round < ROUNDS; round++) {
    for (const f of fills) f(round);
    MPI.Prequest.Startall(reqs);
    if (round % 2 === 0) MPI.Request.Waitall(reqs);
    else while (!MPI.Request.Testall(reqs)) { /* progress */ }
    for (const c of checks) c(round);
  }
  for (const r of reqs) r.Free();
  t.throws(() => inter.Scan_init(new Int32Array(1), new Int32Array(1)), MPI.ERR_COMM, /intercommunicator/, 'Scan_init on an intercommunicator');
  inter.Free();
  local.Free();
}
MPI.Finalize();
t.finish(rank);
