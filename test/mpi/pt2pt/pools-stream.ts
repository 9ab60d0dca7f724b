/**
 * The streaming loop of osu_bw (64 Isends, Waitall, a 1-byte acknowledgement) allocates nothing
 * on the message path: after a warm-up, 256 windows of short and eager messages construct no
 * engine request or unexpected record, and V8's young generation grows by no more than the
 * Request handle each Isend/Irecv returns to the program (mpi4py's API: a fresh object per
 * call, 48 bytes here) and the array slots it fills, which is what remains of a message.
 */
import { MPI } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { bwWindows, WINDOW } from '../util/bw-window.js';
import { MTest } from '../util/mtest.js';
import { youngGrowth } from '../util/young-generation.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const world = runtime.requireRunning('pools-stream test');
const WINDOWS = 256;
const buffers = [new Uint8Array(8), new Uint8Array(1000), new Uint8Array(4096)];

if (size >= 2 && rank < 2) {
  for (const buf of buffers) bwWindows(comm, buf, 64);
  const requests = world.engine.requests.created;
  const unexpected = world.engine.unexpectedPool.created;
  for (const buf of buffers) {
    const growth = youngGrowth(() => bwWindows(comm, buf, WINDOWS), 1);
    const perMessage = growth / (WINDOWS * WINDOW);
    t.check(perMessage <= 64, `${buf.length} B: the young generation grew by ${perMessage.toFixed(1)} bytes a message ` +
      `(${growth} over ${WINDOWS * WINDOW}); the Request handle is 48`);
  }
  t.equal(world.engine.requests.created, requests, 'no engine request constructed in steady state');
  t.equal(world.engine.unexpectedPool.created, unexpected, 'no unexpected record or buffer constructed in steady state');
}
MPI.Finalize();
t.finish(rank);
