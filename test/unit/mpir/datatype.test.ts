import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  COMBINER_CONTIGUOUS, COMBINER_DARRAY, COMBINER_DUP, COMBINER_HINDEXED, COMBINER_HINDEXED_BLOCK, COMBINER_HVECTOR,
  COMBINER_INDEXED, COMBINER_INDEXED_BLOCK, COMBINER_NAMED, COMBINER_RESIZED, COMBINER_STRUCT, COMBINER_SUBARRAY,
  COMBINER_VECTOR, DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC, DISTRIBUTE_DFLT_DARG, DISTRIBUTE_NONE, Datatype, Datatypes,
  ORDER_C, ORDER_FORTRAN,
} from '../../../src/mpir/datatype.js';
import { describeFlat } from '../../../src/mpir/dtype/flatten.js';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';

/**
 * The datatype engine without MPI.Init: flattening and merging, sizes and extents, envelopes,
 * and packing checked against a reference packer that expands the type map from
 * Get_envelope/Get_contents alone (element by element, as the MPI standard defines it).
 */
const { INT, DOUBLE, CHAR, SHORT, BYTE, FLOAT, INT64_T, TWOINT, DOUBLE_INT } = Datatypes;

function throwsClass(fn: () => unknown, errorClass: number, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof MPIException && e.error_class === errorClass && message.test(e.message));
}

/** [offset, bytes] of each basic element of one instance, in type-map order. */
function typemap(dt: Datatype): [number, number][] {
  const [, , , combiner] = dt.Get_envelope();
  if (combiner === COMBINER_NAMED) return [[0, dt.size]];
  const [ints, addrs, types] = dt.Get_contents();
  const out: [number, number][] = [];
  const add = (t: Datatype, at: number) => {
    for (const [o, s] of typemap(t)) out.push([at + o, s]);
  };
  const old = types[0]!;
  const ext = old.extent;
  switch (combiner) {
    case COMBINER_DUP:
    case COMBINER_RESIZED:
      add(old, 0);
      break;
    case COMBINER_CONTIGUOUS:
      for (let i = 0; i < ints[0]!; i++) add(old, i * ext);
      break;
    case COMBINER_VECTOR:
      for (let i = 0; i < ints[0]!; i++) for (let j = 0; j < ints[1]!; j++) add(old, (i * ints[2]! + j) * ext);
      break;
    case COMBINER_HVECTOR:
      for (let i = 0; i < ints[0]!; i++) for (let j = 0; j < ints[1]!; j++) add(old, i * addrs[0]! + j * ext);
      break;
    case COMBINER_INDEXED: {
      const n = ints[0]!;
      for (let i = 0; i < n; i++) for (let j = 0; j < ints[1 + i]!; j++) add(old, (ints[1 + n + i]! + j) * ext);
      break;
    }
    case COMBINER_HINDEXED:
      for (let i = 0; i < ints[0]!; i++) for (let j = 0; j < ints[1 + i]!; j++) add(old, addrs[i]! + j * ext);
      break;
    case COMBINER_INDEXED_BLOCK:
      for (let i = 0; i < ints[0]!; i++) for (let j = 0; j < ints[1]!; j++) add(old, (ints[2 + i]! + j) * ext);
      break;
    case COMBINER_HINDEXED_BLOCK:
      for (let i = 0; i < ints[0]!; i++) for (let j = 0; j < ints[1]!; j++) add(old, addrs[i]! + j * ext);
      break;
    case COMBINER_STRUCT:
      for (let i = 0; i < ints[0]!; i++) for (let j = 0; j < ints[1 + i]!; j++) add(types[i]!, addrs[i]! + j * types[i]!.extent);
      break;
    case COMBINER_SUBARRAY: {
      const n = ints[0]!;
      const sizes = ints.slice(1, 1 + n);
      const sub = ints.slice(1 + n, 1 + 2 * n);
      const starts = ints.slice(1 + 2 * n, 1 + 3 * n);
      const order = ints[1 + 3 * n];
      const lists = sizes.map((_, d) => Array.from({ length: sub[d]! }, (_2, k) => starts[d]! + k));
      tuples(lists, order === ORDER_C, sizes, (lin) => add(old, lin * ext));
      break;
    }
    case COMBINER_DARRAY: {
      const [size, rank, n] = ints as [number, number, number];
      void size;
      const gs = ints.slice(3, 3 + n);
      const ds = ints.slice(3 + n, 3 + 2 * n);
      const da = ints.slice(3 + 2 * n, 3 + 3 * n);
      const ps = ints.slice(3 + 3 * n, 3 + 4 * n);
      const order = ints[3 + 4 * n];
      const coords: number[] = [];
      for (let d = n - 1, r = rank; d >= 0; d--) {
        coords[d] = r % ps[d]!;
        r = Math.floor(r / ps[d]!);
      }
      const lists = gs.map((g, d) => {
        const idx: number[] = [];
        for (let x = 0; x < g; x++) {
          if (ds[d] === DISTRIBUTE_NONE) idx.push(x);
          else if (ds[d] === DISTRIBUTE_BLOCK) {
            const b = da[d] === DISTRIBUTE_DFLT_DARG ? Math.ceil(g / ps[d]!) : da[d]!;
            if (Math.floor(x / b) === coords[d]) idx.push(x);
          } else {
            const b = da[d] === DISTRIBUTE_DFLT_DARG ? 1 : da[d]!;
            if (Math.floor(x / b) % ps[d]! === coords[d]) idx.push(x);
          }
        }
        return idx;
      });
      tuples(lists, order === ORDER_C, gs, (lin) => add(old, lin * ext));
      break;
    }
    default:
      throw new Error(`combiner ${combiner}`);
  }
  return out;
}

/** Every index tuple (last dimension fastest in C order, first in Fortran), as a linear index. */
function tuples(lists: number[][], c: boolean, sizes: number[], f: (lin: number) => void): void {
  const n = lists.length;
  const dims = c ? [...Array(n).keys()] : [...Array(n).keys()].reverse();
  const rec = (k: number, idx: number[]) => {
    if (k === n) {
      let lin = 0;
      for (const d of dims) lin = lin * sizes[d]! + idx[d]!;
      f(lin);
      return;
    }
    const d = dims[k]!;
    for (const x of lists[d]!) {
      idx[d] = x;
      rec(k + 1, idx);
    }
  };
  rec(0, []);
}

function refPack(dt: Datatype, user: Uint8Array, count: number): Uint8Array {
  const tm = typemap(dt);
  const out: number[] = [];
  for (let i = 0; i < count; i++) for (const [o, s] of tm) for (let b = 0; b < s; b++) out.push(user[i * dt.extent + o + b]!);
  return Uint8Array.from(out);
}

function refUnpack(dt: Datatype, packed: Uint8Array, user: Uint8Array, count: number): void {
  const tm = typemap(dt);
  let p = 0;
  for (let i = 0; i < count; i++) for (const [o, s] of tm) for (let b = 0; b < s; b++) user[i * dt.extent + o + b] = packed[p++]!;
}

function random(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed * 2654435761 >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}

const c = (t: Datatype) => t.Commit();
const struct1 = c(Datatype.Create_struct([1, 5], [0, 4], [INT, CHAR]));
const battery: [string, Datatype][] = [
  ['contiguous', c(INT.Create_contiguous(3))],
  ['vector', c(DOUBLE.Create_vector(3, 2, 5))],
  ['vector negative stride', c(Datatype.Create_struct([1], [16], [INT.Create_vector(3, 1, -2)]).Create_resized(0, 24))],
  ['hvector of vector', c(INT.Create_vector(2, 2, 3).Create_hvector(3, 1, 40))],
  ['vector of vector of struct', c(struct1.Create_vector(2, 2, 3).Create_vector(2, 1, 2))],
  ['struct of vector and double', c(Datatype.Create_struct([1, 2, 1], [0, 24, 40], [SHORT.Create_vector(3, 1, 4), DOUBLE, CHAR]))],
  ['indexed', c(INT.Create_indexed([2, 0, 1, 3], [5, 1, 0, 9]))],
  ['hindexed', c(SHORT.Create_hindexed([1, 2], [10, 2]))],
  ['indexed_block', c(FLOAT.Create_indexed_block(2, [4, 0, 8]))],
  ['hindexed_block', c(CHAR.Create_hindexed_block(3, [7, 0, 20]))],
  ['subarray C', c(INT.Create_subarray([4, 5, 6], [2, 3, 4], [1, 2, 1], ORDER_C))],
  ['subarray Fortran', c(SHORT.Create_subarray([4, 5], [3, 2], [1, 3], ORDER_FORTRAN))],
  ['subarray full rows', c(DOUBLE.Create_subarray([6, 4], [3, 4], [2, 0]))],
  ['subarray of struct', c(struct1.Create_subarray([3, 4], [2, 2], [1, 1]))],
  ['resized struct', c(Datatype.Create_struct([1, 1], [0, 8], [DOUBLE, CHAR]).Create_resized(0, 16))],
  ['dup of vector', c(INT.Create_vector(2, 1, 3).Dup())],
  ['pair types', c(Datatype.Create_struct([2, 1], [0, 32], [TWOINT, DOUBLE_INT]))],
  ['int64 vector', c(INT64_T.Create_vector(2, 1, 2))],
  ['darray block x cyclic(2) C', c(INT.Create_darray(6, 4, [7, 9], [DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC], [DISTRIBUTE_DFLT_DARG, 2], [2, 3], ORDER_C))],
  ['darray cyclic x none Fortran', c(SHORT.Create_darray(3, 1, [8, 3], [DISTRIBUTE_CYCLIC, DISTRIBUTE_NONE], [DISTRIBUTE_DFLT_DARG, DISTRIBUTE_DFLT_DARG], [3, 1], ORDER_FORTRAN))],
];

describe('MPI.Datatype construction', () => {
  it('computes size, extent and true extent', () => {
    const v = DOUBLE.Create_vector(3, 2, 5);
    assert.equal(v.Get_size(), 48);
    assert.deepEqual(v.Get_extent(), [0, 96]);
    assert.deepEqual(v.Get_true_extent(), [0, 96]);
    assert.equal(v.ub, 96);
    const r = v.Create_resized(-8, 200);
    assert.deepEqual([r.lb, r.extent, r.ub, r.size], [-8, 200, 192, 48]);
    assert.deepEqual(r.Get_true_extent(), [0, 96]);
    // A struct's extent is padded to its largest alignment (C's sizeof), unless bounds are explicit.
    const s = Datatype.Create_struct([1, 5], [0, 4], [INT, CHAR]);
    assert.deepEqual([s.size, s.lb, s.extent], [9, 0, 12]);
    assert.deepEqual(s.Get_true_extent(), [0, 9]);
    assert.equal(Datatype.Create_struct([1, 1], [0, 8], [DOUBLE, CHAR]).extent, 16);
    assert.equal(Datatype.Create_struct([3], [0], [CHAR]).extent, 3);
    assert.equal(Datatype.Create_struct([1, 1], [0, 8], [DOUBLE, CHAR.Create_resized(0, 1)]).extent, 9);
    assert.equal(Datatype.Create_struct([1], [0], [Datatype.Create_struct([1, 1], [0, 4], [SHORT, CHAR])]).extent, 6);
    const neg = INT.Create_hvector(3, 1, -8);
    assert.deepEqual(neg.Get_extent(), [-16, 20]);
    assert.deepEqual(neg.Get_true_extent(), [-16, 20]);
    const sub = INT.Create_subarray([4, 5], [2, 3], [1, 1]);
    assert.deepEqual([sub.size, sub.lb, sub.extent], [24, 0, 80]);
    assert.deepEqual(sub.Get_true_extent(), [24, 32]);
    const empty = INT.Create_contiguous(0);
    assert.deepEqual([empty.size, empty.lb, empty.extent], [0, 0, 0]);
  });

  it('flattens into merged stacks', () => {
    // Contiguous runs become one block; a vector is one stack entry.
    assert.equal(describeFlat(INT.Create_contiguous(4).flat), 'MPI_INT:16@0');
    assert.equal(describeFlat(DOUBLE.Create_vector(3, 2, 5).flat), '[3x40]@0{MPI_DOUBLE:16@0}');
    // A vector of vectors is one stack with two levels; count-1 levels vanish.
    assert.equal(describeFlat(INT.Create_vector(2, 2, 3).Create_hvector(3, 1, 40).Create_contiguous(1).flat),
      '[3x40,2x12]@0{MPI_INT:8@0}');
    // Levels that tile each other merge: full rows of a subarray are one block.
    assert.equal(describeFlat(DOUBLE.Create_subarray([6, 4], [3, 4], [2, 0]).flat), 'MPI_DOUBLE:96@64');
    assert.equal(describeFlat(INT.Create_subarray([4, 5, 6], [2, 3, 4], [1, 2, 1]).flat), '[2x120,3x24]@172{MPI_INT:16@0}');
    assert.equal(describeFlat(INT.Create_vector(3, 2, 2).Create_vector(2, 1, 1).flat), 'MPI_INT:48@0');
    // Structs keep type-map order, one entry per basic block.
    assert.equal(describeFlat(Datatype.Create_struct([1, 5], [0, 4], [INT, CHAR]).Create_vector(4, 1, 2).flat),
      '[4x24]@0{MPI_INT:4@0 MPI_CHAR:5@4}');
    // Adjacent indexed blocks join.
    assert.equal(describeFlat(INT.Create_indexed([2, 3, 1], [0, 2, 9]).flat), 'MPI_INT:20@0 MPI_INT:4@36');
    // The memory grows with distinct blocks, not with counts.
    assert.equal(describeFlat(CHAR.Create_vector(1_000_000, 3, 7).Create_contiguous(1000).flat), '[1000x6999996,1000000x7]@0{MPI_CHAR:3@0}');
  });

  it('reports envelopes and contents', () => {
    assert.deepEqual(INT.Get_envelope(), [0, 0, 0, COMBINER_NAMED]);
    throwsClass(() => INT.Get_contents(), ErrorClass.ERR_TYPE, /predefined/);
    const v = INT.Create_vector(3, 2, 5);
    assert.deepEqual(v.Get_envelope(), [3, 0, 1, COMBINER_VECTOR]);
    assert.deepEqual(v.Get_contents(), [[3, 2, 5], [], [INT]]);
    const h = INT.Create_hvector(3, 2, 40);
    assert.deepEqual(h.Get_contents(), [[3, 2], [40], [INT]]);
    const s = Datatype.Create_struct([1, 2], [0, 8], [DOUBLE, v]);
    assert.deepEqual(s.Get_envelope(), [3, 2, 2, COMBINER_STRUCT]);
    assert.deepEqual(s.Get_contents(), [[2, 1, 2], [0, 8], [DOUBLE, v]]);
    assert.deepEqual(INT.Create_indexed([1, 2], [3, 4]).Get_contents()[0], [2, 1, 2, 3, 4]);
    assert.deepEqual(INT.Create_subarray([4, 5], [2, 3], [1, 1], ORDER_FORTRAN).Get_contents()[0], [2, 4, 5, 2, 3, 1, 1, ORDER_FORTRAN]);
    assert.deepEqual(v.Create_resized(0, 4).Get_contents(), [[], [0, 4], [v]]);
    assert.equal(v.Dup().combiner, COMBINER_DUP);
    assert.equal(INT.Create_contiguous(2).combiner, COMBINER_CONTIGUOUS);
    assert.equal(INT.Create_indexed_block(2, [1]).combiner, COMBINER_INDEXED_BLOCK);
    assert.equal(INT.Create_hindexed_block(2, [1]).combiner, COMBINER_HINDEXED_BLOCK);
    assert.equal(INT.Create_hindexed([2], [1]).combiner, COMBINER_HINDEXED);
    assert.equal(INT.Create_indexed([2], [1]).combiner, COMBINER_INDEXED);
    assert.equal(h.combiner, COMBINER_HVECTOR);
    assert.equal(INT.Create_subarray([2], [1], [0]).combiner, COMBINER_SUBARRAY);
  });

  it('commits, chains, frees', () => {
    const v = INT.Create_vector(2, 1, 2);
    assert.equal(v.isCommitted, false);
    assert.equal(v.Commit(), v);
    assert.equal(v.isCommitted, true);
    assert.equal(v.Dup().isCommitted, true);
    v.Free();
    throwsClass(() => v.Get_size(), ErrorClass.ERR_TYPE, /freed/);
    throwsClass(() => v.Commit(), ErrorClass.ERR_TYPE, /freed/);
    throwsClass(() => INT.Free(), ErrorClass.ERR_TYPE, /predefined/);
    throwsClass(() => INT.Create_vector(2, 1, 2).Pack(new Uint8Array(16), new Uint8Array(16), 0),
      ErrorClass.ERR_TYPE, /not committed; commit it first/);
  });

  it('rejects bad arguments with the argument named', () => {
    throwsClass(() => INT.Create_contiguous(-1), ErrorClass.ERR_COUNT, /count -1 is out of range \(expected 0\.\.9007199254740991\)/);
    throwsClass(() => INT.Create_vector(2, -1, 1), ErrorClass.ERR_COUNT, /blocklength -1/);
    throwsClass(() => INT.Create_vector(2, 1, 1.5), ErrorClass.ERR_ARG, /stride 1\.5 is not an integer/);
    throwsClass(() => INT.Create_indexed([1, 2], [0]), ErrorClass.ERR_ARG, /displacements has 1 entries, expected 2/);
    throwsClass(() => INT.Create_indexed([1, -2], [0, 1]), ErrorClass.ERR_COUNT, /blocklengths\[1\] -2/);
    throwsClass(() => Datatype.Create_struct([1], [0], [INT, INT]), ErrorClass.ERR_ARG, /types has 2 entries/);
    throwsClass(() => Datatype.Create_struct([1], [0], ['x' as unknown as Datatype]), ErrorClass.ERR_TYPE, /types\[0\]/);
    throwsClass(() => INT.Create_subarray([4, 5], [2, 6], [0, 0]), ErrorClass.ERR_ARG, /subsizes\[1\] = 6 is out of range \(expected 0\.\.5\)/);
    throwsClass(() => INT.Create_subarray([4, 5], [2, 3], [3, 0]), ErrorClass.ERR_ARG, /starts\[0\] = 3 is out of range \(expected 0\.\.2\)/);
    throwsClass(() => INT.Create_subarray([4], [2], [0], 3), ErrorClass.ERR_ARG, /order 3 is not MPI\.ORDER_C or MPI\.ORDER_FORTRAN/);
    throwsClass(() => INT.Create_darray(4, 0, [8], [DISTRIBUTE_BLOCK], [1], [4]), ErrorClass.ERR_ARG, /does not cover/);
    throwsClass(() => INT.Create_darray(4, 0, [8], [DISTRIBUTE_BLOCK], [DISTRIBUTE_DFLT_DARG], [3]), ErrorClass.ERR_ARG, /product of psizes \(3\) must equal size \(4\)/);
    throwsClass(() => INT.Create_darray(4, 4, [8], [DISTRIBUTE_BLOCK], [2], [4]), ErrorClass.ERR_ARG, /rank 4 is out of range \(expected 0\.\.3\)/);
    throwsClass(() => INT.Pack_external('native', new Uint8Array(4), new Uint8Array(4), 0), ErrorClass.ERR_ARG, /external32/);
    throwsClass(() => INT.Pack(new Uint8Array(8), new Uint8Array(4), 0), ErrorClass.ERR_BUFFER, /need 8 bytes/);
    throwsClass(() => INT.Unpack(new Uint8Array(4), 0, new Uint8Array(8)), ErrorClass.ERR_TRUNCATE, /need 8 packed bytes/);
    throwsClass(() => INT.Pack(new Uint8Array(8), new Uint8Array(8), 9), ErrorClass.ERR_ARG, /position 9 is out of range/);
  });
});

describe('MPI.Datatype packing', () => {
  for (const [name, dt] of battery) {
    it(`packs and unpacks ${name} as the reference does, from every byte offset`, () => {
      const count = 3;
      const len = Math.max(count * dt.extent, (count - 1) * dt.extent + dt.trueUb) + 5;
      const user = random(len, dt.size + count);
      const ref = refPack(dt, user, count);
      assert.equal(ref.length, count * dt.size);
      // Whole-buffer Pack (count = bytes / extent) at a position.
      const whole = user.subarray(0, count * dt.extent);
      if (dt.extent > 0 && (count - 1) * dt.extent + dt.trueUb <= whole.length && dt.trueLb >= 0) {
        const out = new Uint8Array(ref.length + 7);
        assert.equal(dt.Pack(whole, out, 7), 7 + ref.length);
        assert.deepEqual(out.subarray(7), ref);
        assert.equal(dt.Pack_size(count), ref.length);
      }
      // Restart at every byte offset, to every end (a fragment anywhere in the type).
      const out = new Uint8Array(ref.length);
      for (let s = 0; s <= ref.length; s++) {
        for (let e = s; e <= ref.length; e += Math.max(1, Math.floor(ref.length / 13))) {
          out.fill(0);
          dt.packTo(user, count, s, e, out, s);
          assert.deepEqual(out.subarray(s, e), ref.subarray(s, e), `pack [${s}, ${e})`);
        }
      }
      // Unpack in fragments of every size; bytes outside the type map keep their sentinel.
      const expect = new Uint8Array(len).fill(0xa5);
      refUnpack(dt, ref, expect, count);
      for (const step of [1, 3, 7, 64, ref.length || 1]) {
        const got = new Uint8Array(len).fill(0xa5);
        for (let s = 0; s < ref.length; s += step) dt.unpackTo(ref, s, count, s, Math.min(ref.length, s + step), got);
        assert.deepEqual(got, expect, `unpack in steps of ${step}`);
      }
    });
  }

  it('unpacks with Unpack into the whole buffer', () => {
    const dt = INT.Create_vector(2, 1, 3).Commit();
    const packed = Int32Array.of(11, 22, 33, 44);
    const out = new Int32Array(8).fill(-1);
    assert.equal(dt.Unpack(packed, 0, out), 16);
    assert.deepEqual([...out], [11, -1, -1, 22, 33, -1, -1, 44]);
    const back = new Int32Array(4);
    assert.equal(dt.Pack(out, back, 0), 16);
    assert.deepEqual([...back], [11, 22, 33, 44]);
  });

  it('packs external32 big-endian and back', () => {
    const dt = Datatype.Create_struct([2, 1, 1, 1], [0, 8, 16, 24], [SHORT, INT, DOUBLE, BYTE]).Commit();
    const user = new ArrayBuffer(32);
    const v = new DataView(user);
    v.setInt16(0, 0x0102, true);
    v.setInt16(2, -2, true);
    v.setInt32(8, 0x0a0b0c0d, true);
    v.setFloat64(16, Math.PI, true);
    v.setUint8(24, 0x7f);
    assert.equal(dt.Pack_external_size('external32', 1), 17);
    const out = new Uint8Array(17);
    assert.equal(dt.Pack_external('external32', user, out, 0), 17);
    const o = new DataView(out.buffer);
    assert.equal(o.getInt16(0, false), 0x0102);
    assert.equal(o.getInt16(2, false), -2);
    assert.equal(o.getInt32(4, false), 0x0a0b0c0d);
    assert.equal(o.getFloat64(8, false), Math.PI);
    assert.equal(o.getUint8(16), 0x7f);
    const back = new Uint8Array(32);
    assert.equal(dt.Unpack_external('external32', out, 0, back), 17);
    const b = new DataView(back.buffer);
    assert.equal(b.getInt16(2, true), -2);
    assert.equal(b.getInt32(8, true), 0x0a0b0c0d);
    assert.equal(b.getFloat64(16, true), Math.PI);
    // Pair types swap each part; BigInt64 elements swap as 8 bytes.
    const pair = Int32Array.of(0x01020304, 7);
    const po = new Uint8Array(8);
    TWOINT.Pack_external('external32', pair, po, 0);
    assert.deepEqual([...po], [1, 2, 3, 4, 0, 0, 0, 7]);
    const big = new Uint8Array(8);
    INT64_T.Pack_external('external32', BigInt64Array.of(0x0102030405060708n), big, 0);
    assert.deepEqual([...big], [1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('converts every predefined kind to external32 and back', () => {
    const write = (v: DataView, at: number, kind: string, little: boolean): void => {
      switch (kind) {
        case 'int8': v.setInt8(at, -5); break;
        case 'uint8': case 'bool': case 'packed': v.setUint8(at, 200); break;
        case 'int16': v.setInt16(at, -12345, little); break;
        case 'uint16': v.setUint16(at, 54321, little); break;
        case 'int32': v.setInt32(at, -123456789, little); break;
        case 'uint32': v.setUint32(at, 3123456789, little); break;
        case 'int64': v.setBigInt64(at, -1234567890123456789n, little); break;
        case 'uint64': v.setBigUint64(at, 12345678901234567890n, little); break;
        case 'float32': v.setFloat32(at, 1.5e-3, little); break;
        case 'float64': v.setFloat64(at, -Math.E, little); break;
        default: throw new Error(kind);
      }
    };
    const pairParts: Record<string, [string, number][]> = {
      MPI_FLOAT_INT: [['float32', 0], ['int32', 4]],
      MPI_DOUBLE_INT: [['float64', 0], ['int32', 8]],
      MPI_LONG_INT: [['int64', 0], ['int32', 8]],
      MPI_2INT: [['int32', 0], ['int32', 4]],
      MPI_SHORT_INT: [['int16', 0], ['int32', 4]],
    };
    for (const dt of Object.values(Datatypes)) {
      if (dt.size === 0) continue;
      const parts = dt.kind === 'pair' ? pairParts[dt.name]! : [[dt.kind, 0] as [string, number]];
      const native = new DataView(new ArrayBuffer(dt.size * 2));
      const big = new DataView(new ArrayBuffer(dt.size * 2));
      for (const e of [0, dt.size]) for (const [kind, off] of parts) {
        write(native, e + off, kind, true);
        write(big, e + off, kind, false);
      }
      const out = new Uint8Array(dt.size * 2);
      assert.equal(dt.Pack_external('external32', native, out, 0), dt.size * 2, dt.name);
      // Padding of pair types is copied as it is (zero on both sides here).
      assert.deepEqual(out, new Uint8Array(big.buffer), `${dt.name} external32 bytes`);
      const back = new Uint8Array(dt.size * 2);
      dt.Unpack_external('external32', out, 0, back);
      assert.deepEqual(back, new Uint8Array(native.buffer), `${dt.name} back to native`);
    }
  });

  it('counts basic elements', () => {
    const s = Datatype.Create_struct([1, 5], [0, 4], [INT, CHAR]).Commit();
    assert.equal(s.elementsIn(9), 6);
    assert.equal(s.elementsIn(18 + 4 + 2), 15);
    assert.equal(s.elementsIn(2), null);
    assert.equal(TWOINT.elementsIn(16), 4);
  });
});
