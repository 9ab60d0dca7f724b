/**
 * Many-to-one with wildcards: every rank but 0 sends `count` messages with tags cycling
 * through 0..4; rank 0 receives all with MPI.ANY_SOURCE/MPI.ANY_TAG and checks that each
 * sender's messages arrive in order and that status names the true source and tag.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const count = 2000;
if (rank === 0) {
  const next = new Array<number>(size).fill(0);
  const buf = new Int32Array(2);
  const status = new MPI.Status();
  for (let i = 0; i < count * (size - 1); i++) {
    comm.Recv(buf, MPI.ANY_SOURCE, MPI.ANY_TAG, status);
    const src = status.Get_source();
    t.equal(buf[0], src, 'payload names its sender');
    t.equal(buf[1], next[src], `sequence from rank ${src}`);
    t.equal(status.Get_tag(), next[src]! % 5, `tag from rank ${src}`);
    t.equal(status.Get_count(MPI.INT), 2, 'count in MPI.INT');
    next[src] = buf[1]! + 1;
  }
  comm.Barrier();
  // Exact source with any tag, and any source with an exact tag, after the flood.
  for (let src = 1; src < size; src++) comm.Recv(buf, src, MPI.ANY_TAG, status);
  for (let src = 1; src < size; src++) {
    comm.Recv(buf, MPI.ANY_SOURCE, 77, status);
    t.equal(status.Get_tag(), 77, 'exact tag 77');
  }
} else {
  for (let i = 0; i < count; i++) comm.Send(Int32Array.of(rank, i), 0, i % 5);
  // The wildcard receives of the flood would also match these: send them after it.
  comm.Barrier();
  comm.Send(Int32Array.of(rank, -1), 0, 12);
  comm.Send(Int32Array.of(rank, -2), 0, 77);
}
MPI.Finalize();
t.finish(rank);
