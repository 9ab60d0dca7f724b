import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';
import { Prequest, Request, requestsProblem } from '../../../src/mpir/request.js';
import { Status, statusProblem, statusesProblem } from '../../../src/mpir/status.js';
import { check, clonableProblem, intListProblem, intProblem, isInt32, show } from '../../../src/mpir/validate.js';

/** The shared argument checks of the public calls (src/mpir/validate.ts, and those of status.ts and request.ts): local, no MPI.Init. */
describe('argument validators', () => {
  it('isInt32 takes exactly the integers of a C int', () => {
    for (const v of [0, -1, 0x7fffffff, -0x80000000]) assert.equal(isInt32(v), true, String(v));
    for (const v of [0x80000000, -0x80000001, 1.5, NaN, Infinity, '1', 1n, null, undefined, [1], true]) {
      assert.equal(isInt32(v), false, show(v));
    }
  });

  it('show prints numbers plainly and everything else by type, symbols included', () => {
    assert.equal(show(7), '7');
    assert.equal(show('x'), 'string x');
    assert.equal(show(Symbol('s')), 'symbol Symbol(s)');
    assert.equal(show(null), 'null');
    assert.equal(show(new Int32Array(2)), 'Int32Array');
    assert.equal(show(Object.create(null)), 'object');
  });

  it('statusProblem accepts a Status, undefined and null, and names anything else', () => {
    for (const v of [new Status(), undefined, null]) assert.equal(statusProblem(v), null);
    assert.equal(statusProblem(42), 'status must be an MPI.Status or undefined, got number 42');
    assert.match(statusProblem({}, 'st') ?? '', /^st must be an MPI\.Status/);
  });

  it('statusesProblem wants an array whose entries are statuses (or empty slots)', () => {
    assert.equal(statusesProblem(undefined), null);
    assert.equal(statusesProblem([new Status(), undefined, null]), null);
    assert.match(statusesProblem('x') ?? '', /^statuses must be an array of MPI\.Status, got string x/);
    assert.match(statusesProblem([new Status(), 3]) ?? '', /^statuses\[1\] must be an MPI\.Status, got number 3/);
  });

  it('requestsProblem names the first entry that is not a request of the class', () => {
    const r = new Request(null, null);
    assert.equal(requestsProblem([]), null);
    assert.equal(requestsProblem([r, r]), null);
    assert.match(requestsProblem([42]) ?? '', /^requests\[0\] must be an MPI\.Request, got number 42/);
    assert.match(requestsProblem(null) ?? '', /^requests must be an array of MPI\.Request, got null/);
    assert.match(requestsProblem([r], Prequest) ?? '', /^requests\[0\] must be an MPI\.Prequest, got Request/);
  });

  it('intProblem checks type and range and says what was expected', () => {
    assert.equal(intProblem(3, 'n', 0, 5), null);
    assert.equal(intProblem(6, 'n', 0, 5), 'n 6 is invalid (expected an integer in 0..5)');
    assert.equal(intProblem('3', 'n', 0, 5, 'a count'), 'n string 3 is invalid (expected a count)');
    assert.match(intProblem(Symbol('s'), 'n', 0, 5) ?? '', /^n symbol Symbol\(s\) is invalid/);
  });

  it('intListProblem takes arrays and typed arrays of integers, booleans only as flags', () => {
    assert.equal(intListProblem([1, 2], 'dims'), null);
    assert.equal(intListProblem(Int32Array.of(1, 2), 'dims'), null);
    assert.equal(intListProblem([true, 0], 'periods', 0, 1, { flags: true }), null);
    assert.match(intListProblem([true], 'dims') ?? '', /^dims\[0\] is boolean true \(expected an integer\)/);
    assert.match(intListProblem([[1]], 'counts') ?? '', /^counts\[0\] is Array/);
    assert.match(intListProblem([3], 'ranks', 0, 2) ?? '', /^ranks\[0\] is 3 \(expected an integer in 0\.\.2\)/);
    assert.match(intListProblem(5, 'dims') ?? '', /^dims must be an array of integers, got number 5/);
    assert.match(intListProblem(new DataView(new ArrayBuffer(4)), 'dims') ?? '', /must be an array/);
    assert.match(intListProblem([1, 2, 3], 'dims', 0, 9, { maxLength: 2 }) ?? '', /has 3 entries \(at most 2\)/);
  });

  it('clonableProblem refuses what node:v8 cannot serialize at the top level', () => {
    assert.equal(clonableProblem({ a: 1 }, 'obj'), null);
    assert.match(clonableProblem(Symbol('s'), 'obj') ?? '', /^obj is a symbol, which cannot be serialized/);
    assert.match(clonableProblem(() => 0, 'objs[1]') ?? '', /^objs\[1\] is a function/);
  });

  it('check raises an MPI.Exception naming the call, ERR_ARG unless told', () => {
    assert.doesNotThrow(() => check(null, 'X.Y'));
    assert.throws(() => check('bad thing', 'Request.Waitall', ErrorClass.ERR_REQUEST),
      (e: unknown) => e instanceof MPIException && e.error_class === ErrorClass.ERR_REQUEST && e.message === 'Request.Waitall: bad thing');
    assert.throws(() => check('bad', 'Status.Set_tag'), (e: unknown) => e instanceof MPIException && e.error_class === ErrorClass.ERR_ARG);
  });
});
