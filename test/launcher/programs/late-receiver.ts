/**
 * Messages a rank has sent must arrive even when it calls MPI_Finalize at once and the receiver
 * takes them late: every rank but 0 sends `count` messages of `bytes` (eager: each Send returns
 * as soon as the device has the data) and finalizes; rank 0 computes for 2 s first, so the
 * senders' sockets fill and part of the data is still inside the sender's network device when
 * it reaches Finalize. Rank 0 checks every message's tag and content.
 * args: count (default 200), bytes (default 60000, under ch_ucx's eager limit).
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../../mpi/util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const count = Number(process.argv[2] ?? 200);
const bytes = Number(process.argv[3] ?? 60000);
const fill = (src: number, i: number): number => (src * 31 + i) & 255;

if (rank !== 0) {
  const b = new Uint8Array(bytes);
  for (let i = 0; i < count; i++) {
    b.fill(fill(rank, i));
    comm.Send(b, 0, i);
  }
} else {
  const t0 = Date.now();
  while (Date.now() - t0 < 2000) { /* busy: not receiving */ }
  const b = new Uint8Array(bytes);
  const status = new MPI.Status();
  for (let src = 1; src < size; src++) {
    for (let i = 0; i < count; i++) {
      comm.Recv(b, src, MPI.ANY_TAG, status);
      t.equal(status.Get_tag(), i, `message ${i} from rank ${src}: tag`);
      t.check(b[0] === fill(src, i) && b[bytes - 1] === fill(src, i), `message ${i} from rank ${src}: content`);
    }
  }
}
// " No Errors" comes after Finalize: a job that hangs there fails.
MPI.Finalize();
t.finish(rank);
