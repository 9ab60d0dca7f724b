/** Waitany/Waitsome/Testany/Testall/Testsome, MPI.PROC_NULL everywhere, and request Free. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const status = new MPI.Status();

comm.Send(new Uint8Array(4), MPI.PROC_NULL, 1);
comm.Recv(new Uint8Array(4), MPI.PROC_NULL, 1, status);
t.equal(status.Get_source(), MPI.PROC_NULL, 'Recv from PROC_NULL: source');
t.equal(status.Get_tag(), MPI.ANY_TAG, 'Recv from PROC_NULL: tag');
t.equal(status.Get_count(), 0, 'Recv from PROC_NULL: count');
const pn = comm.Irecv(new Uint8Array(4), MPI.PROC_NULL);
t.equal(pn.Test(), true, 'Irecv from PROC_NULL completes at once');

const bufs = Array.from({ length: 8 }, () => new Int32Array(1));
const reqs = bufs.map((b, i) => comm.Irecv(b, left, i));
t.equal(MPI.Request.Testall(reqs), false, 'Testall before any send');
const [idx0, flag0] = MPI.Request.Testany(reqs);
t.equal(flag0, false, 'Testany before any send');
t.equal(idx0, MPI.UNDEFINED, 'Testany index before any send');
// Nobody sends before everyone has tested the empty state.
comm.Barrier();
for (const i of [5, 2, 7, 0, 1, 3, 4, 6]) comm.Send(Int32Array.of(i), right, i);
const seen = new Set<number>();
const first = MPI.Request.Waitany(reqs, status);
seen.add(first);
t.equal(status.Get_tag(), first, 'Waitany status matches its index');
while (seen.size < 8) {
  const some = MPI.Request.Waitsome(reqs);
  t.check(some !== null && some.length > 0, 'Waitsome returns completions');
  if (some === null) break;
  for (const i of some ?? []) {
    t.equal(seen.has(i), false, `index ${i} reported once`);
    seen.add(i);
  }
}
t.equal(MPI.Request.Waitsome(reqs), null, 'Waitsome with no active request is null');
t.equal(MPI.Request.Waitany(reqs), MPI.UNDEFINED, 'Waitany with no active request');
for (let i = 0; i < 8; i++) t.equal(bufs[i]![0], i, `buffer ${i}`);

// Freed requests still complete in the background.
const freed = comm.Isend(new Uint8Array(300_000).fill(3), right, 50);
freed.Free();
const big = new Uint8Array(300_000);
comm.Recv(big, left, 50);
t.equal(big[299_999], 3, 'a freed send still delivers');
comm.Barrier();
MPI.Finalize();
t.finish(rank);
