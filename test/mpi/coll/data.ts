/**
 * Every buffer collective against a serial reference computed here: all roots, counts 0, 1,
 * odd and large (arg), several predefined datatypes, MPI.IN_PLACE forms. Run under each
 * TSMPI_COLL_<NAME> algorithm by the testlist.
 */
import { type BufSpec, MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const large = Number(process.argv[2] ?? 1000);
const COUNTS = [0, 1, 7, large];

type Arr = Int32Array | Float64Array | BigInt64Array | Int16Array | Uint8Array;
interface T { name: string; dt: any; make: (n: number) => Arr }
const TYPES: T[] = [
  { name: 'INT', dt: MPI.INT, make: (n) => new Int32Array(n) },
  { name: 'DOUBLE', dt: MPI.DOUBLE, make: (n) => new Float64Array(n) },
  { name: 'INT64_T', dt: MPI.INT64_T, make: (n) => new BigInt64Array(n) },
  { name: 'SHORT', dt: MPI.SHORT, make: (n) => new Int16Array(n) },
  { name: 'UNSIGNED_CHAR', dt: MPI.UNSIGNED_CHAR, make: (n) => new Uint8Array(n) },
];

const val = (r: number, i: number) => ((r * 7 + i * 3) % 11) + 1;
const set = (a: Arr, i: number, v: number) => { (a as any)[i] = a instanceof BigInt64Array ? BigInt(v) : v; };
const get = (a: Arr, i: number) => Number(a[i]!);
function filled(ty: T, n: number, f: (i: number) => number): Arr {
  const a = ty.make(n);
  for (let i = 0; i < n; i++) set(a, i, f(i));
  return a;
}
function expect(a: Arr, f: (i: number) => number, what: string): void {
  for (let i = 0; i < a.length; i++) {
    if (get(a, i) !== f(i)) {
      t.check(false, `${what}: element ${i} is ${get(a, i)}, expected ${f(i)}`);
      return;
    }
  }
}
const B = (a: Arr, ty: T): BufSpec => [a, ty.dt];

for (const ty of TYPES) {
  for (const n of COUNTS) {
    const tag = `${ty.name} n=${n}`;
    for (let root = 0; root < size; root++) {
      // Bcast
      const b = filled(ty, n, (i) => (rank === root ? val(root, i) : 0));
      comm.Bcast(B(b, ty), root);
      expect(b, (i) => val(root, i), `Bcast ${tag} root ${root}`);
      // Gather, and IN_PLACE at the root
      for (const inPlace of [false, true]) {
        const recv = filled(ty, rank === root ? n * size : 0, (i) => (inPlace && Math.floor(i / n) === root ? val(root, i % n) : 0));
        const send = inPlace && rank === root ? MPI.IN_PLACE : B(filled(ty, n, (i) => val(rank, i)), ty);
        comm.Gather(send, B(recv, ty), root);
        if (rank === root) expect(recv, (i) => val(Math.floor(i / n), i % n), `Gather${inPlace ? ' IN_PLACE' : ''} ${tag} root ${root}`);
      }
      // Scatter, and IN_PLACE at the root
      for (const inPlace of [false, true]) {
        const send = filled(ty, rank === root ? n * size : 0, (i) => val(Math.floor(i / n) + 10, i % n));
        const recv = filled(ty, n, () => 0);
        comm.Scatter(B(send, ty), inPlace && rank === root ? MPI.IN_PLACE : B(recv, ty), root);
        if (!(inPlace && rank === root)) expect(recv, (i) => val(rank + 10, i), `Scatter ${tag} root ${root}`);
        else expect(send.subarray(root * n, (root + 1) * n) as Arr, (i) => val(root + 10, i), `Scatter IN_PLACE ${tag}`);
      }
      // Gatherv / Scatterv with rank-dependent counts (r % 3) * n, reversed displacements
      const counts = Array.from({ length: size }, (_, r) => (r % 3) * n);
      const displs: number[] = [];
      let at = 0;
      for (let r = size - 1; r >= 0; r--) { displs[r] = at; at += counts[r]!; }
      const gv = filled(ty, rank === root ? at : 0, () => 0);
      comm.Gatherv(B(filled(ty, counts[rank]!, (i) => val(rank, i)), ty), rank === root ? [gv, [counts, displs], ty.dt] : null, root);
      if (rank === root) {
        for (let r = 0; r < size; r++) expect(gv.subarray(displs[r]!, displs[r]! + counts[r]!) as Arr, (i) => val(r, i), `Gatherv ${tag} block ${r}`);
      }
      const sv = filled(ty, rank === root ? at : 0, () => 0);
      if (rank === root) for (let r = 0; r < size; r++) for (let i = 0; i < counts[r]!; i++) set(sv, displs[r]! + i, val(r + 3, i));
      const svr = filled(ty, counts[rank]!, () => 0);
      comm.Scatterv(rank === root ? [sv, [counts, displs], ty.dt] : null, B(svr, ty), root);
      expect(svr, (i) => val(rank + 3, i), `Scatterv ${tag}`);
      // Reduce SUM / MAX / MIN
      for (const [opName, op, f] of [['SUM', MPI.SUM, (a: number, b: number) => a + b], ['MAX', MPI.MAX, Math.max],
        ['MIN', MPI.MIN, Math.min]] as const) {
        const recv = filled(ty, rank === root ? n : 0, () => 0);
        comm.Reduce(B(filled(ty, n, (i) => val(rank, i)), ty), rank === root ? B(recv, ty) : null, op, root);
        if (rank === root) {
          expect(recv, (i) => { let a = val(0, i); for (let r = 1; r < size; r++) a = f(a, val(r, i)); return a; }, `Reduce ${opName} ${tag} root ${root}`);
        }
      }
      // Reduce IN_PLACE at the root
      const rin = filled(ty, n, (i) => val(rank, i));
      comm.Reduce(rank === root ? MPI.IN_PLACE : B(rin, ty), rank === root ? B(rin, ty) : null, MPI.SUM, root);
      if (rank === root) expect(rin, (i) => { let a = 0; for (let r = 0; r < size; r++) a += val(r, i); return a; }, `Reduce IN_PLACE ${tag}`);
    }
    const sumAll = (i: number, upto = size) => { let a = 0; for (let r = 0; r < upto; r++) a += val(r, i); return a; };
    // Allgather (+ IN_PLACE)
    for (const inPlace of [false, true]) {
      const recv = filled(ty, n * size, (i) => (inPlace && Math.floor(i / n) === rank ? val(rank, i % n) : 0));
      comm.Allgather(inPlace ? MPI.IN_PLACE : B(filled(ty, n, (i) => val(rank, i)), ty), B(recv, ty));
      expect(recv, (i) => val(Math.floor(i / n), i % n), `Allgather${inPlace ? ' IN_PLACE' : ''} ${tag}`);
    }
    // Allgatherv
    {
      const counts = Array.from({ length: size }, (_, r) => ((r + 1) % 3) * n);
      const displs = counts.map((_, r) => counts.slice(0, r).reduce((a, b) => a + b, 0));
      const total = counts.reduce((a, b) => a + b, 0);
      const recv = filled(ty, total, () => 0);
      comm.Allgatherv(B(filled(ty, counts[rank]!, (i) => val(rank, i)), ty), [recv, [counts, displs], ty.dt]);
      for (let r = 0; r < size; r++) expect(recv.subarray(displs[r]!, displs[r]! + counts[r]!) as Arr, (i) => val(r, i), `Allgatherv ${tag} block ${r}`);
    }
    // Alltoall (+ IN_PLACE)
    for (const inPlace of [false, true]) {
      const send = filled(ty, n * size, (i) => val(rank * size + Math.floor(i / n), i % n));
      const recv = inPlace ? send : filled(ty, n * size, () => 0);
      comm.Alltoall(inPlace ? MPI.IN_PLACE : B(send, ty), B(recv, ty));
      expect(recv, (i) => val(Math.floor(i / n) * size + rank, i % n), `Alltoall${inPlace ? ' IN_PLACE' : ''} ${tag}`);
    }
    // Alltoallv: rank s sends (s + r) % 3 * n elements to rank r
    {
      const sc = Array.from({ length: size }, (_, r) => ((rank + r) % 3) * n);
      const rc = Array.from({ length: size }, (_, r) => ((r + rank) % 3) * n);
      const sd = sc.map((_, r) => sc.slice(0, r).reduce((a, b) => a + b, 0));
      const rd = rc.map((_, r) => rc.slice(0, r).reduce((a, b) => a + b, 0));
      const send = filled(ty, sc.reduce((a, b) => a + b, 0), () => 0);
      for (let r = 0; r < size; r++) for (let i = 0; i < sc[r]!; i++) set(send, sd[r]! + i, val(rank + r, i));
      const recv = filled(ty, rc.reduce((a, b) => a + b, 0), () => 0);
      comm.Alltoallv([send, [sc, sd], ty.dt], [recv, [rc, rd], ty.dt]);
      for (let r = 0; r < size; r++) expect(recv.subarray(rd[r]!, rd[r]! + rc[r]!) as Arr, (i) => val(r + rank, i), `Alltoallv ${tag} from ${r}`);
      const es = ty.dt.Get_size();
      const recvw = filled(ty, rc.reduce((a, b) => a + b, 0), () => 0);
      comm.Alltoallw([send, [sc, sd.map((d) => d * es)], sc.map(() => ty.dt)], [recvw, [rc, rd.map((d) => d * es)], rc.map(() => ty.dt)]);
      for (let r = 0; r < size; r++) expect(recvw.subarray(rd[r]!, rd[r]! + rc[r]!) as Arr, (i) => val(r + rank, i), `Alltoallw ${tag} from ${r}`);
    }
    // Allreduce SUM, MAX (+ IN_PLACE)
    {
      const recv = filled(ty, n, () => 0);
      comm.Allreduce(B(filled(ty, n, (i) => val(rank, i)), ty), B(recv, ty), MPI.SUM);
      expect(recv, (i) => sumAll(i), `Allreduce SUM ${tag}`);
      const inp = filled(ty, n, (i) => val(rank, i));
      comm.Allreduce(MPI.IN_PLACE, B(inp, ty), MPI.MAX);
      expect(inp, (i) => { let a = 0; for (let r = 0; r < size; r++) a = Math.max(a, val(r, i)); return a; }, `Allreduce IN_PLACE MAX ${tag}`);
      if (ty.name !== 'DOUBLE') {
        const x = filled(ty, n, (i) => val(rank, i));
        comm.Allreduce(MPI.IN_PLACE, B(x, ty), MPI.BXOR);
        expect(x, (i) => { let a = 0; for (let r = 0; r < size; r++) a ^= val(r, i); return a; }, `Allreduce BXOR ${tag}`);
      }
    }
    // Reduce_scatter_block, Reduce_scatter (+ IN_PLACE)
    {
      const send = filled(ty, n * size, (i) => val(rank, i));
      const recv = filled(ty, n, () => 0);
      comm.Reduce_scatter_block(B(send, ty), B(recv, ty), MPI.SUM);
      expect(recv, (i) => sumAll(rank * n + i), `Reduce_scatter_block ${tag}`);
      const inp = filled(ty, n * size, (i) => val(rank, i));
      comm.Reduce_scatter_block(MPI.IN_PLACE, B(inp, ty), MPI.SUM);
      expect(inp.subarray(0, n) as Arr, (i) => sumAll(rank * n + i), `Reduce_scatter_block IN_PLACE ${tag}`);
      const counts = Array.from({ length: size }, (_, r) => (r % 2) * n + 1);
      const total = counts.reduce((a, b) => a + b, 0);
      const off = counts.slice(0, rank).reduce((a, b) => a + b, 0);
      const rs = filled(ty, counts[rank]!, () => 0);
      comm.Reduce_scatter(B(filled(ty, total, (i) => val(rank, i)), ty), B(rs, ty), counts, MPI.SUM);
      expect(rs, (i) => sumAll(off + i), `Reduce_scatter ${tag}`);
    }
    // Scan, Exscan (+ IN_PLACE)
    {
      const recv = filled(ty, n, () => 0);
      comm.Scan(B(filled(ty, n, (i) => val(rank, i)), ty), B(recv, ty), MPI.SUM);
      expect(recv, (i) => sumAll(i, rank + 1), `Scan ${tag}`);
      const inp = filled(ty, n, (i) => val(rank, i));
      comm.Scan(MPI.IN_PLACE, B(inp, ty), MPI.SUM);
      expect(inp, (i) => sumAll(i, rank + 1), `Scan IN_PLACE ${tag}`);
      const ex = filled(ty, n, () => 99);
      comm.Exscan(B(filled(ty, n, (i) => val(rank, i)), ty), B(ex, ty), MPI.SUM);
      if (rank > 0) expect(ex, (i) => sumAll(i, rank), `Exscan ${tag}`);
      else expect(ex, () => 99, 'Exscan leaves rank 0 as is');
    }
    comm.Barrier();
  }
}

MPI.Finalize();
t.finish(rank);
