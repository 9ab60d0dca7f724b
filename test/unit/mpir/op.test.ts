import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Datatypes } from '../../../src/mpir/datatype.js';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';
import {
  BAND, BOR, BXOR, LAND, LOR, LXOR, MAX, MAXLOC, MIN, MINLOC, NO_OP, Op, PROD, REPLACE, SUM, reduceValues,
} from '../../../src/mpir/op.js';

/** Ops are local: applied straight to byte views, no MPI.Init. */
const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
function apply<T extends ArrayBufferView & ArrayLike<any>>(op: Op, a: T, b: T, dt: any): T {
  op.apply(bytes(a), bytes(b), a.length, dt);
  return b;
}

describe('MPI.Op predefined', () => {
  it('SUM, PROD, MAX, MIN on int32 and doubles (inout = in op inout)', () => {
    assert.deepEqual([...apply(SUM, Int32Array.of(1, -2, 3), Int32Array.of(10, 20, 30), Datatypes.INT)], [11, 18, 33]);
    assert.deepEqual([...apply(PROD, Float64Array.of(1.5, -2), Float64Array.of(2, 4), Datatypes.DOUBLE)], [3, -8]);
    assert.deepEqual([...apply(MAX, Int16Array.of(5, -7), Int16Array.of(3, -1), Datatypes.SHORT)], [5, -1]);
    assert.deepEqual([...apply(MIN, Float32Array.of(5, -7), Float32Array.of(3, -1), Datatypes.FLOAT)], [3, -7]);
  });

  it('wraps integer overflow as C does', () => {
    assert.deepEqual([...apply(SUM, Int32Array.of(0x7fffffff), Int32Array.of(1), Datatypes.INT)], [-0x80000000]);
    assert.deepEqual([...apply(SUM, Uint8Array.of(200), Uint8Array.of(100), Datatypes.UNSIGNED_CHAR)], [44]);
  });

  it('64-bit integers as BigInt', () => {
    const r = apply(SUM, BigInt64Array.of(2n ** 62n, -5n), BigInt64Array.of(2n ** 62n, 3n), Datatypes.INT64_T);
    assert.deepEqual([...r], [-(2n ** 63n), -2n]);
    assert.deepEqual([...apply(MAX, BigUint64Array.of(2n ** 63n, 1n), BigUint64Array.of(1n, 2n), Datatypes.UINT64_T)], [2n ** 63n, 2n]);
    assert.deepEqual([...apply(BXOR, BigInt64Array.of(6n), BigInt64Array.of(3n), Datatypes.INT64_T)], [5n]);
    assert.deepEqual([...apply(LAND, BigInt64Array.of(6n, 0n), BigInt64Array.of(3n, 1n), Datatypes.INT64_T)], [1n, 0n]);
  });

  it('logical and bitwise ops', () => {
    assert.deepEqual([...apply(LAND, Int32Array.of(1, 0, 2), Int32Array.of(3, 1, 0), Datatypes.INT)], [1, 0, 0]);
    assert.deepEqual([...apply(LOR, Int32Array.of(0, 0, 2), Int32Array.of(0, 1, 0), Datatypes.INT)], [0, 1, 1]);
    assert.deepEqual([...apply(LXOR, Uint8Array.of(1, 1, 0), Uint8Array.of(1, 0, 0), Datatypes.C_BOOL)], [0, 1, 0]);
    assert.deepEqual([...apply(BAND, Uint8Array.of(0xf0), Uint8Array.of(0x3c), Datatypes.BYTE)], [0x30]);
    assert.deepEqual([...apply(BOR, Uint16Array.of(0xf0), Uint16Array.of(0x0f), Datatypes.UNSIGNED_SHORT)], [0xff]);
  });

  it('REPLACE takes the first operand, NO_OP keeps the second', () => {
    assert.deepEqual([...apply(REPLACE, Int32Array.of(1, 2), Int32Array.of(3, 4), Datatypes.INT)], [1, 2]);
    assert.deepEqual([...apply(NO_OP, Int32Array.of(1, 2), Int32Array.of(3, 4), Datatypes.INT)], [3, 4]);
  });

  it('MAXLOC/MINLOC on DOUBLE_INT, TWOINT, FLOAT_INT, SHORT_INT, LONG_INT: ties take the smaller index', () => {
    const dv = (pairs: [number, number][]) => {
      const v = new DataView(new ArrayBuffer(16 * pairs.length));
      pairs.forEach(([x, i], k) => { v.setFloat64(16 * k, x, true); v.setInt32(16 * k + 8, i, true); });
      return new Uint8Array(v.buffer);
    };
    const read = (u: Uint8Array) => {
      const v = new DataView(u.buffer);
      return Array.from({ length: u.length / 16 }, (_, k) => [v.getFloat64(16 * k, true), v.getInt32(16 * k + 8, true)]);
    };
    const b = dv([[1, 5], [2, 5], [3, 5]]);
    MAXLOC.apply(dv([[1, 9], [3, 1], [3, 7]]), b, 3, Datatypes.DOUBLE_INT);
    assert.deepEqual(read(b), [[1, 5], [3, 1], [3, 5]]);
    const c = dv([[1, 5], [2, 5]]);
    MINLOC.apply(dv([[1, 2], [3, 0]]), c, 2, Datatypes.DOUBLE_INT);
    assert.deepEqual(read(c), [[1, 2], [2, 5]]);
    const t = Int32Array.of(4, 3, 9, 0);
    MAXLOC.apply(bytes(Int32Array.of(4, 1, 8, 2)), bytes(t), 2, Datatypes.TWOINT);
    assert.deepEqual([...t], [4, 1, 9, 0]);
    const f = new DataView(new ArrayBuffer(8));
    f.setFloat32(0, 2.5, true); f.setInt32(4, 3, true);
    const g = new DataView(new ArrayBuffer(8));
    g.setFloat32(0, 2.5, true); g.setInt32(4, 1, true);
    MINLOC.apply(new Uint8Array(g.buffer), new Uint8Array(f.buffer), 1, Datatypes.FLOAT_INT);
    assert.equal(f.getInt32(4, true), 1);
    const s = new DataView(new ArrayBuffer(8));
    s.setInt16(0, -4, true); s.setInt32(4, 2, true);
    const s2 = new DataView(new ArrayBuffer(8));
    s2.setInt16(0, -3, true); s2.setInt32(4, 0, true);
    MINLOC.apply(new Uint8Array(s.buffer), new Uint8Array(s2.buffer), 1, Datatypes.SHORT_INT);
    assert.deepEqual([s2.getInt16(0, true), s2.getInt32(4, true)], [-4, 2]);
    const l = new DataView(new ArrayBuffer(16));
    l.setBigInt64(0, 2n ** 40n, true); l.setInt32(8, 6, true);
    const l2 = new DataView(new ArrayBuffer(16));
    l2.setBigInt64(0, 5n, true); l2.setInt32(8, 0, true);
    MAXLOC.apply(new Uint8Array(l.buffer), new Uint8Array(l2.buffer), 1, Datatypes.LONG_INT);
    assert.deepEqual([l2.getBigInt64(0, true), l2.getInt32(8, true)], [2n ** 40n, 6]);
  });

  it('a contiguous derived type reduces every basic element it holds', () => {
    const t3 = Datatypes.INT.Create_contiguous(3).Commit();
    const b = Int32Array.of(1, 1, 1, 1, 1, 1);
    SUM.apply(bytes(Int32Array.of(1, 2, 3, 4, 5, 6)), bytes(b), 2, t3);
    assert.deepEqual([...b], [2, 3, 4, 5, 6, 7]);
  });

  it('misaligned operand bytes still reduce correctly', () => {
    const raw = new Uint8Array(17);
    const a = new Uint8Array(raw.buffer, 1, 16);
    new DataView(a.buffer, 1).setFloat64(0, 1.5, true);
    new DataView(a.buffer, 1).setFloat64(8, 2.5, true);
    const b = new Float64Array([10, 20]);
    SUM.apply(a, bytes(b), 2, Datatypes.DOUBLE);
    assert.deepEqual([...b], [11.5, 22.5]);
    const inout = new Uint8Array(new ArrayBuffer(17), 1, 16);
    new DataView(inout.buffer, 1).setFloat64(0, 1, true);
    SUM.apply(bytes(Float64Array.of(2, 3)), inout, 2, Datatypes.DOUBLE);
    assert.equal(new DataView(inout.buffer, 1).getFloat64(0, true), 3);
    assert.equal(new DataView(inout.buffer, 1).getFloat64(8, true), 3);
  });

  it('rejects bad op/type pairs with a message naming both', () => {
    assert.match(BAND.checkType(Datatypes.DOUBLE)!, /MPI\.BAND is not defined on MPI_DOUBLE/);
    assert.match(MAXLOC.checkType(Datatypes.INT)!, /pair types/);
    assert.match(LAND.checkType(Datatypes.FLOAT)!, /MPI\.LAND/);
    assert.match(SUM.checkType(Datatypes.C_BOOL)!, /MPI_C_BOOL/);
    assert.equal(SUM.checkType(Datatypes.INT64_T), null);
    assert.equal(MINLOC.checkType(Datatypes.TWOINT), null);
  });
});

describe('MPI.Op.Create', () => {
  it('calls the function with typed views (invec, inoutvec, datatype) and honours commute', () => {
    let seen: unknown[] = [];
    const op = Op.Create((inv: Float64Array, inout: Float64Array, dt: unknown) => {
      seen = [inv.constructor.name, inout.constructor.name, dt];
      for (let i = 0; i < inv.length; i++) inout[i] = inv[i]! - inout[i]!;
    }, false);
    assert.equal(op.Is_commutative(), false);
    assert.deepEqual([...apply(op, Float64Array.of(10, 5), Float64Array.of(1, 2), Datatypes.DOUBLE)], [9, 3]);
    assert.deepEqual(seen, ['Float64Array', 'Float64Array', Datatypes.DOUBLE]);
    assert.equal(Op.Create(() => {}, true).Is_commutative(), true);
  });

  it('Free makes the op unusable; predefined ops cannot be freed; fn must be a function', () => {
    const op = Op.Create(() => {});
    op.Free();
    assert.match(op.checkType(Datatypes.INT)!, /freed/);
    assert.throws(() => SUM.Free(), (e: unknown) => e instanceof MPIException && e.error_class === ErrorClass.ERR_OP);
    assert.throws(() => Op.Create(42 as never), (e: unknown) => e instanceof MPIException && e.error_class === ErrorClass.ERR_OP);
  });
});

describe('object-form reductions', () => {
  it('reduce numbers, bigints, pairs and functions', () => {
    assert.equal(reduceValues(SUM, 2, 3), 5);
    assert.equal(reduceValues(PROD, 2n, 3n), 6n);
    assert.equal(reduceValues(MAX, 2, 3), 3);
    assert.deepEqual(reduceValues(MAXLOC, [3, 1], [3, 0]), [3, 0]);
    assert.deepEqual(reduceValues(MINLOC, [1, 4], [2, 0]), [1, 4]);
    assert.equal(reduceValues((a: string, b: string) => a + b, 'x', 'y'), 'xy');
  });
});

describe('Op.applyAt (the node cells\' reductions)', () => {
  it('runs each kind\'s loop when a loop alternates kinds, and declines what apply() serves', () => {
    const i32 = Int32Array.of(1, 2, 3, 4, 5, 6);
    const f64 = Float64Array.of(0.5, 1.5, 2.5, 3.5);
    const i64 = BigInt64Array.of(2n ** 40n, -3n, 7n);
    for (let round = 0; round < 3; round++) {
      const y32 = Int32Array.of(10, 20, 30);
      assert.equal(SUM.applyAt(i32, 3, y32, 0, 3, 'int32'), true);
      assert.deepEqual([...y32], [14, 25, 36]);
      const y64 = Float64Array.of(0, 1, 1, 0);
      assert.equal(SUM.applyAt(f64, 1, y64, 1, 2, 'float64'), true);
      assert.deepEqual([...y64], [0, 2.5, 3.5, 0]);
      const yBig = BigInt64Array.of(1n, 1n);
      assert.equal(PROD.applyAt(i64, 0, yBig, 0, 2, 'int64'), true);
      assert.deepEqual([...yBig], [2n ** 40n, -3n]);
      // Kinds and ops without a loop here: nothing changed, whichever kind came before.
      const untouched = Int32Array.of(9, 9);
      assert.equal(MAXLOC.applyAt(i32, 0, untouched, 0, 2, 'pair'), false);
      assert.equal(SUM.applyAt(i32, 0, untouched, 0, 2, 'packed'), false);
      assert.equal(REPLACE.applyAt(i32, 0, untouched, 0, 2, 'int32'), false);
      assert.equal(Op.Create((a: Int32Array, b: Int32Array) => b.set(a)).applyAt(i32, 0, untouched, 0, 2, 'int32'), false);
      assert.deepEqual([...untouched], [9, 9]);
      assert.equal(MAX.applyAt(i32, 4, untouched, 0, 2, 'int32'), true);
      assert.deepEqual([...untouched], [9, 9]);
      assert.equal(MIN.applyAt(i32, 4, untouched, 0, 2, 'int32'), true);
      assert.deepEqual([...untouched], [5, 6]);
    }
  });
});
