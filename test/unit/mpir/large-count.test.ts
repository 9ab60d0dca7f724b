// Large counts without MPI.Init (issue 17): counts, strides and displacements past 2^31 in the
// datatype constructors, bounds past 4 GiB kept exact, Status counts up to MAX_SAFE_INTEGER, and
// Pack/Unpack through memory longer than one Uint8Array can view (a lazily backed ArrayBuffer:
// only the pages the blocks touch take memory).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferSpec, decodeBuffer } from '../../../src/mpir/buffer.js';
import { Datatype, Datatypes } from '../../../src/mpir/datatype.js';
import { VIEW_BYTES_MAX } from '../../../src/mpir/dtype/user-view.js';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';
import { Status } from '../../../src/mpir/status.js';

const { BYTE, INT, DOUBLE } = Datatypes;
const G4 = 2 ** 32;

function throwsClass(fn: () => unknown, errorClass: number, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof MPIException && e.error_class === errorClass && message.test(e.message));
}

function committed(t: Datatype): Datatype {
  return t.Commit();
}

describe('large counts in the datatype constructors', () => {
  it('counts, blocklengths, strides and displacements past 2^31 give exact sizes and extents', () => {
    const big = INT.Create_contiguous(2 ** 40);
    assert.equal(big.Get_size(), 2 ** 42);
    assert.deepEqual(big.Get_extent(), [0, 2 ** 42]);
    const v = BYTE.Create_vector(3, 2 ** 31 + 1, 2 ** 33 + 5);
    assert.equal(v.Get_size(), 3 * (2 ** 31 + 1));
    assert.deepEqual(v.Get_extent(), [0, 2 * (2 ** 33 + 5) + 2 ** 31 + 1]);
    const ix = INT.Create_indexed([1, 2], [-(2 ** 31) - 7, 2 ** 31 + 9]);
    assert.deepEqual(ix.Get_extent(), [(-(2 ** 31) - 7) * 4, (2 ** 31 + 9 + 2 - (-(2 ** 31) - 7)) * 4]);
    assert.deepEqual(ix.Get_contents()[0], [2, 1, 2, -(2 ** 31) - 7, 2 ** 31 + 9]);
    const sub = BYTE.Create_subarray([2 ** 33, 3], [2, 1], [2 ** 32 + 1, 2]);
    assert.deepEqual(sub.Get_extent(), [0, 3 * 2 ** 33]);
    assert.deepEqual(sub.Get_true_extent(), [(2 ** 32 + 1) * 3 + 2, 4]);
    assert.equal(committed(INT.Create_contiguous(3)).Pack_size(2 ** 50), 12 * 2 ** 50);
  });

  it('a type whose extent passes 4 GiB: bounds, true bounds and size stay exact through nesting', () => {
    const h = INT.Create_hindexed([3, 2, 1], [0, G4 + 8, 2 * G4 + 4]);
    assert.equal(h.Get_size(), 24);
    assert.deepEqual(h.Get_extent(), [0, 2 * G4 + 8]);
    assert.deepEqual(h.Get_true_extent(), [0, 2 * G4 + 8]);
    const r = h.Create_resized(-16, 3 * G4 + 24);
    assert.deepEqual(r.Get_extent(), [-16, 3 * G4 + 24]);
    const two = r.Create_contiguous(2);
    assert.deepEqual(two.Get_extent(), [-16, 2 * (3 * G4 + 24)]);
    assert.deepEqual(two.Get_true_extent(), [0, 3 * G4 + 24 + 2 * G4 + 8]);
    assert.equal(two.Get_size(), 48);
  });

  it('a count past Number.MAX_SAFE_INTEGER, and a type whose size or bounds would pass it, are refused', () => {
    throwsClass(() => INT.Create_contiguous(2 ** 53), ErrorClass.ERR_COUNT, /Create_contiguous: count 9007199254740992 is out of range \(expected 0\.\.9007199254740991\)/);
    throwsClass(() => DOUBLE.Create_contiguous(2 ** 52), ErrorClass.ERR_ARG, /Create_contiguous: the size of contiguous\(MPI_DOUBLE\) would be .* past Number\.MAX_SAFE_INTEGER/);
    throwsClass(() => BYTE.Create_hvector(2, 1, 2 ** 53 - 1), ErrorClass.ERR_ARG, /Create_hvector: the (extent|ub) of hvector\(MPI_BYTE\)/);
    throwsClass(() => INT.Create_vector(2, 1, 2 ** 53), ErrorClass.ERR_ARG, /Create_vector: stride 9007199254740992 is not an integer within/);
  });
});

describe('Status counts past 2^31', () => {
  it('Get_count and Get_elements are exact for 2^31 + 16 bytes, 2^29 + 4 INT and beyond 2^31 elements', () => {
    const s = new Status();
    s.count = 2 ** 31 + 16;
    assert.equal(s.Get_count(BYTE), 2 ** 31 + 16);
    assert.equal(s.Get_count(INT), 2 ** 29 + 4);
    assert.equal(s.Get_elements(INT), 2 ** 29 + 4);
    assert.equal(s.Get_count(DOUBLE), 2 ** 28 + 2);
    const triple = committed(INT.Create_contiguous(3));
    s.Set_elements(INT, 3 * (2 ** 31 + 5));
    assert.equal(s.count, 12 * (2 ** 31 + 5));
    assert.equal(s.Get_count(triple), 2 ** 31 + 5);
    assert.equal(s.Get_elements(triple), 3 * (2 ** 31 + 5));
    s.Set_elements(triple, 2 ** 33 + 2);
    assert.equal(s.Get_elements(triple), 2 ** 33 + 1, 'whole instances only');
    s.count = 2 ** 33 + 4 * 7 + 2;
    assert.equal(s.Get_count(INT), -32766, 'MPI.UNDEFINED for a cut element');
  });

  it('counts up to Number.MAX_SAFE_INTEGER elements come back exactly', () => {
    const s = new Status();
    s.Set_elements(BYTE, Number.MAX_SAFE_INTEGER);
    assert.equal(s.Get_count(BYTE), Number.MAX_SAFE_INTEGER);
    assert.equal(s.Get_elements(BYTE), Number.MAX_SAFE_INTEGER);
  });
});

describe('Pack and Unpack past 4 GiB of memory', () => {
  it('blocks beyond one Uint8Array view pack and unpack at their exact offsets', () => {
    const h = committed(INT.Create_hindexed([3, 2, 1, 5], [4, G4 - 4, G4 + 8, 2 * G4 + 4]));
    // Lazily backed: only the pages the blocks touch take memory.
    const memory = new ArrayBuffer(2 * G4 + 64);
    assert.ok(memory.byteLength > VIEW_BYTES_MAX);
    const words = new Int32Array(memory);
    const at = [1, 2, 3, (G4 - 4) / 4, G4 / 4, (G4 + 8) / 4, (2 * G4 + 4) / 4, (2 * G4 + 8) / 4, (2 * G4 + 12) / 4,
      (2 * G4 + 16) / 4, (2 * G4 + 20) / 4];
    at.forEach((w, i) => { words[w] = 1000 + i; });
    assert.equal(h.Pack_size(1), 44);
    const packed = new Uint8Array(44 + 4);
    assert.equal(h.Pack(memory, packed, 4), 48);
    assert.deepEqual(Array.from(new Int32Array(packed.buffer, 4, 11)), at.map((_, i) => 1000 + i));
    const into = new ArrayBuffer(2 * G4 + 64);
    assert.equal(h.Unpack(packed, 4, into), 48);
    const back = new Int32Array(into);
    assert.deepEqual(at.map((w) => back[w]), at.map((_, i) => 1000 + i));
    assert.equal(back[G4 / 4 + 1], 0, 'nothing written between the blocks');
  });
});

describe('message buffers past 4 GiB', () => {
  it('contiguous data up to 4 GiB is one byte view; beyond, MPI.ERR_COUNT says to send it in parts', () => {
    const memory = new ArrayBuffer(G4 + 8);
    const spec = new BufferSpec();
    assert.ok(decodeBuffer([memory, G4, BYTE], spec, 'direct'));
    assert.equal(spec.bytes.length, G4);
    assert.equal(decodeBuffer([new Float64Array(memory), G4 / 8 + 1, DOUBLE], spec, 'direct'), false);
    assert.equal(spec.errorClass, ErrorClass.ERR_COUNT);
    assert.match(spec.error, /536870913 x MPI_DOUBLE is 4294967304 bytes; contiguous data is at most 4294967296 bytes .*send it in parts/);
  });
});
