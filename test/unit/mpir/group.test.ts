import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDENT, PROC_NULL, SIMILAR, UNDEFINED, UNEQUAL } from '../../../src/mpir/constants.js';
import { ErrorClass } from '../../../src/mpir/error-classes.js';
import { MPIException } from '../../../src/mpir/exception.js';
import { GROUP_EMPTY, Group, compareMembers } from '../../../src/mpir/group.js';

/** Group operations are local: no MPI.Init, groups made straight from world ranks. */
const of = (ranks: number[], self = 2) => Group.ofWorldRanks(Int32Array.from(ranks), self);
const members = (g: Group) => g.Translate_ranks();

function throwsClass(fn: () => unknown, errorClass: number, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof MPIException && e.error_class === errorClass && message.test(e.message));
}

describe('MPI.Group', () => {
  const world = of([0, 1, 2, 3, 4, 5, 6]);

  it('knows its size and our rank in it', () => {
    assert.equal(world.size, 7);
    assert.equal(world.rank, 2);
    assert.equal(of([5, 2, 9]).rank, 1);
    assert.equal(of([5, 9]).rank, UNDEFINED);
    assert.equal(GROUP_EMPTY.size, 0);
    assert.equal(GROUP_EMPTY.rank, UNDEFINED);
    assert.equal(of([]), GROUP_EMPTY);
  });

  it('includes and excludes ranks, single and by ranges', () => {
    assert.deepEqual(members(world.Incl([6, 0, 3])), [6, 0, 3]);
    assert.deepEqual(members(world.Excl([6, 0, 3])), [1, 2, 4, 5]);
    assert.deepEqual(members(world.Incl(Int32Array.of(1, 2))), [1, 2]);
    assert.equal(world.Incl([]), GROUP_EMPTY);
    assert.deepEqual(members(world.Range_incl([[0, 6, 3], [5, 1, -4]])), [0, 3, 6, 5, 1]);
    assert.deepEqual(members(world.Range_incl([[4, 2, 1]])), []);
    assert.deepEqual(members(world.Range_excl([[0, 6, 2]])), [1, 3, 5]);
    assert.deepEqual(members(world.Incl([6, 5, 4]).Range_incl([[2, 0, -1]])), [4, 5, 6]);
  });

  it('makes unions, intersections and differences in MPI order', () => {
    const a = of([5, 1, 3]);
    const b = of([3, 0, 5, 4]);
    assert.deepEqual(members(Group.Union(a, b)), [5, 1, 3, 0, 4]);
    assert.deepEqual(members(Group.Intersection(a, b)), [5, 3]);
    assert.deepEqual(members(Group.Difference(a, b)), [1]);
    assert.deepEqual(members(b.Union(a)), [3, 0, 5, 4, 1]);
    assert.deepEqual(members(b.Intersection(a)), [3, 5]);
    assert.deepEqual(members(b.Difference(a)), [0, 4]);
    assert.equal(a.Difference(a), GROUP_EMPTY);
    assert.deepEqual(members(GROUP_EMPTY.Union(a)), [5, 1, 3]);
    assert.equal(Group.Union(GROUP_EMPTY, of([2, 7])).rank, 0, 'our rank comes from the operand that knows it');
  });

  it('translates ranks and compares groups', () => {
    const a = of([5, 1, 3]);
    assert.deepEqual(a.Translate_ranks([0, 1, 2, PROC_NULL], of([3, 4, 5])), [2, UNDEFINED, 0, PROC_NULL]);
    assert.deepEqual(a.Translate_ranks([2]), [3]);
    assert.equal(a.Compare(of([5, 1, 3])), IDENT);
    assert.equal(a.Compare(of([3, 1, 5])), SIMILAR);
    assert.equal(a.Compare(of([3, 1])), UNEQUAL);
    assert.equal(a.Compare(of([3, 1, 4])), UNEQUAL);
    assert.equal(compareMembers(new Int32Array(0), new Int32Array(0)), IDENT);
    assert.equal(a.Dup().Compare(a), IDENT);
  });

  it('rejects bad arguments with the MPI error class and names them', () => {
    throwsClass(() => world.Incl([7]), ErrorClass.ERR_RANK, /Group\.Incl: ranks\[0\] = 7 is out of range for a group of size 7 \(expected 0\.\.6\)/);
    throwsClass(() => world.Incl([1, 1]), ErrorClass.ERR_RANK, /ranks\[1\] = 1 is listed twice/);
    throwsClass(() => world.Excl([0, 0]), ErrorClass.ERR_RANK, /Excl: ranks\[1\] = 0 is listed twice/);
    throwsClass(() => world.Incl([NaN]), ErrorClass.ERR_ARG, /ranks\[0\] is number NaN, not an integer rank/);
    throwsClass(() => world.Range_incl([[0, 3, 0]]), ErrorClass.ERR_ARG, /stride 0/);
    throwsClass(() => world.Range_incl([[0, 9, 1]]), ErrorClass.ERR_RANK, /ranks\[0\]\[1\] \(last\) = 9 is out of range/);
    throwsClass(() => world.Range_excl([[0, 2, 1], [2, 4, 1]]), ErrorClass.ERR_RANK, /names rank 2 a second time/);
    throwsClass(() => world.Translate_ranks([-3]), ErrorClass.ERR_RANK, /-3 is out of range .* or MPI\.PROC_NULL/);
    throwsClass(() => Group.Difference(world, [1] as unknown as Group), ErrorClass.ERR_GROUP, /Difference: group2 must be an MPI\.Group, got Array/);
  });

  it('is unusable after Free, except GROUP_EMPTY', () => {
    const g = world.Incl([1]);
    g.Free();
    throwsClass(() => g.rank, ErrorClass.ERR_GROUP, /Group\.rank: the group has been freed/);
    throwsClass(() => world.Compare(g), ErrorClass.ERR_GROUP, /Compare: group has been freed/);
    assert.equal(world.size, 7, 'a group made from another does not share its fate');
    GROUP_EMPTY.Free();
    assert.equal(GROUP_EMPTY.size, 0);
  });
});
