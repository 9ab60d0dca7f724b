/**
 * Collectives on non-contiguous derived datatypes, against a serial reference. Every buffer is
 * laid out by a type with holes (a vector of ints with a stride, a padded struct-like resized
 * type); the holes carry a sentinel that no collective may touch. Covers every collective
 * family, all roots, counts 0/1/odd, reductions element-wise on the packed ints (SUM, MAX),
 * v-variants with displacements in extents, Alltoallw with a different type per rank,
 * IN_PLACE, non-blocking forms, and an op on a mixed struct (MPI.ERR_OP).
 */
import { MPI } from '../../../src/index.js';
import type { Datatype } from '../../../src/mpir/datatype.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank, size } = comm;
const SENTINEL = -777;

// 3 ints per instance at int offsets 0, 2, 4; extent 6 ints (holes at 1, 3, 5).
const VEC = MPI.INT.Create_vector(3, 1, 2).Create_resized(0, 24).Commit();
// 2 ints per instance at int offsets 1 and 2; extent 4 ints.
const PAD = MPI.INT.Create_indexed([2], [1]).Create_resized(0, 16).Commit();
const TYPES: [string, Datatype, number, number][] = [
  // name, type, ints per instance, extent in ints
  ['vector', VEC, 3, 6],
  ['indexed', PAD, 2, 4],
];

/** A user buffer of `count` instances whose logical ints are f(i); holes hold SENTINEL. */
function layout(dt: Datatype, per: number, ext: number, count: number, f: (i: number) => number): Int32Array {
  const buf = new Int32Array(Math.max(1, count * ext)).fill(SENTINEL);
  const logical = Int32Array.from({ length: count * per }, (_, i) => f(i));
  dt.unpackTo(new Uint8Array(logical.buffer), 0, count, 0, logical.byteLength, new Uint8Array(buf.buffer));
  return buf;
}

/** The logical ints of a user buffer, and whether every hole still holds SENTINEL. */
function read(dt: Datatype, per: number, buf: Int32Array, count: number): { ints: Int32Array; holesIntact: boolean } {
  const ints = new Int32Array(count * per);
  dt.packTo(new Uint8Array(buf.buffer), count, 0, ints.byteLength, new Uint8Array(ints.buffer), 0);
  const marked = new Int32Array(buf.length).fill(0);
  const ones = new Int32Array(count * per).fill(1);
  dt.unpackTo(new Uint8Array(ones.buffer), 0, count, 0, ones.byteLength, new Uint8Array(marked.buffer));
  let holesIntact = true;
  for (let i = 0; i < buf.length; i++) if (marked[i] === 0 && buf[i] !== SENTINEL) holesIntact = false;
  return { ints, holesIntact };
}

function check(what: string, dt: Datatype, per: number, buf: Int32Array, count: number, f: (i: number) => number): void {
  const { ints, holesIntact } = read(dt, per, buf, count);
  t.check(holesIntact, `${what}: a hole of the datatype was written`);
  for (let i = 0; i < ints.length; i++) {
    if (ints[i] !== f(i)) {
      t.check(false, `${what}: logical int ${i} is ${ints[i]}, expected ${f(i)}`);
      return;
    }
  }
}

const v = (r: number, i: number) => r * 1000 + i + 1;

for (const [name, dt, per, ext] of TYPES) {
  for (const n of [0, 1, 5]) {
    const tag = `${name} n=${n}`;
    const L = (count: number, f: (i: number) => number) => layout(dt, per, ext, count, f);
    for (let root = 0; root < size; root++) {
      // Bcast
      const b = L(n, (i) => (rank === root ? v(root, i) : 0));
      comm.Bcast([b, n, dt], root);
      check(`${tag} Bcast root ${root}`, dt, per, b, n, (i) => v(root, i));
      // Gather / Scatter
      const mine = L(n, (i) => v(rank, i));
      const all = L(rank === root ? n * size : 0, () => 0);
      comm.Gather([mine, n, dt], [all, rank === root ? n * size : 0, dt], root);
      if (rank === root) check(`${tag} Gather root ${root}`, dt, per, all, n * size, (i) => v(Math.floor(i / (n * per)), i % (n * per)));
      const src = L(rank === root ? n * size : 0, (i) => v(Math.floor(i / (n * per)), (i % (n * per)) + 7));
      const got = L(n, () => 0);
      comm.Scatter([src, rank === root ? n * size : 0, dt], [got, n, dt], root);
      check(`${tag} Scatter root ${root}`, dt, per, got, n, (i) => v(rank, i + 7));
      // Reduce (SUM over the packed ints)
      const red = L(rank === root ? n : 0, () => 0);
      comm.Reduce([mine, n, dt], [red, rank === root ? n : 0, dt], MPI.SUM, root);
      let sum = 0;
      for (let r = 0; r < size; r++) sum += r * 1000;
      if (rank === root) check(`${tag} Reduce root ${root}`, dt, per, red, n, (i) => sum + size * (i + 1));
      // Gatherv with displacements in extents, blocks reversed, rank r contributes r % 3 instances.
      const cnt = (r: number) => (r % 3) * (n === 0 ? 0 : 1);
      const displs: number[] = [];
      let at = 0;
      for (let r = size - 1; r >= 0; r--) {
        displs[r] = at;
        at += cnt(r) + 1;
      }
      const gv = L(rank === root ? at : 0, () => 0);
      comm.Gatherv([L(cnt(rank), (i) => v(rank, i)), cnt(rank), dt],
        [gv, [Array.from({ length: size }, (_, r) => cnt(r)), displs], dt], root);
      if (rank === root) {
        const ints = read(dt, per, gv, at);
        t.check(ints.holesIntact, `${tag} Gatherv root ${root}: a hole was written`);
        for (let r = 0; r < size; r++) {
          for (let i = 0; i < cnt(r) * per; i++) {
            const x = ints.ints[displs[r]! * per + i];
            if (x !== v(r, i)) { t.check(false, `${tag} Gatherv root ${root}: rank ${r} int ${i} is ${x}`); break; }
          }
        }
      }
    }
    // Allgather, Allreduce (SUM and MAX), IN_PLACE Allreduce, Alltoall, Scan, Exscan, Reduce_scatter_block
    const mine = L(n, (i) => v(rank, i));
    const ag = L(n * size, () => 0);
    comm.Allgather([mine, n, dt], [ag, n * size, dt]);
    check(`${tag} Allgather`, dt, per, ag, n * size, (i) => v(Math.floor(i / (n * per)), i % (n * per)));
    const ar = L(n, () => 0);
    comm.Allreduce([mine, n, dt], [ar, n, dt], MPI.MAX);
    check(`${tag} Allreduce MAX`, dt, per, ar, n, (i) => v(size - 1, i));
    const inPlace = L(n, (i) => v(rank, i));
    comm.Allreduce(MPI.IN_PLACE, [inPlace, n, dt], MPI.SUM);
    let sum = 0;
    for (let r = 0; r < size; r++) sum += r * 1000;
    check(`${tag} Allreduce IN_PLACE SUM`, dt, per, inPlace, n, (i) => sum + size * (i + 1));
    const a2aSend = L(n * size, (i) => v(rank, i));
    const a2aRecv = L(n * size, () => 0);
    comm.Alltoall([a2aSend, n * size, dt], [a2aRecv, n * size, dt]);
    check(`${tag} Alltoall`, dt, per, a2aRecv, n * size, (i) => v(Math.floor(i / (n * per)), rank * n * per + (i % (n * per))));
    const sc = L(n, () => 0);
    comm.Scan([mine, n, dt], [sc, n, dt], MPI.SUM);
    let pre = 0;
    for (let r = 0; r <= rank; r++) pre += r * 1000;
    check(`${tag} Scan`, dt, per, sc, n, (i) => pre + (rank + 1) * (i + 1));
    const rsb = L(n, () => 0);
    comm.Reduce_scatter_block([a2aSend, n * size, dt], [rsb, n, dt], MPI.SUM);
    check(`${tag} Reduce_scatter_block`, dt, per, rsb, n, (i) => sum + size * (rank * n * per + i + 1));
    // Non-blocking: Ibcast and Iallgather in flight together.
    const ib = L(n, (i) => (rank === 0 ? v(0, i) : 0));
    const iag = L(n * size, () => 0);
    const reqs = [comm.Ibcast([ib, n, dt], 0), comm.Iallgather([mine, n, dt], [iag, n * size, dt])];
    MPI.Request.Waitall(reqs);
    check(`${tag} Ibcast`, dt, per, ib, n, (i) => v(0, i));
    check(`${tag} Iallgather`, dt, per, iag, n * size, (i) => v(Math.floor(i / (n * per)), i % (n * per)));
  }
}

// Alltoallw: to even ranks as VEC, to odd ranks as plain INT, 2 instances / 2*per ints each.
{
  const types = Array.from({ length: size }, (_, r) => (r % 2 === 0 ? VEC : MPI.INT));
  const counts = Array.from({ length: size }, (_, r) => (r % 2 === 0 ? 2 : 6));
  // Send side: block r at byte displacement r * 48 (2 VEC extents, or 6 ints padded to 48 bytes).
  const send = new Int32Array(size * 12).fill(SENTINEL);
  for (let r = 0; r < size; r++) {
    const logical = Int32Array.from({ length: 6 }, (_, i) => v(rank, r * 10 + i));
    types[r]!.unpackTo(new Uint8Array(logical.buffer), 0, counts[r]!, 0, 24, new Uint8Array(send.buffer, r * 48));
  }
  // Receive side: from rank r as this rank's type (VEC if this rank is even, else INT).
  const mineType = rank % 2 === 0 ? VEC : MPI.INT;
  const mineCount = rank % 2 === 0 ? 2 : 6;
  const recv = new Int32Array(size * 12).fill(SENTINEL);
  const displs = Array.from({ length: size }, (_, r) => r * 48);
  comm.Alltoallw([send, [counts, displs], types],
    [recv, [Array(size).fill(mineCount), displs], Array(size).fill(mineType)]);
  for (let r = 0; r < size; r++) {
    const got = new Int32Array(6);
    mineType.packTo(new Uint8Array(recv.buffer, r * 48), mineCount, 0, 24, new Uint8Array(got.buffer), 0);
    for (let i = 0; i < 6; i++) t.equal(got[i], v(r, rank * 10 + i), `Alltoallw from ${r} int ${i}`);
  }
  if (rank % 2 === 0) t.equal(recv[1], SENTINEL, 'Alltoallw: a hole of VEC was written');
}

// An arithmetic op on a struct mixing int and double is not defined: MPI.ERR_OP, and the job goes on.
{
  const mixed = MPI.Datatype.Create_struct([1, 1], [0, 8], [MPI.INT, MPI.DOUBLE]).Commit();
  const buf = new Uint8Array(16);
  let cls = 0;
  try {
    comm.Allreduce(MPI.IN_PLACE, [buf, 1, mixed], MPI.SUM);
  } catch (e) {
    cls = (e as InstanceType<typeof MPI.Exception>).Get_error_class();
  }
  t.equal(cls, MPI.ERR_OP, 'SUM on a struct of int and double');
  comm.Barrier();
}

MPI.Finalize();
t.finish(rank);
