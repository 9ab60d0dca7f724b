/**
 * A message stream after Init takes no page faults in V8's young generation: osu_bw's loop (64
 * Isends, Waitall, a 1-byte acknowledgement) with 8-byte messages, run until it has allocated
 * twice the young generation (every semispace page reused at least once), takes 4-121 faults a
 * rank, where it took one per ~80 messages, 1,600-2,300, before Init wrote the space through
 * (young-generation.ts); and the young generation keeps its size. The bound is a quarter of the
 * pages. The stream is timed after the loop's first 100 windows, as osu_bw times after its skip:
 * those take 480-1,070 faults a rank in either mode (V8 compiling the loop and the calls' first
 * use of memory outside the young generation), which once took a settled rank past the bound. Where Init does not settle the heap (TSMPI_WARMUP=off, or ranks
 * without a core each under auto), the same stream must take more than that bound: the test's
 * control, so it cannot pass for want of faults to count.
 */
import { MPI } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { WARMUP } from '../../../src/mpir/config.js';
import { youngGeneration } from '../../../src/mpir/young-generation.js';
import { bwWindows, WINDOW } from '../util/bw-window.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const world = runtime.requireRunning('stream-faults test');
/** Bytes a message leaves in the young generation, at least (the Request handle). */
const PER_MESSAGE = 48;
/** Windows of the loop run before the faults are counted: its compile and first use. */
const SKIP_WINDOWS = 100;
const buf = new Uint8Array(8);
const warmup = WARMUP.read();
const settled = warmup === 'on' || (warmup === 'auto' && world.progress.hasOwnCore);

if (size >= 2 && rank < 2) {
  const capacity = youngGeneration().space_size;
  const windows = Math.ceil((2 * capacity) / (PER_MESSAGE * WINDOW));
  bwWindows(comm, buf, SKIP_WINDOWS);
  const faultsBefore = process.resourceUsage().minorPageFault;
  bwWindows(comm, buf, windows);
  const faults = process.resourceUsage().minorPageFault - faultsBefore;
  const pages = Math.round((2 * capacity) / 4096);
  const bound = pages / 4;
  const stream = `rank ${rank}: ${windows * WINDOW} messages through twice the young generation (${capacity} B, ` +
    `${pages} pages) took ${faults} page faults`;
  if (settled) {
    t.check(faults <= bound, `${stream}; at most ${bound} expected after Init wrote it through`);
    t.equal(youngGeneration().space_size, capacity, `rank ${rank}: the young generation kept its size`);
  } else {
    t.check(faults > bound, `${stream} without Init writing it through; more than ${bound} expected, or this ` +
      'test no longer tells the two apart');
  }
}
MPI.Finalize();
t.finish(rank);
