/**
 * Non-blocking collectives: every I-form, several in flight on one communicator (completed in
 * reverse order, mixed with blocking ones and point-to-point), Test loops, and await.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const n = Number(process.argv[2] ?? 1000);
const sum = (f: (r: number) => number, upto = size) => { let a = 0; for (let r = 0; r < upto; r++) a += f(r); return a; };

async function main(): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const reqs: InstanceType<typeof MPI.Request>[] = [];
    const ar = new Float64Array(n);
    reqs.push(comm.Iallreduce(new Float64Array(n).fill(rank + round), ar, MPI.SUM));
    const bc = new Int32Array(n).fill(rank === 0 ? 42 + round : 0);
    reqs.push(comm.Ibcast(bc, 0));
    const ag = new Int32Array(size);
    reqs.push(comm.Iallgather(Int32Array.of(rank * 10), ag));
    const a2a = new Int32Array(size);
    reqs.push(comm.Ialltoall(Int32Array.from({ length: size }, (_, r) => rank * 100 + r), a2a));
    const sc = new Int32Array(1);
    reqs.push(comm.Iscan(Int32Array.of(rank + 1), sc, MPI.SUM));
    const ex = new Int32Array(1);
    reqs.push(comm.Iexscan(Int32Array.of(rank + 1), ex, MPI.SUM));
    const root = round % size;
    const rd = new Int32Array(3);
    reqs.push(comm.Ireduce(Int32Array.of(rank, 1, 2), rd, MPI.SUM, root));
    const g = new Int32Array(2 * size);
    reqs.push(comm.Igather(Int32Array.of(rank, -rank), g, root));
    const s = new Int32Array(2);
    reqs.push(comm.Iscatter(Int32Array.from({ length: 2 * size }, (_, i) => i), s, root));
    const rsb = new Int32Array(2);
    reqs.push(comm.Ireduce_scatter_block(Int32Array.from({ length: 2 * size }, (_, i) => i + rank), rsb, MPI.SUM));
    const rs = new Int32Array(1);
    reqs.push(comm.Ireduce_scatter(Int32Array.from({ length: size }, (_, i) => i * rank), rs, Array(size).fill(1), MPI.SUM));
    const gv = new Int32Array(size);
    reqs.push(comm.Igatherv(Int32Array.of(rank), [gv, [Array(size).fill(1), null], MPI.INT], root));
    const sv = new Int32Array(1);
    reqs.push(comm.Iscatterv([Int32Array.from({ length: size }, (_, i) => i * 2), [Array(size).fill(1), null], MPI.INT], sv, root));
    const agv = new Int32Array(size);
    reqs.push(comm.Iallgatherv(Int32Array.of(rank + 5), [agv, [Array(size).fill(1), null], MPI.INT]));
    const a2av = new Int32Array(size);
    reqs.push(comm.Ialltoallv([Int32Array.from({ length: size }, (_, r) => rank - r), [Array(size).fill(1), null], MPI.INT],
      [a2av, [Array(size).fill(1), null], MPI.INT]));
    reqs.push(comm.Ibarrier());
    // A blocking collective and point-to-point while the others are in flight.
    const mid = new Int32Array(1);
    comm.Allreduce(Int32Array.of(1), mid, MPI.SUM);
    t.equal(mid[0], size, 'blocking Allreduce among non-blocking ones');
    const right = (rank + 1) % size;
    const left = (rank - 1 + size) % size;
    const pr = new Int32Array(1);
    const rq = comm.Irecv(pr, left, 7);
    comm.Send(Int32Array.of(rank), right, 7);
    rq.Wait();
    t.equal(pr[0], left, 'point-to-point among collectives');
    if (round === 0) for (let i = reqs.length - 1; i >= 0; i--) reqs[i]!.Wait();
    else if (round === 1) { while (!MPI.Request.Testall(reqs)) { /* Test drives progress */ } }
    else for (const r of reqs) await r;
    for (let i = 0; i < n; i++) if (ar[i] !== sum((r) => r + round)) { t.check(false, `Iallreduce element ${i}`); break; }
    t.check(bc.every((x) => x === 42 + round), 'Ibcast');
    t.check(ag.every((x, r) => x === r * 10), 'Iallgather');
    t.check(a2a.every((x, r) => x === r * 100 + rank), 'Ialltoall');
    t.equal(sc[0], sum((r) => r + 1, rank + 1), 'Iscan');
    if (rank > 0) t.equal(ex[0], sum((r) => r + 1, rank), 'Iexscan');
    if (rank === root) {
      t.check(rd[0] === sum((r) => r) && rd[1] === size && rd[2] === 2 * size, 'Ireduce');
      t.check(g.every((x, i) => x === (i % 2 === 0 ? i / 2 : -(i - 1) / 2)), 'Igather');
      t.check(gv.every((x, r) => x === r), 'Igatherv');
    }
    t.check(s[0] === 2 * rank && s[1] === 2 * rank + 1, 'Iscatter');
    t.check(rsb[0] === sum((r) => 2 * rank + r) && rsb[1] === sum((r) => 2 * rank + 1 + r), 'Ireduce_scatter_block');
    t.equal(rs[0], sum((r) => rank * r), 'Ireduce_scatter');
    t.equal(sv[0], rank * 2, 'Iscatterv');
    t.check(agv.every((x, r) => x === r + 5), 'Iallgatherv');
    t.check(a2av.every((x, r) => x === r - rank), 'Ialltoallv');
  }
  // Collectives on a duplicate interleave with those on the parent.
  const dup = comm.Dup();
  const x = new Int32Array(1);
  const y = new Int32Array(1);
  const r1 = dup.Iallreduce(Int32Array.of(rank), x, MPI.MAX);
  const r2 = comm.Iallreduce(Int32Array.of(rank), y, MPI.MIN);
  await Promise.all([r2, r1]);
  t.equal(x[0], size - 1, 'Iallreduce on a Dup');
  t.equal(y[0], 0, 'Iallreduce on the parent');
  dup.Free();
  MPI.Finalize();
  t.finish(rank);
}
void main();
