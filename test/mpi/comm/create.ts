/**
 * Create and Create_group: subsets in a chosen order, MPI.COMM_NULL for the others, the empty
 * group, a group of a split communicator, and a context id that stays free at every member
 * although the members' next free ids have drifted apart.
 */
import { MPI, type Intracomm } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const worldGroup = world.Get_group();

function ring(comm: Intracomm, members: number[], what: string): void {
  const me = members.indexOf(rank);
  t.equal(comm.rank, me, `${what}: rank`);
  t.equal(comm.size, members.length, `${what}: size`);
  const n = comm.size;
  const got = new Int32Array(1);
  const st = new MPI.Status();
  comm.Sendrecv(Int32Array.of(rank), (me + 1) % n, 4, got, MPI.ANY_SOURCE, 4, st);
  t.equal(got[0], members[(me - 1 + n) % n], `${what}: ring from the left neighbour`);
  t.equal(st.Get_source(), (me - 1 + n) % n, `${what}: status source`);
}

// Even world ranks, highest first.
const evens = Array.from({ length: size }, (_, r) => r).filter((r) => r % 2 === 0).reverse();
const evenComm = world.Create(worldGroup.Incl(evens));
if (rank % 2 === 0) {
  ring(evenComm, evens, 'Create(evens, reversed)');
  t.equal(evenComm.Get_group().Compare(worldGroup.Incl(evens)), MPI.IDENT, 'group of the created communicator');
} else {
  t.check(evenComm === MPI.COMM_NULL, 'odd ranks get MPI.COMM_NULL from Create');
}

// Every member and the empty group.
const all = world.Create(worldGroup);
ring(all, Array.from({ length: size }, (_, r) => r), 'Create(world group)');
t.equal(all.Compare(world), MPI.CONGRUENT, 'Compare(Create(world group), world)');
t.check(world.Create(MPI.GROUP_EMPTY) === MPI.COMM_NULL, 'Create(GROUP_EMPTY) is MPI.COMM_NULL');

// A group of a split communicator (the upper half of the world), created over the split.
const upper = rank >= Math.floor(size / 2) ? 1 : 0;
const split = world.Split(upper, rank);
const splitMembers = Array.from({ length: size }, (_, r) => r).filter((r) => (r >= Math.floor(size / 2) ? 1 : 0) === upper);
const firstTwo = split.Get_group().Range_incl([[0, Math.min(1, split.size - 1), 1]]);
const small = split.Create(firstTwo);
if (split.rank < 2) ring(small, splitMembers.slice(0, 2), 'Create over a split communicator');
else t.check(small === MPI.COMM_NULL, 'Create over a split communicator: MPI.COMM_NULL');

// Create_group: only the members call.
const firstHalf = Array.from({ length: Math.ceil(size / 2) }, (_, r) => r);
if (rank < firstHalf.length) {
  const cg = world.Create_group(worldGroup.Incl(firstHalf), 3);
  ring(cg, firstHalf, 'Create_group(first half)');
  cg.Free();
}
const odds = Array.from({ length: size }, (_, r) => r).filter((r) => r % 2 === 1);
if (rank % 2 === 1) {
  const cg = world.Create_group(worldGroup.Incl(odds));
  ring(cg, odds, 'Create_group(odds)');
  cg.Free();
}
t.check(world.Create_group(worldGroup.Excl([rank])) === MPI.COMM_NULL, 'Create_group outside the group is MPI.COMM_NULL');

// Rank 0 alone makes singleton communicators (its next free id runs ahead of the others'),
// and leaves a wildcard receive posted on each. A Dup of the world must then take an id above
// all of them: its messages must not complete those receives.
const singles: Intracomm[] = [];
const pending = [];
if (rank === 0) {
  for (let i = 0; i < 5; i++) {
    const c = world.Create_group(worldGroup.Incl([0]), i);
    t.equal(c.Compare(MPI.COMM_SELF), MPI.CONGRUENT, `singleton ${i} is congruent to COMM_SELF`);
    singles.push(c);
    pending.push(c.Irecv(new Int32Array(1), MPI.ANY_SOURCE, MPI.ANY_TAG));
  }
}
const dup = world.Dup();
ring(dup, Array.from({ length: size }, (_, r) => r), 'Dup after drift');
dup.Barrier();
if (rank === 0) {
  for (let i = 0; i < singles.length; i++) {
    t.equal(pending[i]!.Test(), false, `singleton ${i}: its wildcard receive is untouched by the Dup's traffic`);
    singles[i]!.Send(Int32Array.of(i), 0, 0);
    const st = new MPI.Status();
    pending[i]!.Wait(st);
    t.equal(st.Get_source(), 0, `singleton ${i}: own message`);
    singles[i]!.Free();
  }
}

for (const c of [evenComm, small]) if (c !== MPI.COMM_NULL) c.Free();
for (const c of [all, split, dup]) c.Free();
MPI.Finalize();
t.finish(rank);
