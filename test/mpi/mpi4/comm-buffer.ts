/**
 * MPI-4.1's buffers: a communicator's own buffer (Attach_buffer, Detach_buffer, Flush_buffer,
 * Iflush_buffer) taking precedence over MPI.Attach_buffer's, duplicates starting without one,
 * accounting per buffer with rendezvous-sized messages that stay in flight until the neighbour
 * receives them, Iflush requests that complete when the messages buffered before them have left
 * (not later ones), MPI.Iflush_buffer, MPI.BUFFER_AUTOMATIC, persistent and object buffered
 * sends, and the errors.
 */
import { MPI } from '../../../src/index.js';
import { heldMessages } from '../util/held-messages.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
world.Set_errhandler(MPI.ERRORS_RETURN);
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;
const BIG = 200 * 1024 + 3;
const { charge, make: big, intact } = heldMessages(BIG, 7);

const comm = world.Dup();
comm.Set_errhandler(MPI.ERRORS_RETURN);

// Precedence: the communicator's buffer, else MPI.Attach_buffer's (too small here).
MPI.Attach_buffer(new Uint8Array(charge(100)));
comm.Attach_buffer(new Uint8Array(2 * charge(BIG)));
comm.Bsend(big(rank), right, 1);
comm.Bsend(big(rank + 1), right, 2);
t.throws(() => comm.Bsend(big(0), right, 3), MPI.ERR_BUFFER, /\.Bsend: a message of 204803 bytes needs 204931 bytes of the attached buffer, 0 of 409862 are free/,
  'a third message overflows the communicator\'s buffer');
t.throws(() => world.Bsend(big(0), right, 3), MPI.ERR_BUFFER, /MPI_COMM_WORLD\.Bsend: a message of 204803 bytes needs .* 228 of 228 are free/,
  'COMM_WORLD uses the process buffer');
const twin = comm.Dup();
twin.Set_errhandler(MPI.ERRORS_RETURN);
t.throws(() => twin.Bsend(big(0), right, 3), MPI.ERR_BUFFER, /of 228 are free/, 'a duplicate starts without the buffer');
const flushAll = comm.Iflush_buffer();
t.check(!flushAll.Test(), 'Iflush_buffer is not done while both messages are unreceived');
world.Barrier();
const into = new Uint8Array(BIG);
comm.Recv(into, left, 1);
t.check(intact(into, left), 'first buffered message intact');
// The first has left, the second not: the Iflush of both stays pending, one made now is too.
const flushSecond = comm.Iflush_buffer();
t.check(!flushSecond.Test(), 'Iflush_buffer with the second message still unreceived');
world.Barrier();
comm.Recv(into, left, 2);
t.check(intact(into, left + 1), 'second buffered message intact');
MPI.Request.Waitall([flushAll, flushSecond]);
comm.Bsend(big(rank + 2), right, 4);
comm.Bsend(big(rank + 3), right, 5);
comm.Recv(into, left, 4);
comm.Recv(into, left, 5);
t.check(intact(into, left + 3), 'messages after the flush');

// An Iflush waits only for what was buffered before it: a later message may stay unreceived.
// (First the sends above have to be seen done here: the neighbour's receive ends them there.)
comm.Flush_buffer();
comm.Bsend(big(rank + 4), right, 6);
const early = comm.Iflush_buffer();
comm.Bsend(big(rank + 5), right, 7);
comm.Recv(into, left, 6);
early.Wait();
world.Barrier();
comm.Recv(into, left, 7);
t.check(intact(into, left + 5), 'the message buffered after the Iflush');
comm.Flush_buffer();
const detached = comm.Detach_buffer() as Uint8Array;
t.equal(detached.length, 2 * charge(BIG), 'Detach_buffer returns the communicator\'s buffer');
t.equal(comm.Detach_buffer(), null, 'Detach_buffer with none attached gives null');
t.throws(() => comm.Bsend(big(0), right, 8), MPI.ERR_BUFFER, /of 228 are free/, 'after Detach_buffer the process buffer serves');

// Persistent and object buffered sends use the communicator's buffer; Iflush with nothing in flight.
comm.Attach_buffer(new Uint8Array(charge(BIG) + charge(256)));
const p = comm.Bsend_init(big(rank + 6), right, 9);
p.Start();
comm.bsend({ from: rank, text: 'x'.repeat(20) }, right, 10);
comm.Recv(into, left, 9);
p.Wait();
p.Free();
t.equal(comm.recv<{ from: number }>(left, 10).from, left, 'object bsend through the communicator\'s buffer');
comm.Flush_buffer();
const nothing = comm.Iflush_buffer();
t.check(nothing.Test(), 'Iflush_buffer with nothing in flight is done at once');
comm.Detach_buffer();

// MPI.BUFFER_AUTOMATIC: as much as the messages need; MPI.Iflush_buffer.
t.equal((MPI.Detach_buffer() as Uint8Array).byteLength, charge(100), 'the small process buffer');
MPI.Attach_buffer(MPI.BUFFER_AUTOMATIC);
for (let k = 0; k < 3; k++) world.Bsend(big(rank + k), right, 20 + k);
const flushProcess = MPI.Iflush_buffer();
t.check(!flushProcess.Test(), 'MPI.Iflush_buffer pending');
world.Barrier();
for (let k = 0; k < 3; k++) {
  world.Recv(into, left, 20 + k);
  t.check(intact(into, left + k), `automatic buffer message ${k}`);
}
await flushProcess;
t.equal(MPI.Detach_buffer(), MPI.BUFFER_AUTOMATIC, 'Detach_buffer gives MPI.BUFFER_AUTOMATIC back');
comm.Attach_buffer(MPI.BUFFER_AUTOMATIC);
comm.Bsend(big(rank), right, 30);
comm.Recv(into, left, 30);
t.equal(comm.Detach_buffer(), MPI.BUFFER_AUTOMATIC, 'a communicator\'s automatic buffer');

// Errors, through the communicator's handler; the communicator stays usable.
comm.Attach_buffer(new Uint8Array(16));
t.throws(() => comm.Attach_buffer(new Uint8Array(16)), MPI.ERR_BUFFER, /\.Attach_buffer: a buffer is already attached; detach it first$/, 'attach twice');
t.throws(() => comm.Attach_buffer('buffer' as never), MPI.ERR_BUFFER, /\.Attach_buffer: buf must be a TypedArray, Buffer, ArrayBuffer or MPI\.BUFFER_AUTOMATIC, got/, 'attach a string');
t.throws(() => MPI.Attach_buffer(42 as never), MPI.ERR_BUFFER, /^MPI\.Attach_buffer: buf must be/, 'MPI.Attach_buffer of a number');
t.throws(() => MPI.COMM_NULL.Attach_buffer(new Uint8Array(8)), MPI.ERR_COMM, /COMM_NULL\.Attach_buffer/, 'COMM_NULL');
t.throws(() => comm.Bsend(new Uint8Array(8), right, 40), MPI.ERR_BUFFER, /needs 136 bytes of the attached buffer, 16 of 16 are free/, 'too small for one message');
comm.Detach_buffer();
twin.Free();
const freed = world.Dup();
freed.Free();
t.throws(() => freed.Iflush_buffer(), MPI.ERR_COMM, /Iflush_buffer/, 'Iflush_buffer on a freed communicator');
const check = new Int32Array(1);
comm.Allreduce(Int32Array.of(1), check, MPI.SUM);
t.equal(check[0], size, 'the communicator works after the errors');
comm.Free();
MPI.Finalize();
t.finish(rank);
