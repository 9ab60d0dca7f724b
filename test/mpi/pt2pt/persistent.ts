/** Persistent requests: Send_init/Ssend_init/Recv_init started many times, Startall, inactive Wait. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
for (const n of [1, 5000, 100_000]) {
  const out = new Float64Array(n);
  const inbox = new Float64Array(n);
  const recv = comm.Recv_init(inbox, left, 3);
  const send = n === 5000 ? comm.Ssend_init(out, right, 3) : comm.Send_init(out, right, 3);
  for (let round = 0; round < 50; round++) {
    out.fill(rank * 1000 + round);
    MPI.Prequest.Startall([recv, send]);
    MPI.Request.Waitall([recv, send]);
    t.equal(inbox[n - 1], left * 1000 + round, `${n} doubles, round ${round}`);
  }
  t.equal(recv.Test(), true, 'an inactive persistent request tests complete');
  recv.Free();
  send.Free();
}
const p = comm.Send_init(new Uint8Array(1), MPI.PROC_NULL);
p.Start();
p.Wait();
t.throws(() => {
  const q = comm.Recv_init(new Uint8Array(1), left, 99);
  q.Start();
  q.Start();
}, MPI.ERR_REQUEST, /already active/, 'Start of an active request');
MPI.Finalize();
t.finish(rank);
