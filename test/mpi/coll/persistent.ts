/**
 * Persistent collectives (MPI-4 §6.13): every *_init, each started many times with new send
 * data before each Start (the buffers are read at Start, so results must follow), every rank
 * as root, completed by Wait, Test loops, Startall + Waitall and await in turn; IN_PLACE forms,
 * a non-contiguous datatype (packed again at each Start), blocking collectives between starts,
 * and the errors (Start while active, Free while active, Start after Free, Cancel).
 */
import { MPI, type Prequest } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank, size } = comm;
const n = Number(process.argv[2] ?? 7);
const ROUNDS = Number(process.argv[3] ?? 12);
const sum = (f: (r: number) => number, upto = size) => { let a = 0; for (let r = 0; r < upto; r++) a += f(r); return a; };
/** A value that differs per (rank, round, element), so a stale or misplaced element shows. */
const v = (r: number, round: number, i: number) => ((r + 1) * 1000 + round * 17 + i) % 100003;

async function complete(reqs: Prequest[], round: number): Promise<void> {
  switch (round % 4) {
    case 0: for (const r of reqs) r.Wait(); break;
    case 1: while (!MPI.Request.Testall(reqs)) { /* Testall drives progress */ } break;
    case 2: MPI.Request.Waitall(reqs); break;
    default: for (const r of reqs) await r;
  }
}

function start(reqs: Prequest[], round: number): void {
  if (round % 2 === 0) MPI.Prequest.Startall(reqs);
  else for (const r of reqs) r.Start();
}

async function rooted(): Promise<void> {
  // One request per root for each rooted collective, all started together every round.
  const bc = Array.from({ length: size }, () => new Int32Array(n));
  const gs = new Int32Array(n);
  const gr = Array.from({ length: size }, () => new Int32Array(n * size));
  const gvs = new Int32Array(rank + 1);
  const gvr = Array.from({ length: size }, () => new Int32Array(sum((r) => r + 1)));
  const counts = Array.from({ length: size }, (_, r) => r + 1);
  const ss = Array.from({ length: size }, () => new Int32Array(n * size));
  const sr = Array.from({ length: size }, () => new Int32Array(n));
  const svs = Array.from({ length: size }, () => new Int32Array(sum((r) => r + 1)));
  const svr = Array.from({ length: size }, () => new Int32Array(rank + 1));
  const rs = new Float64Array(n);
  const rr = Array.from({ length: size }, () => new Float64Array(n));
  const reqs: Prequest[] = [];
  for (let root = 0; root < size; root++) {
    reqs.push(comm.Bcast_init(bc[root]!, root));
    reqs.push(comm.Gather_init(gs, gr[root]!, root));
    reqs.push(comm.Gatherv_init(gvs, [gvr[root]!, counts, MPI.INT], root, MPI.INFO_NULL));
    reqs.push(comm.Scatter_init(ss[root]!, sr[root]!, root));
    reqs.push(comm.Scatterv_init([svs[root]!, counts, MPI.INT], svr[root]!, root));
    reqs.push(comm.Reduce_init(rs, rr[root]!, MPI.SUM, root));
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let root = 0; root < size; root++) {
      if (rank === root) bc[root]!.forEach((_, i, a) => { a[i] = v(root, round, i); });
      ss[root]!.forEach((_, i, a) => { a[i] = v(rank, round, i); });
      svs[root]!.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    }
    gs.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    gvs.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    rs.forEach((_, i, a) => { a[i] = v(rank, round, i) / 4; });
    start(reqs, round);
    if (round % 3 === 1) comm.Barrier();   // a blocking collective while they run
    await complete(reqs, round);
    for (let root = 0; root < size; root++) {
      t.check(bc[root]!.every((x, i) => x === v(root, round, i)), `Bcast_init root ${root} round ${round}`);
      t.check(sr[root]!.every((x, i) => x === v(root, round, rank * n + i)), `Scatter_init root ${root} round ${round}`);
      const at = sum((r) => r + 1, rank);
      t.check(svr[root]!.every((x, i) => x === v(root, round, at + i)), `Scatterv_init root ${root} round ${round}`);
      if (rank !== root) continue;
      t.check(gr[root]!.every((x, j) => x === v(Math.floor(j / n), round, j % n)), `Gather_init root ${root} round ${round}`);
      let ok = true;
      for (let r = 0, k = 0; r < size; r++) for (let i = 0; i <= r; i++, k++) if (gvr[root]![k] !== v(r, round, i)) ok = false;
      t.check(ok, `Gatherv_init root ${root} round ${round}`);
      t.check(rr[root]!.every((x, i) => x === sum((r) => v(r, round, i) / 4)), `Reduce_init root ${root} round ${round}`);
    }
  }
  for (const r of reqs) r.Free();
}

async function unrooted(): Promise<void> {
  const ags = new Int32Array(n);
  const agr = new Int32Array(n * size);
  const agvr = new Int32Array(sum((r) => r + 1));
  const counts = Array.from({ length: size }, (_, r) => r + 1);
  const a2s = new Int32Array(n * size);
  const a2r = new Int32Array(n * size);
  const a2vs = new Int32Array(size * 2);
  const a2vr = new Int32Array(size * 2);
  const two = new Array<number>(size).fill(2);
  const a2ws = new Int32Array(size);
  const a2wr = new Int32Array(size);
  const bytes = Array.from({ length: size }, (_, r) => 4 * r);
  const ints = new Array<number>(size).fill(1);
  const types = new Array(size).fill(MPI.INT);
  const ars = new Float64Array(n);
  const arr = new Float64Array(n);
  const arIn = new Float64Array(n);
  const rsbs = new Int32Array(2 * size);
  const rsbr = new Int32Array(2);
  const rss = new Int32Array(sum((r) => r + 1));
  const rsr = new Int32Array(rank + 1);
  const scs = new Int32Array(n);
  const scr = new Int32Array(n);
  const exr = new Int32Array(n);
  const scIn = new Int32Array(n);
  const reqs = [
    comm.Allgather_init(ags, agr),
    comm.Allgatherv_init(ags.subarray(0, rank + 1), [agvr, counts, MPI.INT]),
    comm.Alltoall_init(a2s, a2r),
    comm.Alltoallv_init([a2vs, two, MPI.INT], [a2vr, two, MPI.INT]),
    comm.Alltoallw_init([a2ws, [ints, bytes], types], [a2wr, [ints, bytes], types]),
    comm.Allreduce_init(ars, arr, MPI.SUM),
    comm.Allreduce_init(MPI.IN_PLACE, arIn, MPI.MAX),
    comm.Reduce_scatter_block_init(rsbs, rsbr, MPI.SUM),
    comm.Reduce_scatter_init(rss, rsr, counts, MPI.SUM),
    comm.Scan_init(scs, scr, MPI.SUM),
    comm.Exscan_init(scs, exr, MPI.SUM),
    comm.Scan_init(MPI.IN_PLACE, scIn, MPI.SUM),
    comm.Barrier_init(),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    ags.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    a2s.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    a2vs.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    a2ws.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    ars.forEach((_, i, a) => { a[i] = v(rank, round, i) + 0.5; });
    arIn.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    rsbs.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    rss.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    scs.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    scIn.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    start(reqs, round);
    await complete(reqs, round + 1);
    t.check(agr.every((x, j) => x === v(Math.floor(j / n), round, j % n)), `Allgather_init round ${round}`);
    let ok = true;
    for (let r = 0, k = 0; r < size; r++) for (let i = 0; i <= r; i++, k++) if (agvr[k] !== v(r, round, i)) ok = false;
    t.check(ok, `Allgatherv_init round ${round}`);
    t.check(a2r.every((x, j) => x === v(Math.floor(j / n), round, rank * n + (j % n))), `Alltoall_init round ${round}`);
    t.check(a2vr.every((x, j) => x === v(Math.floor(j / 2), round, rank * 2 + (j % 2))), `Alltoallv_init round ${round}`);
    t.check(a2wr.every((x, r) => x === v(r, round, rank)), `Alltoallw_init round ${round}`);
    t.check(arr.every((x, i) => x === sum((r) => v(r, round, i) + 0.5)), `Allreduce_init round ${round}`);
    t.check(arIn.every((x, i) => x === Math.max(...Array.from({ length: size }, (_, r) => v(r, round, i)))), `Allreduce_init IN_PLACE round ${round}`);
    t.check(rsbr.every((x, i) => x === sum((r) => v(r, round, 2 * rank + i))), `Reduce_scatter_block_init round ${round}`);
    const at = sum((r) => r + 1, rank);
    t.check(rsr.every((x, i) => x === sum((r) => v(r, round, at + i))), `Reduce_scatter_init round ${round}`);
    t.check(scr.every((x, i) => x === sum((r) => v(r, round, i), rank + 1)), `Scan_init round ${round}`);
    if (rank > 0) t.check(exr.every((x, i) => x === sum((r) => v(r, round, i), rank)), `Exscan_init round ${round}`);
    t.check(scIn.every((x, i) => x === sum((r) => v(r, round, i), rank + 1)), `Scan_init IN_PLACE round ${round}`);
  }
  for (const r of reqs) r.Free();
}

/** A column of a 3-column matrix: non-contiguous, packed again at every Start. */
function derived(): void {
  const column = MPI.INT.Create_vector(n, 1, 3).Commit();
  const matrix = new Int32Array(3 * n);
  const out = new Int32Array(3 * n);
  const bc = comm.Bcast_init([matrix, 1, column], size - 1);
  const ar = comm.Allreduce_init([matrix.subarray(1), 1, column], [out.subarray(2), 1, column], MPI.SUM);
  for (let round = 0; round < ROUNDS; round++) {
    matrix.fill(-1);
    if (rank === size - 1) for (let i = 0; i < n; i++) matrix[3 * i] = v(7, round, i);
    bc.Start();
    bc.Wait();
    t.check(Array.from({ length: n }, (_, i) => matrix[3 * i]).every((x, i) => x === v(7, round, i)), `Bcast_init vector round ${round}`);
    t.check(matrix.every((x, j) => j % 3 === 0 || x === -1), `Bcast_init vector leaves the gaps, round ${round}`);
    for (let i = 0; i < n; i++) matrix[3 * i + 1] = v(rank, round, i);
    out.fill(-2);
    ar.Start();
    ar.Wait();
    t.check(out.every((x, j) => (j % 3 === 2 ? x === sum((r) => v(r, round, (j - 2) / 3)) : x === -2)), `Allreduce_init vector round ${round}`);
  }
  bc.Free();
  ar.Free();
  column.Free();
}

/** Barrier_init on a fresh communicator (its first barrier): nobody leaves a round before the last rank entered it. */
function barrier(): void {
  const dup = comm.Dup();
  const b = dup.Barrier_init();
  const times = new Float64Array(2);
  const all = new Float64Array(2 * size);
  for (let round = 0; round < ROUNDS; round++) {
    const late = round % size;
    if (rank === late) { const until = Date.now() + 15; while (Date.now() < until) { /* arrive late */ } }
    times[0] = Date.now();
    b.Start();
    b.Wait();
    times[1] = Date.now();
    comm.Allgather(times, all);
    const lastIn = Math.max(...Array.from({ length: size }, (_, r) => all[2 * r]!));
    t.check(all.every((x, j) => j % 2 === 0 || x >= lastIn), `Barrier_init round ${round}: a rank left before rank ${late} entered`);
  }
  b.Free();
  dup.Free();
}

function errors(): void {
  const buf = new Int32Array(4);
  const r = comm.Bcast_init(buf, 0);
  r.Start();
  t.throws(() => r.Start(), MPI.ERR_REQUEST, /already active/, 'Start of an active persistent collective');
  t.throws(() => r.Free(), MPI.ERR_REQUEST, /active/, 'Free of an active persistent collective');
  t.throws(() => r.Cancel(), MPI.ERR_REQUEST, /cannot be cancelled/, 'Cancel of a persistent collective');
  r.Wait();
  t.equal(r.Test(), true, 'an inactive persistent collective tests complete');
  r.Free();
  t.throws(() => r.Start(), MPI.ERR_REQUEST, /freed/, 'Start after Free');
  t.throws(() => comm.Bcast_init(buf, size), MPI.ERR_ROOT, /root/, 'Bcast_init with a bad root');
  t.throws(() => comm.Allreduce_init(buf, new Int32Array(3)), MPI.ERR_COUNT, /elements/, 'Allreduce_init with unequal counts');
  t.throws(() => comm.Barrier_init(42 as never), MPI.ERR_INFO, /info/, 'Barrier_init with a bad info');
  t.throws(() => r.Pready(0), MPI.ERR_REQUEST, /not a partitioned/, 'Pready on a collective request');
  comm.Barrier();
}

await rooted();
await unrooted();
derived();
barrier();
errors();
MPI.Finalize();
t.finish(rank);
