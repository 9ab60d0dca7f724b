/**
 * A receive buffer too small for the message fails with MPI.ERR_TRUNCATE under
 * MPI.ERRORS_RETURN, for every protocol, and the job stays usable afterwards.
 */
import { MPI } from '../../../src/index.js';
import { MTest, fillPattern, findPatternError } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank } = comm;
for (const n of [10, 2000, 100_000, 2_000_000]) {
  if (rank === 0) {
    const b = new Uint8Array(n);
    fillPattern(b, n);
    comm.Send(b, 1, 1);
    comm.Send(b, 1, 2);
  } else if (rank === 1) {
    const small = new Uint8Array(n - 3);
    t.throws(() => comm.Recv(small, 0, 1), MPI.ERR_TRUNCATE, /Recv: the message from rank 0 with tag 1 is longer than the receive buffer/, `${n} B into ${n - 3}`);
    t.equal(findPatternError(small, n), -1, `${n} B: the part that fits is delivered`);
    const r = comm.Irecv(new Uint8Array(1), 0, 2);
    let err = 0;
    try {
      r.Wait();
    } catch (e) {
      err = (e as InstanceType<typeof MPI.Exception>).Get_error_class();
    }
    t.equal(err, MPI.ERR_TRUNCATE, `${n} B: Irecv + Wait reports truncation`);
  }
  // Still usable: a normal exchange.
  const x = new Int32Array(1);
  if (rank === 0) comm.Send(Int32Array.of(n), 1, 9);
  else if (rank === 1) {
    comm.Recv(x, 0, 9);
    t.equal(x[0], n, 'exchange after truncation');
  }
}
MPI.Finalize();
t.finish(rank);
