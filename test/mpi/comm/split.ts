/**
 * Split: by parity, by reversed key, with ties, with MPI.UNDEFINED, and a split of a split.
 * Each result is checked against members computed here (rank, size, group as world ranks,
 * Compare), then a ring exchange inside it receives from MPI.ANY_SOURCE and checks the source.
 */
import { MPI, type Intracomm } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const worldRanks = Array.from({ length: size }, (_, r) => r);

/** Checks `comm` against the expected members (world ranks in rank order), then runs a ring. */
function check(comm: Intracomm, members: number[], what: string): void {
  const me = members.indexOf(rank);
  t.equal(comm.rank, me, `${what}: rank`);
  t.equal(comm.size, members.length, `${what}: size`);
  t.equal(comm.Get_group().Translate_ranks().join(','), members.join(','), `${what}: members as world ranks`);
  const n = comm.size;
  const right = (me + 1) % n;
  const left = (me - 1 + n) % n;
  const got = new Int32Array(2);
  const st = new MPI.Status();
  comm.Sendrecv(Int32Array.of(me, rank), right, 11, got, MPI.ANY_SOURCE, MPI.ANY_TAG, st);
  t.equal(got[0], left, `${what}: ring value is the left neighbour's rank`);
  t.equal(got[1], members[left], `${what}: the left neighbour's world rank`);
  t.equal(st.Get_source(), left, `${what}: status source is a rank in the new communicator`);
  comm.Barrier();
}

// By parity, key = world rank: each half in world order.
const parity = world.Split(rank % 2, rank);
const sameParity = worldRanks.filter((r) => r % 2 === rank % 2);
check(parity, sameParity, 'parity');
t.equal(parity.Compare(world), size === 1 ? MPI.CONGRUENT : MPI.UNEQUAL, 'Compare(parity, world)');

// One color, reversed key: the world backwards.
const reversed = world.Split(0, size - rank);
check(reversed, [...worldRanks].reverse(), 'reversed');
t.equal(reversed.Compare(world), size === 1 ? MPI.CONGRUENT : MPI.SIMILAR, 'Compare(reversed, world)');

// Parity with reversed keys, colors given as large numbers.
const parityReversed = world.Split(1000 + (rank % 2), -rank);
check(parityReversed, [...sameParity].reverse(), 'parity, reversed');
t.equal(parityReversed.Compare(parity), sameParity.length === 1 ? MPI.CONGRUENT : MPI.SIMILAR, 'Compare(parity reversed, parity)');

// All keys equal: ties keep the parent's order.
const ties = world.Split(5, 0);
check(ties, worldRanks, 'ties');
t.equal(ties.Compare(world), MPI.CONGRUENT, 'Compare(ties, world)');

// Rank 0 opts out with MPI.UNDEFINED.
const optOut = world.Split(rank === 0 ? MPI.UNDEFINED : 1, 0);
if (rank === 0) t.check(optOut === MPI.COMM_NULL, 'MPI.UNDEFINED gives MPI.COMM_NULL');
else check(optOut, worldRanks.slice(1), 'without rank 0');

// A split of the reversed communicator: its first half and second half, each reversed again.
const half = reversed.rank < Math.ceil(size / 2) ? 0 : 1;
const halves = reversed.Split(half, -reversed.rank);
const reversedOrder = [...worldRanks].reverse();
const mine = reversedOrder.filter((_, i) => (i < Math.ceil(size / 2) ? 0 : 1) === half).reverse();
check(halves, mine, 'split of a split');

// Same-tag messages on the parent and on every new communicator stay apart.
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const sWorld = world.Isend(Int32Array.of(-1), right, 0);
const x = new Int32Array(1);
ties.Sendrecv(Int32Array.of(rank), right, 0, x, left, 0);
t.equal(x[0], left, 'ties: its own message, not the parent\'s');
world.Recv(x, left, 0);
t.equal(x[0], -1, 'world: its own message');
sWorld.Wait();

for (const c of [parity, reversed, parityReversed, ties, halves]) c.Free();
if (optOut !== MPI.COMM_NULL) optOut.Free();
MPI.Finalize();
t.finish(rank);
