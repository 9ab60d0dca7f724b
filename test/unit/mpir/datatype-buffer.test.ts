import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferSpec, decodeBuffer, dropUnpack, expectUnpack, finishUnpack } from '../../../src/mpir/buffer.js';
import { Datatype, Datatypes } from '../../../src/mpir/datatype.js';
import { ErrorClass } from '../../../src/mpir/error-classes.js';

/** decodeBuffer with derived datatypes: zero-copy when contiguous, pack/unpack otherwise. */
const { INT, DOUBLE } = Datatypes;

describe('decodeBuffer with derived datatypes', () => {
  it('takes the zero-copy path for a contiguous derived type', () => {
    const buf = new Int32Array(10);
    const spec = new BufferSpec();
    const four = INT.Create_contiguous(4).Commit();
    assert.equal(four.contiguous, true);
    assert.ok(decodeBuffer([buf, 2, four], spec, 'refuse'));
    assert.equal(spec.bytes.buffer, buf.buffer);
    assert.equal(spec.bytes.length, 32);
    assert.equal(spec.needsUnpack, null);
    // [buf, datatype]: the count is the bytes over the extent.
    assert.ok(decodeBuffer([buf, four], spec));
    assert.equal(spec.count, 2);
    // A dup of a predefined type and a struct of adjacent same blocks are contiguous too.
    assert.equal(DOUBLE.Dup().contiguous, true);
    assert.equal(Datatype.Create_struct([1, 2], [0, 4], [INT, INT]).contiguous, true);
    assert.equal(INT.Create_vector(2, 1, 2).contiguous, false);
    assert.equal(INT.Create_contiguous(2).Create_resized(0, 12).contiguous, false);
  });

  it('refuses, packs or prepares an unpack for a non-contiguous type', () => {
    const column = INT.Create_vector(3, 1, 2).Commit();
    const buf = Int32Array.of(1, -1, 2, -1, 3, -1);
    const spec = new BufferSpec();
    assert.equal(decodeBuffer([buf, 1, column], spec), false);
    assert.equal(spec.errorClass, ErrorClass.ERR_UNSUPPORTED_OPERATION);
    assert.ok(decodeBuffer([buf, 1, column], spec, 'pack'));
    assert.deepEqual([...new Int32Array(spec.bytes.buffer)], [1, 2, 3]);
    assert.equal(spec.needsUnpack, null);
    const into = new Int32Array(6).fill(9);
    assert.ok(decodeBuffer([into, 1, column], spec, 'unpack'));
    assert.equal(spec.bytes.length, 12);
    assert.notEqual(spec.needsUnpack, null);
    // A receive completing with 8 bytes unpacks the two elements that arrived.
    const request = { statusCount: 8 };
    expectUnpack(request, spec);
    new Int32Array(spec.bytes.buffer).set([7, 8, 0]);
    finishUnpack(request);
    assert.deepEqual([...into], [7, 9, 8, 9, 9, 9]);
    finishUnpack(request);
    const other = { statusCount: 12 };
    expectUnpack(other, spec);
    dropUnpack(other);
    finishUnpack(other);
    assert.deepEqual([...into], [7, 9, 8, 9, 9, 9]);
  });

  it('checks commit state, span and zero-size types', () => {
    const spec = new BufferSpec();
    assert.equal(decodeBuffer([new Int32Array(4), 1, INT.Create_vector(2, 1, 2)], spec, 'pack'), false);
    assert.equal(spec.errorClass, ErrorClass.ERR_TYPE);
    assert.match(spec.error, /not committed; commit it first/);
    const column = INT.Create_vector(3, 1, 2).Commit();
    assert.equal(decodeBuffer([new Int32Array(4), 1, column], spec, 'pack'), false);
    assert.equal(spec.errorClass, ErrorClass.ERR_BUFFER);
    assert.match(spec.error, /spans 20 bytes and does not fit a buffer of 16 bytes/);
    const shifted = Datatype.Create_struct([1], [-4], [INT]).Commit();
    assert.equal(decodeBuffer([new Int32Array(4), 1, shifted], spec, 'pack'), false);
    assert.match(spec.error, /data before the start of the buffer/);
    assert.ok(decodeBuffer([new Int32Array(4), 3, INT.Create_contiguous(0).Commit()], spec, 'pack'));
    assert.equal(spec.bytes.length, 0);
    const freed = INT.Create_vector(3, 1, 2).Commit();
    freed.Free();
    assert.equal(decodeBuffer([new Int32Array(8), 1, freed], spec, 'pack'), false);
    assert.match(spec.error, /has been freed/);
  });
});

describe('decodeBuffer: a typed array decoded again', () => {
  const { FLOAT, BYTE } = Datatypes;
  const decoded = (spec: BufferSpec) => [spec.bytes.byteOffset, spec.bytes.length, spec.count, spec.datatype.name];

  it('gives what a first decode gives, whatever the spec decoded in between', () => {
    const spec = new BufferSpec();
    const whole = new Float64Array(6);
    const part = new Float32Array(whole.buffer, 8, 5);
    assert.ok(decodeBuffer(whole, spec));
    assert.deepEqual(decoded(spec), [0, 48, 6, DOUBLE.name]);
    // Other forms on the same spec: each decodes as itself, not as the array seen last.
    assert.ok(decodeBuffer([whole, 2, DOUBLE], spec));
    assert.deepEqual(decoded(spec), [0, 16, 2, DOUBLE.name]);
    assert.ok(decodeBuffer([whole, INT], spec));
    assert.deepEqual(decoded(spec), [0, 48, 12, INT.name]);
    assert.ok(decodeBuffer(part, spec));
    assert.deepEqual(decoded(spec), [8, 20, 5, FLOAT.name]);
    assert.equal(decodeBuffer([whole, 7, DOUBLE], spec), false);
    assert.equal(spec.errorClass, ErrorClass.ERR_BUFFER);
    assert.ok(decodeBuffer(new Uint8Array(whole.buffer, 40), spec));
    assert.deepEqual(decoded(spec), [40, 8, 8, BYTE.name]);
    // The array again, twice: the same view, count and type, and no error left from before.
    for (const _ of [0, 1]) {
      assert.ok(decodeBuffer(part, spec));
      assert.deepEqual(decoded(spec), [8, 20, 5, FLOAT.name]);
      assert.equal(spec.errorClass, 0);
    }
    assert.ok(decodeBuffer(whole, spec));
    const view = spec.bytes;
    assert.ok(decodeBuffer(whole, spec));
    assert.equal(spec.bytes, view);
    assert.deepEqual(decoded(spec), [0, 48, 6, DOUBLE.name]);
  });

  it('refuses what is not a buffer on a spec that has decoded nothing yet, and after a typed array', () => {
    for (const bad of [null, undefined, 0, 'x', {}]) {
      for (const before of [null, new Float32Array(2)]) {
        const spec = new BufferSpec();
        if (before !== null) assert.ok(decodeBuffer(before, spec));
        assert.equal(decodeBuffer(bad, spec), false, `${String(bad)} decoded`);
        assert.equal(spec.errorClass, ErrorClass.ERR_BUFFER);
        assert.match(spec.error, /expected a TypedArray/);
      }
    }
  });

  it('follows a view of a resizable buffer as it grows and shrinks, and a detached array is empty', () => {
    const spec = new BufferSpec();
    // Resizable buffers are in Node 20; TypeScript's lib here predates them.
    const rab = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer & { resize(n: number): void })(16, { maxByteLength: 64 });
    const tracking = new Float64Array(rab);
    assert.ok(decodeBuffer(tracking, spec));
    assert.equal(spec.count, 2);
    rab.resize(40);
    assert.ok(decodeBuffer(tracking, spec));
    assert.deepEqual([spec.count, spec.bytes.length], [5, 40]);
    rab.resize(8);
    assert.ok(decodeBuffer(tracking, spec));
    assert.deepEqual([spec.count, spec.bytes.length], [1, 8]);
    const gone = new Int32Array(4);
    assert.ok(decodeBuffer(gone, spec));
    assert.equal(spec.count, 4);
    structuredClone(gone.buffer, { transfer: [gone.buffer] });
    assert.ok(decodeBuffer(gone, spec));
    assert.deepEqual([spec.count, spec.bytes.length], [0, 0]);
  });

  it('keeps no reference to an array over a large buffer', async () => {
    const spec = new BufferSpec();
    let big: Float64Array | null = new Float64Array((2 << 20) / 8);
    const gone = new WeakRef(big);
    assert.ok(decodeBuffer(big, spec));
    assert.equal(spec.count, big.length);
    big = null;
    spec.bytes = new Uint8Array(0);
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 5 && gone.deref() !== undefined; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    assert.equal(gone.deref(), undefined, 'the spec kept a 2 MiB array alive');
  });
});
