/**
 * Every size across the short/eager/rendezvous limits, in a ring (each rank sends to its right
 * and receives from its left): blocking (even ranks send first), non-blocking and synchronous
 * (both post first). A sentinel after the receive area must survive. arg: largest size in MiB.
 */
import { MPI } from '../../../src/index.js';
import { MTest, fillPattern, findPatternError, protocolSizes } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const maxMiB = Number(process.argv[2] ?? 1);
const status = new MPI.Status();
for (const n of protocolSizes(Math.round(maxMiB * 1024 * 1024))) {
  const out = new Uint8Array(n);
  fillPattern(out, rank * 1000 + n);
  for (const mode of ['blocking', 'nonblocking', 'synchronous'] as const) {
    const inbox = new Uint8Array(n + 1);
    inbox[n] = 0xa5;
    const into = [inbox, n, MPI.BYTE] as const;
    if (mode === 'blocking') {
      if (rank % 2 === 0) {
        comm.Send(out, right, 3);
        comm.Recv(into, left, 3, status);
      } else {
        comm.Recv(into, left, 3, status);
        comm.Send(out, right, 3);
      }
    } else {
      const r = comm.Irecv(into, left, 4);
      const s = mode === 'synchronous' ? comm.Issend(out, right, 4) : comm.Isend(out, right, 4);
      MPI.Request.Waitall([s, r]);
      r.Get_status(status);
      status.source = left;
      status.tag = 4;
      status.count = n;
    }
    const bad = findPatternError(inbox, left * 1000 + n, n);
    t.check(bad < 0, `${mode} ${n} B from ${left}: byte ${bad} wrong`);
    t.equal(inbox[n], 0xa5, `${mode} ${n} B: sentinel after the buffer`);
    if (mode === 'blocking') {
      t.equal(status.Get_source(), left, `${mode} ${n} B: status source`);
      t.equal(status.Get_count(MPI.BYTE), n, `${mode} ${n} B: status count`);
    }
  }
}
const r = rank;
MPI.Finalize();
t.finish(r);
