/** Argument checks: each bad argument gives its error class and a message naming it; the job stays usable. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank, size } = comm;
const b = new Uint8Array(8);
t.throws(() => comm.Send(b, size), MPI.ERR_RANK, new RegExp(`Send: dest ${size} is out of range for a communicator of size ${size}`), 'dest = size');
t.throws(() => comm.Send(b, -5), MPI.ERR_RANK, /dest -5 is out of range/, 'negative dest');
t.throws(() => comm.Send(b, 0.5), MPI.ERR_RANK, /dest 0.5/, 'fractional dest');
t.throws(() => comm.Recv(b, size + 3), MPI.ERR_RANK, /source \d+ is out of range.*MPI.ANY_SOURCE/, 'bad source');
t.throws(() => comm.Send(b, 0, -1), MPI.ERR_TAG, /tag -1 is invalid \(expected 0\.\.2147483647\)/, 'negative send tag');
t.throws(() => comm.Send(b, 0, MPI.ANY_TAG), MPI.ERR_TAG, /tag -1/, 'ANY_TAG in a send');
t.throws(() => comm.Recv(b, 0, -7), MPI.ERR_TAG, /tag -7 is invalid .*or MPI\.ANY_TAG/, 'bad receive tag');
t.throws(() => comm.Send([b, 9, MPI.BYTE], 0), MPI.ERR_BUFFER, /9 x MPI_BYTE \(9 bytes\) does not fit a buffer of 8 bytes/, 'count too large');
t.throws(() => comm.Send([b, -1, MPI.BYTE], 0), MPI.ERR_COUNT, /count -1/, 'negative count');
t.throws(() => comm.Send([b, 1.5, MPI.BYTE], 0), MPI.ERR_COUNT, /count 1\.5/, 'fractional count');
t.throws(() => comm.Send([b, 1, 'int' as unknown as typeof MPI.INT], 0), MPI.ERR_TYPE, /expected an MPI\.Datatype, got string/, 'not a datatype');
t.throws(() => comm.Send('hello' as unknown as Uint8Array, 0), MPI.ERR_BUFFER, /expected a TypedArray.*got string hello/, 'not a buffer');
t.throws(() => comm.Send([b, 3, MPI.DOUBLE], 0), MPI.ERR_BUFFER, /3 x MPI_DOUBLE \(24 bytes\)/, 'typed count too large');
t.throws(() => comm.Send([b, 1, MPI.DOUBLE.Create_vector(1, 1, 1)], 0), MPI.ERR_TYPE, /not committed; commit it first/, 'uncommitted datatype');
// Still usable after all of that.
const x = new Int32Array(1);
comm.Sendrecv(Int32Array.of(rank), (rank + 1) % size, 0, x, (rank - 1 + size) % size, 0);
t.equal(x[0], (rank - 1 + size) % size, 'Sendrecv after errors');
const sx = Float64Array.of(rank, rank);
comm.Sendrecv_replace(sx, (rank + 1) % size, 1, (rank - 1 + size) % size, 1);
t.equal(sx[1], (rank - 1 + size) % size, 'Sendrecv_replace');
t.equal(comm.Get_attr(MPI.TAG_UB), 2147483647, 'TAG_UB attribute');
MPI.Finalize();
t.finish(rank);
