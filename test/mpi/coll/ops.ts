/**
 * Reductions whose order or pairing matters: a non-commutative user op (2x2 matrix product)
 * through Reduce (every root), Allreduce, Reduce_scatter_block, Scan and Exscan; MAXLOC and
 * MINLOC on DOUBLE_INT and TWOINT with ties (the smaller index wins).
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const K = Number(process.argv[2] ?? 5); // matrices per buffer

/** invec holds the lower-ranked operand: inout = in x inout for each 2x2 matrix. */
const matmul = MPI.Op.Create((invec: Float64Array, inout: Float64Array) => {
  for (let m = 0; m + 4 <= invec.length; m += 4) {
    const [a, b, c, d] = [invec[m]!, invec[m + 1]!, invec[m + 2]!, invec[m + 3]!];
    const [e, f, g, h] = [inout[m]!, inout[m + 1]!, inout[m + 2]!, inout[m + 3]!];
    inout[m] = a * e + b * g;
    inout[m + 1] = a * f + b * h;
    inout[m + 2] = c * e + d * g;
    inout[m + 3] = c * f + d * h;
  }
}, false);
t.equal(matmul.Is_commutative(), false, 'Is_commutative');
t.equal(MPI.SUM.Is_commutative(), true, 'SUM is commutative');

const mat = (r: number, k: number) => [1, r + k + 1, (r * 3 + k) % 4, 1];
function mine(k0 = 0, n = K): Float64Array {
  const a = new Float64Array(4 * n);
  for (let k = 0; k < n; k++) a.set(mat(rank, k0 + k), 4 * k);
  return a;
}
function product(from: number, to: number, k: number): number[] {
  let p = [1, 0, 0, 1];
  for (let r = from; r < to; r++) {
    const m = mat(r, k);
    p = [p[0]! * m[0]! + p[1]! * m[2]!, p[0]! * m[1]! + p[1]! * m[3]!, p[2]! * m[0]! + p[3]! * m[2]!, p[2]! * m[1]! + p[3]! * m[3]!];
  }
  return p;
}
function expectProducts(got: Float64Array, from: number, to: number, what: string, k0 = 0): void {
  for (let k = 0; k < got.length / 4; k++) {
    const want = product(from, to, k0 + k);
    for (let j = 0; j < 4; j++) {
      if (got[4 * k + j] !== want[j]) {
        t.check(false, `${what}: matrix ${k} entry ${j} is ${got[4 * k + j]}, expected ${want[j]}`);
        return;
      }
    }
  }
}

for (let root = 0; root < size; root++) {
  const out = new Float64Array(4 * K);
  comm.Reduce(mine(), out, matmul, root);
  if (rank === root) expectProducts(out, 0, size, `Reduce root ${root}`);
}
const all = new Float64Array(4 * K);
comm.Allreduce(mine(), all, matmul);
expectProducts(all, 0, size, 'Allreduce');
const blk = new Float64Array(4 * K);
const send = new Float64Array(4 * K * size);
for (let r = 0; r < size; r++) send.set(mine(r * K), r * 4 * K);
comm.Reduce_scatter_block(send, blk, matmul);
expectProducts(blk, 0, size, 'Reduce_scatter_block', rank * K);
const sc = new Float64Array(4 * K);
comm.Scan(mine(), sc, matmul);
expectProducts(sc, 0, rank + 1, 'Scan');
const ex = new Float64Array(4 * K);
comm.Exscan(mine(), ex, matmul);
if (rank > 0) expectProducts(ex, 0, rank, 'Exscan');
const ia = new Float64Array(4 * K);
comm.Iallreduce(mine(), ia, matmul).Wait();
expectProducts(ia, 0, size, 'Iallreduce');
matmul.Free();

// MAXLOC / MINLOC on DOUBLE_INT (16 bytes: f64 value, i32 index, padding) with ties.
const N = 6;
const value = (r: number, i: number) => [(r * 5 + i) % 3, i % 2 === 0 ? 7 : r % 2][i % 2 === 0 ? 1 : 0]!;
const pairs = new DataView(new ArrayBuffer(16 * N));
for (let i = 0; i < N; i++) {
  pairs.setFloat64(16 * i, value(rank, i), true);
  pairs.setInt32(16 * i + 8, rank, true);
}
for (const [name, op, better] of [['MAXLOC', MPI.MAXLOC, (a: number, b: number) => a > b], ['MINLOC', MPI.MINLOC, (a: number, b: number) => a < b]] as const) {
  const out = new DataView(new ArrayBuffer(16 * N));
  comm.Allreduce([pairs, N, MPI.DOUBLE_INT], [out, N, MPI.DOUBLE_INT], op);
  for (let i = 0; i < N; i++) {
    let bv = value(0, i);
    let bi = 0;
    for (let r = 1; r < size; r++) if (better(value(r, i), bv)) { bv = value(r, i); bi = r; }
    t.equal(out.getFloat64(16 * i, true), bv, `${name} DOUBLE_INT value ${i}`);
    t.equal(out.getInt32(16 * i + 8, true), bi, `${name} DOUBLE_INT index ${i} (ties take the smaller index)`);
  }
  const two = new Int32Array(2 * N);
  for (let i = 0; i < N; i++) { two[2 * i] = value(rank, i); two[2 * i + 1] = rank; }
  const tout = new Int32Array(2 * N);
  comm.Reduce([two, N, MPI.TWOINT], [tout, N, MPI.TWOINT], op, size - 1);
  if (rank === size - 1) {
    for (let i = 0; i < N; i++) {
      let bv = value(0, i);
      let bi = 0;
      for (let r = 1; r < size; r++) if (better(value(r, i), bv)) { bv = value(r, i); bi = r; }
      t.equal(tout[2 * i], bv, `${name} TWOINT value ${i}`);
      t.equal(tout[2 * i + 1], bi, `${name} TWOINT index ${i}`);
    }
  }
}

MPI.Finalize();
t.finish(rank);
