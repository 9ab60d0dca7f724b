/**
 * Cancel: a posted receive is always cancelled; a synchronous or rendezvous send that the
 * receiver has not matched is cancelled and never delivered; a send already matched is not.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank } = comm;
const status = new MPI.Status();

const r = comm.Irecv(new Uint8Array(4), MPI.ANY_SOURCE, 42);
r.Cancel();
r.Wait(status);
t.equal(status.Is_cancelled(), true, 'posted receive cancelled');

if (rank === 0) {
  for (const n of [16, 200_000]) {
    const s = comm.Issend(new Uint8Array(n), 1, 7);
    s.Cancel();
    s.Wait(status);
    t.equal(status.Is_cancelled(), true, `unmatched Issend of ${n} B cancelled`);
  }
  const kept = comm.Issend(Int32Array.of(5), 1, 8);
  comm.Barrier();
  kept.Wait();
  kept.Cancel();
  comm.Send(Int32Array.of(99), 1, 7);
} else if (rank === 1) {
  const got = new Int32Array(1);
  comm.Recv(got, 0, 8);
  comm.Barrier();
  comm.Recv(got, 0, 7, status);
  t.equal(got[0], 99, 'the cancelled sends never arrived; the next one did');
  t.equal(comm.Iprobe(0, 7), false, 'nothing else left with tag 7');
} else {
  comm.Barrier();
}
MPI.Finalize();
t.finish(rank);
