/**
 * The streaming loop of osu_bw (64 Isends, Waitall, a 1-byte acknowledgement) allocates nothing
 * on the message path: after a warm-up, 256 windows of short and eager messages construct no
 * engine request or unexpected record, and V8's young generation grows by no more than the
 * Request handle each Isend/Irecv returns to the program (mpi4py's API: a fresh object per
 * call, 48 bytes here) and the array slots it fills, which is what remains of a message.
 */
import v8 from 'node:v8';
import { MPI, type Request } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const world = runtime.requireRunning('pools-stream test');
const WINDOW = 64;
const WINDOWS = 256;
const reqs = new Array<Request>(WINDOW);
const ack = new Uint8Array(1);
const buffers = [new Uint8Array(8), new Uint8Array(1000), new Uint8Array(4096)];

const stream = (buf: Uint8Array, windows: number) => {
  for (let w = 0; w < windows; w++) {
    if (rank === 0) {
      for (let j = 0; j < WINDOW; j++) reqs[j] = comm.Isend(buf, 1, 7);
      MPI.Request.Waitall(reqs);
      comm.Recv(ack, 1, 8);
    } else {
      for (let j = 0; j < WINDOW; j++) reqs[j] = comm.Irecv(buf, 0, 7);
      MPI.Request.Waitall(reqs);
      comm.Send(ack, 0, 8);
    }
  }
};

if (size >= 2 && rank < 2) {
  for (const buf of buffers) stream(buf, 64);
  const requests = world.engine.requests.created;
  const unexpected = world.engine.unexpectedPool.created;
  const young = () => v8.getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')!.space_used_size;
  for (const buf of buffers) {
    // A scavenge in the middle makes the difference negative; the least non-negative of three counts.
    let growth = Infinity;
    for (let loop = 0; loop < 3; loop++) {
      const before = young();
      stream(buf, WINDOWS);
      const grown = young() - before;
      if (grown >= 0) growth = Math.min(growth, grown);
    }
    const perMessage = growth / (WINDOWS * WINDOW);
    t.check(perMessage <= 64, `${buf.length} B: the young generation grew by ${perMessage.toFixed(1)} bytes a message ` +
      `(${growth} over ${WINDOWS * WINDOW}); the Request handle is 48`);
  }
  t.equal(world.engine.requests.created, requests, 'no engine request constructed in steady state');
  t.equal(world.engine.unexpectedPool.created, unexpected, 'no unexpected record or buffer constructed in steady state');
}
MPI.Finalize();
t.finish(rank);
