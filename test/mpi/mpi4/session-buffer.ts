/**
 * MPI-4.1's session buffer: session.Attach_buffer serves the buffered sends of every
 * communicator made from the session's groups (Create_from_group, Dup, Split, a topology,
 * groups made by group algebra or Get_group from them) unless the communicator has a buffer of
 * its own; communicators of the World Model keep MPI.Attach_buffer's. Accounting with
 * rendezvous-sized messages held in flight, Iflush_buffer, Detach_buffer, and the errors.
 */
import { MPI, type Intracomm } from '../../../src/index.js';
import { heldMessages } from '../util/held-messages.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
world.Set_errhandler(MPI.ERRORS_RETURN);
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;
const BIG = 150 * 1024 + 5;
const { charge, make: big, intact } = heldMessages(BIG, 5);
const into = new Uint8Array(BIG);
const returns = (c: Intracomm): Intracomm => {
  c.Set_errhandler(MPI.ERRORS_RETURN);
  return c;
};
/**
 * A buffered message of BIG bytes round the ring on `comm` (to the next world rank, whose rank
 * there is `to`), then a flush of the session's buffer, so the next round finds it empty.
 */
const roundTrip = (comm: Intracomm, tag: number, what: string, to = right, from = left): void => {
  comm.Bsend(big(rank + tag), to, tag);
  comm.Recv(into, from, tag);
  const source = comm.Get_group().Translate_ranks([from], world.Get_group())[0]!;
  t.equal(source, left, `${what}: the source is the previous world rank`);
  t.check(intact(into, source + tag), `${what}: data intact`);
  session.Flush_buffer();
};

const session = MPI.Session.Init();
session.Set_errhandler(MPI.ERRORS_RETURN);
const group = session.Create_group('mpi://WORLD');
const scomm = returns(MPI.Intracomm.Create_from_group(group, 'tsmpi.test.session-buffer'));
MPI.Attach_buffer(new Uint8Array(charge(64)));
session.Attach_buffer(new Uint8Array(2 * charge(BIG)));

// The session's buffer: its communicator and one duplicated from it; COMM_WORLD keeps the process's.
scomm.Bsend(big(rank + 1), right, 1);
const dup = returns(scomm.Dup());
dup.Bsend(big(rank + 2), right, 2);
t.throws(() => scomm.Bsend(big(0), right, 3), MPI.ERR_BUFFER, /Bsend: a message of 153605 bytes needs 153733 bytes of the attached buffer, 0 of 307466 are free/,
  'the session buffer is full with two messages in flight');
t.throws(() => world.Bsend(big(0), right, 3), MPI.ERR_BUFFER, /192 of 192 are free/, 'COMM_WORLD uses the process buffer');
const worldModel = returns(MPI.Intracomm.Create_from_group(world.Get_group(), 'tsmpi.test.world-group'));
t.throws(() => worldModel.Bsend(big(0), right, 3), MPI.ERR_BUFFER, /192 of 192 are free/,
  'a communicator made from a World Model group uses the process buffer');
const flush = session.Iflush_buffer();
t.check(!flush.Test(), 'the session\'s Iflush_buffer waits for both messages');
world.Barrier();
scomm.Recv(into, left, 1);
t.check(intact(into, left + 1), 'first message through the session buffer');
dup.Recv(into, left, 2);
t.check(intact(into, left + 2), 'second message, on the duplicate');
flush.Wait();

// Communicators made in other ways from the session's groups and communicators.
roundTrip(returns(scomm.Split(0, rank)), 4, 'Split');
roundTrip(returns(scomm.Create_cart([size], [true])), 5, 'Create_cart');
roundTrip(returns(MPI.Intracomm.Create_from_group(scomm.Get_group(), 'tsmpi.test.get-group')), 6, 'Create_from_group(Get_group)');
const reversed = group.Incl(Array.from({ length: size }, (_, i) => size - 1 - i));
const rcomm = returns(MPI.Intracomm.Create_from_group(reversed, 'tsmpi.test.reversed'));
// In the reversed communicator world rank w is rank size - 1 - w: send to world `right` there.
roundTrip(rcomm, 7, 'Create_from_group(group.Incl)', size - 1 - right, size - 1 - left);
const both = MPI.Group.Union(reversed, world.Get_group());
roundTrip(returns(MPI.Intracomm.Create_from_group(both, 'tsmpi.test.union')), 8, 'a Union with a session group first',
  size - 1 - right, size - 1 - left);

// A communicator's own buffer comes first; the session's serves the others still.
scomm.Attach_buffer(new Uint8Array(charge(16)));
t.throws(() => scomm.Bsend(big(0), right, 9), MPI.ERR_BUFFER, /144 of 144 are free/, 'the communicator\'s own buffer first');
roundTrip(dup, 10, 'the duplicate still uses the session buffer');
scomm.Detach_buffer();
roundTrip(scomm, 11, 'back to the session buffer after the communicator\'s Detach_buffer');

// Detach: the communicators fall back to the process buffer.
const detached = session.Detach_buffer() as Uint8Array;
t.equal(detached.byteLength, 2 * charge(BIG), 'Detach_buffer returns the session buffer');
t.equal(session.Detach_buffer(), null, 'Detach_buffer with none attached gives null');
t.throws(() => dup.Bsend(big(0), right, 12), MPI.ERR_BUFFER, /192 of 192 are free/, 'after the session\'s Detach_buffer the process buffer serves');
session.Attach_buffer(MPI.BUFFER_AUTOMATIC);
for (let k = 0; k < 3; k++) dup.Bsend(big(rank + 20 + k), right, 20 + k);
for (let k = 0; k < 3; k++) {
  dup.Recv(into, left, 20 + k);
  t.check(intact(into, left + 20 + k), `automatic session buffer, message ${k}`);
}
t.equal(session.Detach_buffer(), MPI.BUFFER_AUTOMATIC, 'Detach_buffer gives MPI.BUFFER_AUTOMATIC back');

// Errors through the session's handler.
session.Attach_buffer(new Uint8Array(8));
t.throws(() => session.Attach_buffer(new Uint8Array(8)), MPI.ERR_BUFFER, /^MPI\.Session\.Attach_buffer: a buffer is already attached; detach it first$/,
  'attach twice');
t.throws(() => session.Attach_buffer(null as never), MPI.ERR_BUFFER, /^MPI\.Session\.Attach_buffer: buf must be/, 'attach null');
session.Detach_buffer();
MPI.Detach_buffer();
const check = new Int32Array(1);
scomm.Allreduce(Int32Array.of(1), check, MPI.SUM);
t.equal(check[0], size, 'the session\'s communicator works after the errors');
session.Finalize();
t.throws(() => session.Iflush_buffer(), MPI.ERR_SESSION, /finalized/, 'Iflush_buffer of a finalized session');
MPI.Finalize();
t.finish(rank);
