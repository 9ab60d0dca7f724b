/**
 * A message stream after Init takes no page faults in V8's young generation: osu_bw's loop (64
 * Isends, Waitall, a 1-byte acknowledgement) with 8-byte messages, run until it has allocated
 * twice the young generation (every semispace page reused at least once), takes ~100 faults
 * (a fortieth of the pages) where it took one per ~80 messages, 3,000-4,300, before Init wrote
 * the space through (young-generation.ts). The bound is a sixteenth of the pages. The young generation also keeps its size.
 * Only ranks that warm up (a core each) settle their heap; elsewhere the test says so and checks
 * the stream alone.
 */
import { MPI, type Request } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { youngGeneration } from '../../../src/mpir/young-generation.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const world = runtime.requireRunning('stream-faults test');
const WINDOW = 64;
/** Bytes a message leaves in the young generation, at least (the Request handle). */
const PER_MESSAGE = 48;
const reqs = new Array<Request>(WINDOW);
const ack = new Uint8Array(1);
const buf = new Uint8Array(8);
const settled = world.progress.hasOwnCore && process.env.TSMPI_WARMUP !== 'off';

if (size >= 2 && rank < 2) {
  const capacity = youngGeneration().space_size;
  const windows = Math.ceil((2 * capacity) / (PER_MESSAGE * WINDOW));
  const faultsBefore = process.resourceUsage().minorPageFault;
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
  const faults = process.resourceUsage().minorPageFault - faultsBefore;
  const pages = Math.round((2 * capacity) / 4096);
  if (settled) {
    t.check(faults <= pages / 16, `rank ${rank}: ${windows * WINDOW} messages through twice the young generation ` +
      `(${capacity} B, ${pages} pages) took ${faults} page faults; at most ${pages / 16} expected after Init wrote it through`);
    t.equal(youngGeneration().space_size, capacity, `rank ${rank}: the young generation kept its size`);
  } else {
    console.log(`# rank ${rank}: no core of its own (or TSMPI_WARMUP=off), heap not settled: ${faults} page faults`);
  }
}
MPI.Finalize();
t.finish(rank);
