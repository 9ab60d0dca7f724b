/**
 * Collectives on intercommunicators (MPI-3.1 §5.2.2), against references computed here:
 * COMM_WORLD split into two groups of unequal sizes (the first `arg` ranks, default the lower
 * half, against the rest), every root in both groups with MPI.ROOT / MPI.PROC_NULL, data
 * flowing only between the groups, counts 0, 1 and odd, a derived datatype, the v- and
 * w-variants, blocking and non-blocking forms with several in flight. With the argument `port`
 * the intercommunicator comes from Accept/Connect (util/halves.ts), as between two jobs.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';
import { intercommHow, intercommOfHalves } from '../util/halves.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
if (size < 2) {
  if (rank === 0) process.stdout.write('intercomm coll: needs at least 2 processes\n');
} else {
  const splitArg = process.argv.slice(2).find((a) => /^\d+$/.test(a));
  const split = Number(splitArg ?? Math.floor(size / 2));
  const inA = rank < split;
  const { local, inter } = intercommOfHalves(split, intercommHow(process.argv.slice(2)), 5);
  inter.Set_errhandler(MPI.ERRORS_RETURN);
  const me = inter.rank;
  const nLocal = inter.size;
  const nRemote = inter.Get_remote_size();
  // A value that says who produced it: group (0 = A, 1 = B), rank in the group, element index.
  const g = inA ? 0 : 1;
  const val = (group: number, r: number, i: number) => group * 100000 + r * 1000 + i + 1;
  const other = 1 - g;
  const ints = (n: number, f: (i: number) => number) => Int32Array.from({ length: n }, (_, i) => f(i));
  const same = (got: Int32Array, want: Int32Array, what: string) => {
    for (let i = 0; i < want.length; i++) {
      if (got[i] !== want[i]) {
        t.check(false, `${what}: element ${i} is ${got[i]}, expected ${want[i]}`);
        return;
      }
    }
  };

  for (const n of [0, 1, 7]) {
    // Rooted calls, every root of each group.
    for (const rootGroup of [0, 1]) {
      const rootCount = rootGroup === 0 ? split : size - split;
      for (let root = 0; root < rootCount; root++) {
        const iAmRootGroup = g === rootGroup;
        const arg = iAmRootGroup ? (me === root ? MPI.ROOT : MPI.PROC_NULL) : root;
        const tag = `n=${n} root ${rootGroup === 0 ? 'A' : 'B'}${root}`;
        // Bcast
        const b = ints(n, (i) => (iAmRootGroup && me === root ? val(rootGroup, root, i) : -1));
        inter.Bcast(b, arg);
        if (!iAmRootGroup) same(b, ints(n, (i) => val(rootGroup, root, i)), `${tag} Bcast`);
        else if (me !== root) same(b, ints(n, () => -1), `${tag} Bcast leaves the root's group alone`);
        // Gather: the root gets the other group's blocks in rank order.
        const gout = new Int32Array(iAmRootGroup && me === root ? n * nRemote : 0);
        inter.Gather(ints(n, (i) => val(g, me, i)), gout, arg);
        if (iAmRootGroup && me === root) same(gout, ints(n * nRemote, (i) => val(other, Math.floor(i / Math.max(n, 1)), i % Math.max(n, 1))), `${tag} Gather`);
        // Scatter: block r of the root's buffer to remote rank r.
        const sin = iAmRootGroup && me === root ? ints(n * nRemote, (i) => val(g, Math.floor(i / Math.max(n, 1)), i % Math.max(n, 1) + 50)) : new Int32Array(0);
        const sout = ints(n, () => -1);
        inter.Scatter(sin, sout, arg);
        if (!iAmRootGroup) same(sout, ints(n, (i) => val(rootGroup, me, i + 50)), `${tag} Scatter`);
        // Reduce (SUM) of the other group at the root.
        const rout = new Int32Array(iAmRootGroup && me === root ? n : 0);
        inter.Reduce(ints(n, (i) => val(g, me, i)), rout, MPI.SUM, arg);
        if (iAmRootGroup && me === root) {
          same(rout, ints(n, (i) => {
            let s = 0;
            for (let r = 0; r < nRemote; r++) s += val(other, r, i);
            return s;
          }), `${tag} Reduce`);
        }
        // Gatherv / Scatterv: remote rank r contributes r % 3 elements (times n != 0), reversed layout.
        const cnt = (r: number) => (n === 0 ? 0 : (r % 3) + 1);
        const displs: number[] = [];
        let at = 0;
        for (let r = nRemote - 1; r >= 0; r--) {
          displs[r] = at;
          at += cnt(r) + 1;
        }
        const counts = Array.from({ length: nRemote }, (_, r) => cnt(r));
        if (iAmRootGroup && me === root) {
          const gv = new Int32Array(at).fill(-9);
          inter.Gatherv(null, [gv, [counts, displs], MPI.INT], arg);
          for (let r = 0; r < nRemote; r++) same(gv.subarray(displs[r]!), ints(cnt(r), (i) => val(other, r, i)), `${tag} Gatherv from ${r}`);
          const sv = new Int32Array(at);
          for (let r = 0; r < nRemote; r++) sv.set(ints(cnt(r), (i) => val(g, r, i + 7)), displs[r]!);
          inter.Scatterv([sv, [counts, displs], MPI.INT], null, arg);
        } else if (iAmRootGroup) {
          inter.Gatherv(null, null, arg);
          inter.Scatterv(null, null, arg);
        } else {
          inter.Gatherv(ints(cnt(me), (i) => val(g, me, i)), null, arg);
          const got = new Int32Array(cnt(me));
          inter.Scatterv(null, got, arg);
          same(got, ints(cnt(me), (i) => val(rootGroup, me, i + 7)), `${tag} Scatterv`);
        }
      }
    }
    const tag = `n=${n}`;
    // Allgather: the other group's blocks.
    const ag = new Int32Array(n * nRemote);
    inter.Allgather(ints(n, (i) => val(g, me, i)), ag);
    same(ag, ints(n * nRemote, (i) => val(other, Math.floor(i / Math.max(n, 1)), i % Math.max(n, 1))), `${tag} Allgather`);
    // Allreduce (MAX, and a non-commutative user op: "take the left operand" keeps rank 0's value).
    const ar = new Int32Array(n);
    inter.Allreduce(ints(n, (i) => val(g, me, i)), ar, MPI.MAX);
    same(ar, ints(n, (i) => val(other, nRemote - 1, i)), `${tag} Allreduce MAX`);
    const first = MPI.Op.Create((invec: Int32Array, inoutvec: Int32Array) => { inoutvec.set(invec); }, false);
    const fr = new Int32Array(n);
    inter.Allreduce(ints(n, (i) => val(g, me, i)), fr, first);
    same(fr, ints(n, (i) => val(other, 0, i)), `${tag} Allreduce non-commutative in rank order`);
    first.Free();
    // Alltoall: block r to remote rank r.
    const a2a = new Int32Array(n * nRemote);
    inter.Alltoall(ints(n * nRemote, (i) => val(g, me, i)), a2a);
    same(a2a, ints(n * nRemote, (i) => val(other, Math.floor(i / Math.max(n, 1)), me * n + (i % Math.max(n, 1)))), `${tag} Alltoall`);
    // Reduce_scatter_block: the other group's sum, block `me` of it; both groups send the same length.
    const per = n;
    const total = per * nLocal;
    const remoteTotal = per * nRemote;
    if (total === remoteTotal) {
      const rsb = new Int32Array(per);
      inter.Reduce_scatter_block(ints(total, (i) => val(g, me, i)), rsb, MPI.SUM);
      same(rsb, ints(per, (i) => {
        let s = 0;
        for (let r = 0; r < nRemote; r++) s += val(other, r, me * per + i);
        return s;
      }), `${tag} Reduce_scatter_block`);
    }
    // Reduce_scatter with counts chosen so both groups' vectors have 6 * n elements: split them
    // over this group as evenly as possible.
    const vlen = 6 * n;
    const rc = Array.from({ length: nLocal }, (_, r) => Math.floor(vlen / nLocal) + (r < vlen % nLocal ? 1 : 0));
    const rs = new Int32Array(rc[me]!);
    inter.Reduce_scatter(ints(vlen, (i) => val(g, me, i)), rs, rc, MPI.SUM);
    let off = 0;
    for (let r = 0; r < me; r++) off += rc[r]!;
    same(rs, ints(rc[me]!, (i) => {
      let s = 0;
      for (let r = 0; r < nRemote; r++) s += val(other, r, off + i);
      return s;
    }), `${tag} Reduce_scatter`);
  }

  // A derived type in flight: Bcast of a strided vector from A0 to B, Alltoallv with displacements.
  {
    const vec = MPI.INT.Create_vector(3, 1, 2).Commit();
    const buf = new Int32Array(6).fill(-5);
    if (inA && me === 0) for (let i = 0; i < 6; i += 2) buf[i] = 40 + i;
    inter.Bcast([buf, 1, vec], inA ? (me === 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
    if (!inA) t.equal(JSON.stringify(Array.from(buf)), JSON.stringify([40, -5, 42, -5, 44, -5]), 'Bcast of a vector type across');
    vec.Free();
    const sc = Array.from({ length: nRemote }, (_, r) => r + 1);
    const sd: number[] = [];
    let at = 0;
    for (let r = 0; r < nRemote; r++) { sd.push(at); at += sc[r]!; }
    const send = ints(at, (i) => val(g, me, i));
    const rc = Array.from({ length: nRemote }, () => me + 1);
    const rd = Array.from({ length: nRemote }, (_, r) => r * (me + 1));
    const recv = new Int32Array(nRemote * (me + 1));
    inter.Alltoallv([send, [sc, sd], MPI.INT], [recv, [rc, rd], MPI.INT]);
    for (let r = 0; r < nRemote; r++) {
      // Remote rank r sent us its block `me`, which starts after blocks 0..me-1 (sizes 1..me).
      let start = 0;
      for (let q = 0; q < me; q++) start += q + 1;
      same(recv.subarray(rd[r]!), ints(me + 1, (i) => val(other, r, start + i)), `Alltoallv from remote ${r}`);
    }
  }

  // Non-blocking, several in flight: Ibarrier, Iallreduce, Iallgather, Ibcast from A0.
  {
    const ar = new Int32Array(3);
    const ag = new Int32Array(2 * nRemote);
    const b = new Int32Array(4).fill(inA && me === 0 ? 9 : 0);
    const reqs = [
      inter.Ibarrier(),
      inter.Iallreduce(ints(3, (i) => val(g, me, i)), ar, MPI.SUM),
      inter.Iallgather(ints(2, (i) => val(g, me, i)), ag),
      inter.Ibcast(b, inA ? (me === 0 ? MPI.ROOT : MPI.PROC_NULL) : 0),
    ];
    MPI.Request.Waitall(reqs);
    same(ar, ints(3, (i) => {
      let s = 0;
      for (let r = 0; r < nRemote; r++) s += val(other, r, i);
      return s;
    }), 'Iallreduce');
    same(ag, ints(2 * nRemote, (i) => val(other, Math.floor(i / 2), i % 2)), 'Iallgather');
    if (!inA) same(b, ints(4, () => 9), 'Ibcast');
  }
  inter.Barrier();
  inter.Free();
  local.Free();
}

MPI.Finalize();
t.finish(rank);
