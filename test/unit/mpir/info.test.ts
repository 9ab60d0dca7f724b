import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';
import { INFO_NULL, Info, MAX_INFO_KEY, MAX_INFO_VAL, checkInfo } from '../../../src/mpir/info.js';

/** Info is local: no MPI.Init. */
function throwsClass(fn: () => unknown, errorClass: number, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof MPIException && e.error_class === errorClass && message.test(e.message));
}

describe('MPI.Info', () => {
  it('sets, gets, replaces and counts keys in the order first set', () => {
    const info = Info.Create();
    assert.equal(info.Get_nkeys(), 0);
    info.Set('b', '1');
    info.Set('a', '2');
    info.Set('b', '3');
    assert.equal(info.Get('b'), '3');
    assert.equal(info.Get('a'), '2');
    assert.equal(info.Get('missing'), null);
    assert.equal(info.Get_nkeys(), 2);
    assert.equal(info.Get_nthkey(0), 'b');
    assert.equal(info.Get_nthkey(1), 'a');
    assert.deepEqual(info.items(), [['b', '3'], ['a', '2']]);
    throwsClass(() => info.Get_nthkey(2), ErrorClass.ERR_ARG, /n 2 is out of range/);
  });

  it('deletes keys; a missing key is ERR_INFO_NOKEY', () => {
    const info = Info.Create();
    info.Set('k', 'v');
    info.Delete('k');
    assert.equal(info.Get('k'), null);
    assert.equal(info.Get_nkeys(), 0);
    throwsClass(() => info.Delete('k'), ErrorClass.ERR_INFO_NOKEY, /key "k" is not set/);
  });

  it('enforces key and value lengths', () => {
    const info = Info.Create();
    info.Set('k'.repeat(MAX_INFO_KEY), 'v'.repeat(MAX_INFO_VAL));
    assert.equal(info.Get('k'.repeat(MAX_INFO_KEY)), 'v'.repeat(MAX_INFO_VAL));
    throwsClass(() => info.Set('k'.repeat(MAX_INFO_KEY + 1), 'v'), ErrorClass.ERR_INFO_KEY, /length 256.*1\.\.255/);
    throwsClass(() => info.Set('', 'v'), ErrorClass.ERR_INFO_KEY, /length 0/);
    throwsClass(() => info.Set('k', 'v'.repeat(MAX_INFO_VAL + 1)), ErrorClass.ERR_INFO_VALUE, /length 1025.*1\.\.1024/);
    throwsClass(() => info.Get('k'.repeat(MAX_INFO_KEY + 1)), ErrorClass.ERR_INFO_KEY, /1\.\.255/);
    throwsClass(() => info.Set(3 as unknown as string, 'v'), ErrorClass.ERR_INFO_KEY, /number/);
  });

  it('duplicates independently and frees', () => {
    const info = Info.Create();
    info.Set('a', '1');
    const dup = info.Dup();
    dup.Set('b', '2');
    assert.equal(info.Get_nkeys(), 1);
    assert.equal(dup.Get('a'), '1');
    info.Free();
    throwsClass(() => info.Get('a'), ErrorClass.ERR_INFO, /has been freed/);
    assert.equal(dup.Get('b'), '2');
  });

  it('INFO_NULL is accepted as an info argument but has no entries', () => {
    assert.equal(checkInfo(INFO_NULL), null);
    assert.equal(checkInfo(undefined), null);
    assert.equal(checkInfo(Info.Create()), null);
    assert.match(checkInfo({})!, /info must be an MPI.Info or MPI.INFO_NULL, got Object/);
    throwsClass(() => INFO_NULL.Get('a'), ErrorClass.ERR_INFO, /INFO_NULL/);
    throwsClass(() => INFO_NULL.Free(), ErrorClass.ERR_INFO, /INFO_NULL/);
    const freed = Info.Create();
    freed.Free();
    assert.equal(checkInfo(freed), 'info has been freed');
  });
});
