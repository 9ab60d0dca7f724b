/**
 * Sessions beside the World Model: a session started before MPI.Init, MPI.Finalize while the
 * session lives (its communicator keeps working), the session's Finalize ends MPI.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
const session = MPI.Session.Init();
MPI.Init_thread(MPI.THREAD_MULTIPLE);
t.equal(MPI.Query_thread(), MPI.THREAD_FUNNELED, 'THREAD_MULTIPLE asked, FUNNELED given');
t.equal(MPI.Is_thread_main(), true, 'the main thread');
const { rank, size } = MPI.COMM_WORLD;
const comm = MPI.Intracomm.Create_from_group(session.Create_group('mpi://WORLD'));
t.equal(MPI.COMM_WORLD.Compare(comm), MPI.CONGRUENT, 'WORLD pset communicator is congruent to COMM_WORLD');
// Traffic on both at once must not mix: same tag, same peers, different communicators.
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;
const fromWorld = new Int32Array(1);
const fromSession = new Int32Array(1);
const r1 = MPI.COMM_WORLD.Irecv(fromWorld, left, 3);
const r2 = comm.Irecv(fromSession, left, 3);
comm.Send(Int32Array.of(2000 + rank), right, 3);
MPI.COMM_WORLD.Send(Int32Array.of(1000 + rank), right, 3);
const s1 = new MPI.Status();
r1.Wait(s1);
r2.Wait();
t.equal(s1.Get_source(), left, 'COMM_WORLD message source');
t.equal(fromWorld[0], 1000 + left, 'COMM_WORLD message');
t.equal(fromSession[0], 2000 + left, 'session communicator message');
MPI.Finalize();
t.equal(MPI.Is_finalized(), true, 'World Model finalized');
const sum = new Float64Array(1);
comm.Allreduce(Float64Array.of(0.25), sum, MPI.SUM);
t.equal(sum[0], 0.25 * size, 'the session communicator works after MPI.Finalize');
comm.Free();
session.Finalize();
t.finish(rank);
