/**
 * Group algebra against member lists computed here: Incl, Excl, Range_incl, Range_excl, Union,
 * Intersection, Difference (static and instance forms), Compare, Dup, our rank in each result,
 * and groups of split communicators. Members are read back with Translate_ranks().
 */
import { MPI, type Group } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const wg = world.Get_group();
const all = Array.from({ length: size }, (_, r) => r);

function expectGroup(g: Group, members: number[], what: string): void {
  t.equal(g.size, members.length, `${what}: size`);
  t.equal(g.Get_size(), members.length, `${what}: Get_size()`);
  t.equal(g.Translate_ranks().join(','), members.join(','), `${what}: members`);
  const me = members.indexOf(rank);
  t.equal(g.rank, me < 0 ? MPI.UNDEFINED : me, `${what}: rank`);
  t.equal(g.Get_rank(), g.rank, `${what}: Get_rank()`);
  if (members.length === 0) t.check(g === MPI.GROUP_EMPTY, `${what}: an empty result is MPI.GROUP_EMPTY`);
}

const union = (a: number[], b: number[]) => [...a, ...b.filter((x) => !a.includes(x))];
const inter = (a: number[], b: number[]) => a.filter((x) => b.includes(x));
const diff = (a: number[], b: number[]) => a.filter((x) => !b.includes(x));
function compare(a: number[], b: number[]): number {
  if (a.join() === b.join()) return MPI.IDENT;
  if (a.length === b.length && a.every((x) => b.includes(x))) return MPI.SIMILAR;
  return MPI.UNEQUAL;
}

expectGroup(wg, all, 'world group');
expectGroup(MPI.COMM_SELF.Get_group(), [rank], 'self group');
expectGroup(MPI.GROUP_EMPTY, [], 'GROUP_EMPTY');
t.equal(wg.Compare(MPI.GROUP_EMPTY), MPI.UNEQUAL, 'Compare(world, empty)');
t.equal(MPI.GROUP_EMPTY.Compare(MPI.GROUP_EMPTY), MPI.IDENT, 'Compare(empty, empty)');

// Every subset of the world, in ascending and in descending order.
const subsets: number[][] = [];
for (let mask = 0; mask < 1 << size; mask++) {
  const s = all.filter((r) => (mask >> r) & 1);
  subsets.push(s);
  if (s.length > 1) subsets.push([...s].reverse());
}
const groups = subsets.map((s) => wg.Incl(s));
subsets.forEach((s, i) => {
  expectGroup(groups[i]!, s, `Incl([${s}])`);
  expectGroup(wg.Excl(s), diff(all, s), `Excl([${s}])`);
  expectGroup(groups[i]!.Dup(), s, `Dup of [${s}]`);
});
for (let i = 0; i < subsets.length; i++) {
  for (let j = 0; j < subsets.length; j++) {
    const a = subsets[i]!;
    const b = subsets[j]!;
    const ga = groups[i]!;
    const gb = groups[j]!;
    const what = `[${a}] and [${b}]`;
    expectGroup(MPI.Group.Union(ga, gb), union(a, b), `Union of ${what}`);
    expectGroup(MPI.Group.Intersection(ga, gb), inter(a, b), `Intersection of ${what}`);
    expectGroup(MPI.Group.Difference(ga, gb), diff(a, b), `Difference of ${what}`);
    expectGroup(ga.Union(gb), union(a, b), `instance Union of ${what}`);
    expectGroup(ga.Intersection(gb), inter(a, b), `instance Intersection of ${what}`);
    expectGroup(ga.Difference(gb), diff(a, b), `instance Difference of ${what}`);
    t.equal(ga.Compare(gb), compare(a, b), `Compare of ${what}`);
  }
}

// Ranges: every triplet over the world, forwards and backwards, alone and paired.
const triplets: [number, number, number][] = [];
for (let first = 0; first < size; first++) {
  for (let last = 0; last < size; last++) {
    for (const stride of [1, 2, 3, -1, -2]) triplets.push([first, last, stride]);
  }
}
const expand = ([first, last, stride]: [number, number, number]) => {
  const out: number[] = [];
  for (let r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push(r);
  return out;
};
for (const tr of triplets) {
  expectGroup(wg.Range_incl([tr]), expand(tr), `Range_incl([[${tr}]])`);
  expectGroup(wg.Range_excl([tr]), diff(all, expand(tr)), `Range_excl([[${tr}]])`);
}
if (size >= 4) {
  expectGroup(wg.Range_incl([[3, 2, -1], [0, 1, 1]]), [3, 2, 0, 1], 'Range_incl of two ranges');
  expectGroup(wg.Range_excl([[0, 0, 1], [3, 1, -2]]), diff(all, [0, 3, 1]), 'Range_excl of two ranges');
}

// Groups of split communicators, translated both ways.
const parity = world.Split(rank % 2, -rank);
const pg = parity.Get_group();
const sameParity = all.filter((r) => r % 2 === rank % 2).reverse();
expectGroup(pg, sameParity, 'group of the parity communicator');
t.equal(pg.Translate_ranks(null, wg).join(','), sameParity.join(','), 'parity → world');
t.equal(wg.Translate_ranks(all, pg).join(','), all.map((r) => (sameParity.includes(r) ? sameParity.indexOf(r) : MPI.UNDEFINED)).join(','),
  'world → parity (others MPI.UNDEFINED)');
t.equal(pg.Translate_ranks([MPI.PROC_NULL, 0], wg).join(','), [MPI.PROC_NULL, sameParity[0]].join(','), 'PROC_NULL translates to PROC_NULL');
t.equal(wg.Translate_ranks([rank], MPI.COMM_SELF.Get_group())[0], 0, 'world → self');
t.equal(wg.Translate_ranks([rank], MPI.GROUP_EMPTY)[0], MPI.UNDEFINED, 'world → empty');
parity.Free();

// Free: the handle becomes unusable; GROUP_EMPTY may be freed and stays usable.
const g = wg.Incl([0]);
g.Free();
t.throws(() => g.size, MPI.ERR_GROUP, /Group\.size: the group has been freed/, 'size of a freed group');
MPI.GROUP_EMPTY.Free();
t.equal(MPI.GROUP_EMPTY.size, 0, 'GROUP_EMPTY after Free');
MPI.Finalize();
t.finish(rank);
