/**
 * MPI's non-overtaking rule with many messages in flight: rank 0 starts 10,000 sends of mixed
 * sizes (short, eager and rendezvous) to every other rank before anyone receives; receivers
 * take them with a mix of exact, MPI.ANY_TAG and MPI.ANY_SOURCE receives and check each
 * message's sequence number and content.
 */
import { MPI } from '../../../src/index.js';
import { MTest, fillPattern, findPatternError } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const count = Number(process.argv[2] ?? 10000);
const sizeOf = (i: number) => (i % 97 === 0 ? 70_000 + i : i % 13 === 0 ? 3000 + i : (i * 7) % 200);
if (rank === 0) {
  const reqs = [];
  const bufs = [];
  for (let i = 0; i < count; i++) {
    for (let dest = 1; dest < size; dest++) {
      const b = new Uint8Array(sizeOf(i) + 4);
      fillPattern(b, i);
      new DataView(b.buffer).setUint32(0, i, true);
      bufs.push(b);
      reqs.push(comm.Isend(b, dest, i % 5));
    }
  }
  // Rendezvous sends complete only once matched: let the receivers start first.
  comm.Barrier();
  MPI.Request.Waitall(reqs);
} else {
  comm.Barrier();
  const status = new MPI.Status();
  for (let i = 0; i < count; i++) {
    const b = new Uint8Array(sizeOf(i) + 4);
    const source = i % 3 === 0 ? MPI.ANY_SOURCE : 0;
    const tag = i % 2 === 0 ? MPI.ANY_TAG : i % 5;
    comm.Recv(b, source, tag, status);
    const seq = new DataView(b.buffer).getUint32(0, true);
    if (seq !== i) {
      t.check(false, `message ${i} arrived as number ${seq}`);
      break;
    }
    t.equal(status.Get_tag(), i % 5, `message ${i} tag`);
    t.equal(status.Get_count(), b.length, `message ${i} count`);
    const expected = new Uint8Array(b.length);
    fillPattern(expected, i);
    new DataView(expected.buffer).setUint32(0, i, true);
    if (findPatternError(b.subarray(4), 0) >= 0 && Buffer.compare(b, expected) !== 0) t.check(false, `message ${i} content`);
  }
}
const r = rank;
MPI.Finalize();
t.finish(r);
