/**
 * Dup: the same members in the same order on a new context. Messages sent on the parent and on
 * the dup with the same tag never match each other, whatever the receive order or the protocol.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;

const dup = world.Dup();
t.equal(dup.rank, rank, 'dup.rank');
t.equal(dup.size, size, 'dup.size');
t.equal(dup.Get_rank(), rank, 'dup.Get_rank()');
t.equal(dup.Compare(dup), MPI.IDENT, 'Compare(dup, dup)');
t.equal(dup.Compare(world), MPI.CONGRUENT, 'Compare(dup, world)');
t.equal(world.Compare(dup), MPI.CONGRUENT, 'Compare(world, dup)');
t.equal(world.Compare(world), MPI.IDENT, 'Compare(world, world)');
t.equal(MPI.COMM_SELF.Compare(world), size === 1 ? MPI.CONGRUENT : MPI.UNEQUAL, 'Compare(self, world)');
t.equal(dup.Get_group().Compare(world.Get_group()), MPI.IDENT, 'the dup has the group of the parent');
t.equal(dup.Get_errhandler(), MPI.ERRORS_ARE_FATAL, 'the dup inherits ERRORS_ARE_FATAL');

// Same tag on both communicators; receive on the dup first, then on the parent.
for (const bytes of [4, 1000, 300_000]) {
  const n = bytes / 4;
  const onWorld = new Int32Array(n).fill(1000 + rank);
  const onDup = new Int32Array(n).fill(2000 + rank);
  const sends = [world.Isend(onWorld, right, 7), dup.Isend(onDup, right, 7)];
  const gotDup = new Int32Array(n);
  const gotWorld = new Int32Array(n);
  const st = new MPI.Status();
  dup.Recv(gotDup, MPI.ANY_SOURCE, MPI.ANY_TAG, st);
  t.equal(gotDup[0], 2000 + left, `${bytes} bytes: the dup receives the dup's message first`);
  t.equal(gotDup[n - 1], 2000 + left, `${bytes} bytes: the dup's message is whole`);
  t.equal(st.Get_source(), left, `${bytes} bytes: source on the dup`);
  t.equal(st.Get_tag(), 7, `${bytes} bytes: tag on the dup`);
  world.Recv(gotWorld, left, 7);
  t.equal(gotWorld[0], 1000 + left, `${bytes} bytes: the parent receives the parent's message`);
  MPI.Request.Waitall(sends);
}

// A dup of the dup, a barrier on each, and object messages.
const dup2 = dup.Dup();
t.equal(dup2.Compare(dup), MPI.CONGRUENT, 'Compare(dup of dup, dup)');
dup.Barrier();
dup2.Barrier();
const req = dup2.isend({ from: rank, on: 'dup2' }, right, 3);
world.send({ from: rank, on: 'world' }, right, 3);
const fromDup2 = dup2.recv(left, 3) as { from: number; on: string };
const fromWorld = world.recv(left, 3) as { from: number; on: string };
req.Wait();
t.check(fromDup2.on === 'dup2' && fromDup2.from === left, `object on dup2: ${JSON.stringify(fromDup2)}`);
t.check(fromWorld.on === 'world' && fromWorld.from === left, `object on world: ${JSON.stringify(fromWorld)}`);

// COMM_SELF duplicates: a message to oneself on each, received in the opposite order.
const self = MPI.COMM_SELF.Dup();
t.equal(self.size, 1, 'dup of COMM_SELF has size 1');
t.equal(self.Compare(MPI.COMM_SELF), MPI.CONGRUENT, 'Compare(dup of self, self)');
const s1 = MPI.COMM_SELF.Isend(Int32Array.of(1), 0, 0);
const s2 = self.Isend(Int32Array.of(2), 0, 0);
const x = new Int32Array(1);
self.Recv(x, 0, 0);
t.equal(x[0], 2, 'self dup receives its own message');
MPI.COMM_SELF.Recv(x, 0, 0);
t.equal(x[0], 1, 'COMM_SELF receives its own message');
MPI.Request.Waitall([s1, s2]);

// The error handler is inherited.
world.Set_errhandler(MPI.ERRORS_RETURN);
const dup3 = world.Dup();
t.equal(dup3.Get_errhandler(), MPI.ERRORS_RETURN, 'a dup inherits ERRORS_RETURN');
world.Set_errhandler(MPI.ERRORS_ARE_FATAL);

for (const c of [dup3, self, dup2, dup]) c.Free();
MPI.Finalize();
t.finish(rank);
