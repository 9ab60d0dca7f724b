// The native reduction kernels (native/src/reduce.cc) against a reference written here with
// typed arrays: every predefined op on every element kind it is defined for, 1000 elements
// (the native path) at aligned and unaligned byte offsets, with integer wrap-around, NaN
// operands (which win MAX and MIN), 32-bit products wrapping exactly (as in C; a double product
// would lose the low bits) and logical results of 1 or 0. Also through MPI.Op.apply,
// which takes the native path from 256 elements, and the errors for undefined pairs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { addon } from '../../../src/native/addon.js';
import { Datatypes } from '../../../src/mpir/datatype.js';
import { Ops } from '../../../src/mpir/op.js';

type Ctor = Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor |
  Int32ArrayConstructor | Uint32ArrayConstructor | BigInt64ArrayConstructor | BigUint64ArrayConstructor |
  Float32ArrayConstructor | Float64ArrayConstructor;
const KINDS: [string, number, Ctor, keyof typeof Datatypes][] = [
  ['int8', 0, Int8Array, 'INT8_T'], ['uint8', 1, Uint8Array, 'UINT8_T'], ['int16', 2, Int16Array, 'INT16_T'],
  ['uint16', 3, Uint16Array, 'UINT16_T'], ['int32', 4, Int32Array, 'INT32_T'], ['uint32', 5, Uint32Array, 'UINT32_T'],
  ['int64', 6, BigInt64Array, 'INT64_T'], ['uint64', 7, BigUint64Array, 'UINT64_T'], ['float32', 8, Float32Array, 'FLOAT'],
  ['float64', 9, Float64Array, 'DOUBLE'],
];
const OPS: [string, number][] = [['SUM', 0], ['PROD', 1], ['MAX', 2], ['MIN', 3], ['LAND', 4], ['LOR', 5], ['LXOR', 6],
  ['BAND', 7], ['BOR', 8], ['BXOR', 9]];

function reference(op: string, x: any, y: any, big: boolean): void {
  const one = big ? 1n : 1;
  const zero = big ? 0n : 0;
  for (let i = 0; i < x.length; i++) {
    const a = x[i];
    const b = y[i];
    switch (op) {
      case 'SUM': y[i] = a + b; break;
      case 'PROD': y[i] = typeof a === 'number' && Math.abs(a * b) > 2 ** 53 ? Math.imul(a, b) : a * b; break;
      case 'MAX': if (a > b || a !== a) y[i] = a; break;
      case 'MIN': if (a < b || a !== a) y[i] = a; break;
      case 'LAND': y[i] = a != 0 && b != 0 ? one : zero; break;
      case 'LOR': y[i] = a != 0 || b != 0 ? one : zero; break;
      case 'LXOR': y[i] = (a != 0) !== (b != 0) ? one : zero; break;
      case 'BAND': y[i] = a & b; break;
      case 'BOR': y[i] = a | b; break;
      default: y[i] = a ^ b;
    }
  }
}

/** n elements of random bits (floats: random values, some NaN, some zero) at byte offset `at`. */
function operand(C: Ctor, n: number, at: number, float: boolean): Uint8Array {
  const bytes = new Uint8Array(at + n * C.BYTES_PER_ELEMENT);
  if (float) {
    const v = new C(n) as Float32Array | Float64Array;
    for (let i = 0; i < n; i++) v[i] = i % 17 === 0 ? NaN : i % 13 === 0 ? 0 : (Math.random() - 0.5) * 1e6;
    bytes.set(new Uint8Array(v.buffer), at);
  } else {
    bytes.set(randomBytes(n * C.BYTES_PER_ELEMENT), at);
    for (let i = 0; i < n; i += 11) bytes.fill(0, at + i * C.BYTES_PER_ELEMENT, at + (i + 1) * C.BYTES_PER_ELEMENT);
  }
  return bytes;
}

describe('native reduction kernels', () => {
  const n = 1000;
  for (const [kind, code, C, dtName] of KINDS) {
    const float = kind.startsWith('float');
    const big = kind.endsWith('64') && !float;
    for (const [op, opCode] of OPS) {
      if (float && opCode >= 7) continue;
      it(`${op} on ${kind}`, () => {
        for (const at of [0, 3]) {
          const x = operand(C, n, at, float);
          const y = operand(C, n, at + 1, float);
          const want = new C(n) as any;
          new Uint8Array(want.buffer).set(y.subarray(at + 1));
          const xs = new C(n) as any;
          new Uint8Array(xs.buffer).set(x.subarray(at));
          reference(op, xs, want, big);
          const got = y.slice();
          addon.reduce(opCode, code, x.subarray(at), got.subarray(at + 1), n);
          assert.deepEqual(got.subarray(at + 1), new Uint8Array(want.buffer), `addon.reduce ${op} ${kind} at offset ${at}`);
          // Through the op: the same bytes.
          const viaOp = y.slice();
          Ops[op as keyof typeof Ops].apply(x.subarray(at), viaOp.subarray(at + 1), n, Datatypes[dtName]);
          assert.deepEqual(viaOp.subarray(at + 1), new Uint8Array(want.buffer), `Op.apply ${op} ${kind} at offset ${at}`);
        }
      });
    }
  }
  it('refuses ops not defined on a kind, and operands too short', () => {
    assert.throws(() => addon.reduce(7, 8, new Uint8Array(8), new Uint8Array(8), 2), RangeError);
    assert.throws(() => addon.reduce(0, 4, new Uint8Array(8), new Uint8Array(8), 3), /do not fit/);
  });
});
