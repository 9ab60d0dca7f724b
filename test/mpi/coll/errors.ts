/** Argument errors of collectives, under MPI.ERRORS_RETURN: each names its argument. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
comm.Set_errhandler(MPI.ERRORS_RETURN);

t.throws(() => comm.Bcast(new Int32Array(1), size), MPI.ERR_ROOT, /root 3|root \d+ is out of range/, 'Bcast root = size');
t.throws(() => comm.Reduce(new Int32Array(1), new Int32Array(1), MPI.SUM, -1), MPI.ERR_ROOT, /root -1/, 'Reduce root -1');
t.throws(() => comm.Allreduce(new Float64Array(2), new Float64Array(2), MPI.BAND), MPI.ERR_OP, /MPI\.BAND is not defined on MPI_DOUBLE/, 'BAND on DOUBLE');
t.throws(() => comm.Allreduce(new Int32Array(2), new Int32Array(2), MPI.MAXLOC), MPI.ERR_OP, /MAXLOC/, 'MAXLOC on INT');
t.throws(() => comm.Allreduce(new Int32Array(2), new Int32Array(2), 'sum' as never), MPI.ERR_OP, /op must be an MPI.Op/, 'op not an Op');
t.throws(() => comm.Allreduce(new Int32Array(2), new Int32Array(3), MPI.SUM), MPI.ERR_COUNT, /sendbuf has 2 elements but recvbuf has 3/, 'count mismatch');
t.throws(() => comm.Allreduce(new Int32Array(2), new Float32Array(2), MPI.SUM), MPI.ERR_TYPE, /sendbuf is MPI_INT but recvbuf is MPI_FLOAT/, 'type mismatch');
t.throws(() => comm.Allgather(new Int32Array(2), new Int32Array(2 * size + 1)), MPI.ERR_COUNT, /recvbuf/, 'Allgather recvbuf size');
t.throws(() => comm.Gatherv(new Int32Array(1), [new Int32Array(1), [[5], [0]], MPI.INT], size), MPI.ERR_ROOT, /root/, 'Gatherv root = size');
t.throws(() => comm.Reduce_scatter(new Int32Array(size), new Int32Array(1), [], MPI.SUM), MPI.ERR_COUNT, /recvcounts: expected \d+ entries/, 'Reduce_scatter short recvcounts');
t.throws(() => comm.Bcast('no buffer' as never, 0), MPI.ERR_BUFFER, /buf: expected a TypedArray/, 'Bcast of a string');
const freed = MPI.Op.Create(() => {}, true);
freed.Free();
t.throws(() => comm.Allreduce(new Int32Array(1), new Int32Array(1), freed), MPI.ERR_OP, /freed/, 'freed op');
t.throws(() => MPI.SUM.Free(), MPI.ERR_OP, /predefined/, 'Free a predefined op');
const ib = comm.Ibarrier();
t.throws(() => ib.Cancel(), MPI.ERR_REQUEST, /cannot be cancelled/, 'Cancel of a non-blocking collective');
ib.Wait();
// The communicator still works after the errors.
const out = new Int32Array(1);
comm.Allreduce(Int32Array.of(1), out, MPI.SUM);
t.equal(out[0], size, 'Allreduce after errors');

MPI.Finalize();
t.finish(rank);
