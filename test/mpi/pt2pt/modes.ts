/** Send modes: Ssend waits for the match, Bsend with Attach/Detach and its overflow error, Rsend. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank } = comm;
if (rank === 0) {
  const s = comm.Issend(Int32Array.of(1), 1, 1);
  const until = Date.now() + 200;
  let early = false;
  while (Date.now() < until) if (s.Test()) early = true;
  t.equal(early, false, 'Issend does not complete before the receive is posted');
  comm.Send(Int32Array.of(0), 1, 2);
  s.Wait();

  MPI.Attach_buffer(new Uint8Array(3 * (1000 + MPI.BSEND_OVERHEAD)));
  for (let i = 0; i < 3; i++) comm.Bsend(new Uint8Array(1000).fill(i), 1, 3);
  t.throws(() => comm.Bsend(new Uint8Array(5000), 1, 3), MPI.ERR_BUFFER, /a message of 5000 bytes needs 5128 bytes of the attached buffer, \d+ of 3384 are free/, 'Bsend overflow');
  const ib = comm.Ibsend(new Uint8Array(10), MPI.PROC_NULL, 3);
  ib.Wait();
  comm.Send(Int32Array.of(0), 1, 4);
  const detached = MPI.Detach_buffer() as Uint8Array;
  t.equal(detached.length, 3 * (1000 + MPI.BSEND_OVERHEAD), 'Detach_buffer returns the buffer');
  MPI.Attach_buffer(new Uint8Array(1 << 20));
  const big = new Uint8Array(300_000).fill(7);
  comm.Bsend(big, 1, 5);
  big.fill(0);
  MPI.Detach_buffer();
  comm.Recv(new Int32Array(1), 1, 6);
  comm.Rsend(Int32Array.of(42), 1, 7);
} else if (rank === 1) {
  const x = new Int32Array(1);
  comm.Recv(x, 0, 2);
  comm.Recv(x, 0, 1);
  t.equal(x[0], 1, 'Issend data');
  comm.Recv(x, 0, 4);
  for (let i = 0; i < 3; i++) {
    const b = new Uint8Array(1000);
    comm.Recv(b, 0, 3);
    t.equal(b[999], i, `Bsend message ${i}`);
  }
  const big = new Uint8Array(300_000);
  comm.Recv(big, 0, 5);
  t.equal(big[299_999], 7, 'Bsend copies the data before returning');
  const r = comm.Irecv(x, 0, 7);
  comm.Send(Int32Array.of(0), 0, 6);
  r.Wait();
  t.equal(x[0], 42, 'Rsend to a posted receive');
}
t.throws(() => MPI.Attach_buffer(new Uint8Array(8)) === undefined && MPI.Attach_buffer(new Uint8Array(8)), MPI.ERR_BUFFER, /already attached/, 'double Attach_buffer');
MPI.Detach_buffer();
MPI.Finalize();
t.finish(rank);
