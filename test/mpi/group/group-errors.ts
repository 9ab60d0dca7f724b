/** Bad group arguments: each gives MPI.ERR_RANK, ERR_ARG or ERR_GROUP and a message naming it. */
import { MPI, type Group } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const wg = world.Get_group();
const range = `expected 0\\.\\.${size - 1}`;

t.throws(() => wg.Incl([size]), MPI.ERR_RANK,
  new RegExp(`Group\\.Incl: ranks\\[0\\] = ${size} is out of range for a group of size ${size} \\(${range}\\)`), 'Incl beyond the size');
t.throws(() => wg.Incl([-1]), MPI.ERR_RANK, /Incl: ranks\[0\] = -1 is out of range/, 'Incl of a negative rank');
t.throws(() => wg.Incl([0, 0]), MPI.ERR_RANK, /Incl: ranks\[1\] = 0 is listed twice/, 'Incl twice');
t.throws(() => wg.Incl([0.5]), MPI.ERR_ARG, /Incl: ranks\[0\] is number 0\.5, not an integer rank/, 'Incl of a fraction');
t.throws(() => wg.Incl('0' as unknown as number[]), MPI.ERR_ARG, /Incl: ranks must be an array of ranks, got string 0/, 'Incl of a string');
t.throws(() => wg.Excl([size + 2]), MPI.ERR_RANK, /Excl: ranks\[0\] = \d+ is out of range/, 'Excl beyond the size');
t.throws(() => wg.Excl([0, 0]), MPI.ERR_RANK, /Excl: ranks\[1\] = 0 is listed twice/, 'Excl twice');
t.throws(() => wg.Range_incl([[0, 0, 0]]), MPI.ERR_ARG, /Range_incl: ranks\[0\] has stride 0/, 'stride 0');
t.throws(() => wg.Range_incl([[0, size, 1]]), MPI.ERR_RANK, /Range_incl: ranks\[0\]\[1\] \(last\) = \d+ is out of range/, 'range past the end');
t.throws(() => wg.Range_incl([[0, 1]] as unknown as [number, number, number][]), MPI.ERR_ARG,
  /Range_incl: ranks\[0\] must be a \[first, last, stride\] triplet of integers, got \[0,1\]/, 'a pair, not a triplet');
t.throws(() => wg.Range_incl([[0, 0, 1], [0, 0, 1]]), MPI.ERR_RANK, /names rank 0 a second time/, 'overlapping ranges');
t.throws(() => wg.Range_excl([[size - 1, 0, 1], [-1, 0, 1]]), MPI.ERR_RANK, /Range_excl: ranks\[1\]\[0\] \(first\) = -1/, 'Range_excl out of range');
t.throws(() => wg.Translate_ranks([size]), MPI.ERR_RANK, /Translate_ranks: ranks\[0\] = \d+ is out of range .* or MPI\.PROC_NULL\)/, 'Translate_ranks beyond the size');
t.throws(() => wg.Translate_ranks([0], 3 as unknown as Group), MPI.ERR_GROUP, /Translate_ranks: group must be an MPI\.Group, got number 3/, 'Translate_ranks to a number');
t.throws(() => MPI.Group.Union(wg, null as unknown as Group), MPI.ERR_GROUP, /Union: group2 must be an MPI\.Group, got null/, 'Union with null');
t.throws(() => wg.Compare({} as Group), MPI.ERR_GROUP, /Compare: group must be an MPI\.Group, got Object/, 'Compare with an object');
t.throws(() => MPI.GROUP_EMPTY.Incl([0]), MPI.ERR_RANK, /size 0 \(the group is empty\)/, 'Incl of the empty group');
const g = wg.Dup();
g.Free();
t.throws(() => g.Incl([0]), MPI.ERR_GROUP, /Group\.Incl: the group has been freed/, 'Incl of a freed group');
t.throws(() => g.Free(), MPI.ERR_GROUP, /Group\.Free: the group has been freed/, 'Free twice');
t.throws(() => MPI.Group.Intersection(g, wg), MPI.ERR_GROUP, /Intersection: group1 has been freed/, 'Intersection with a freed group');
t.equal(wg.size, size, 'the world group is untouched');
MPI.Finalize();
t.finish(rank);
