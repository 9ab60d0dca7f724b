/**
 * The scheduling policy Init gives a rank's main thread (TSMPI_SCHED_BATCH, src/boot/index.ts):
 * SCHED_BATCH when the job's ranks outnumber the cores (auto) or when asked (1), the default
 * SCHED_OTHER when they have a core each (auto) or when told not to (0). Read back from the
 * kernel (/proc/self/sched, the main thread's), not from what tsmpi thinks it did; and the ranks
 * still pass messages round a ring of every size class afterwards. argv[2]: 'batch', 'other' or
 * 'auto'.
 */
import fs from 'node:fs';
import os from 'node:os';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const SCHED_OTHER = 0;
const SCHED_BATCH = 3;

/** The main thread's policy as the kernel reports it (the `policy` line of /proc/self/sched). */
function kernelPolicy(): number {
  const m = /^policy\s*:\s*(\d+)$/m.exec(fs.readFileSync('/proc/self/sched', 'utf8'));
  if (m === null) throw new Error('/proc/self/sched has no policy line');
  return Number(m[1]);
}

const t = new MTest();
t.equal(kernelPolicy(), SCHED_OTHER, 'before Init the rank runs under SCHED_OTHER');
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const asked = process.argv[2];
const expected = asked === 'batch' || (asked === 'auto' && size > os.availableParallelism()) ? SCHED_BATCH : SCHED_OTHER;
t.equal(kernelPolicy(), expected, `rank ${rank} of ${size} on ${os.availableParallelism()} cores (${asked}): policy after Init`);

// Waits still end: a ring of messages of every protocol's size, each rank's bytes checked.
const next = (rank + 1) % size;
const prev = (rank + size - 1) % size;
for (const n of [1, 300, 5000, 200_000]) {
  const out = new Uint8Array(n).map((_, i) => (rank * 7 + i) & 0xff);
  const into = new Uint8Array(n);
  comm.Sendrecv(out, next, 5, into, prev, 5);
  let bad = -1;
  for (let i = 0; i < n && bad < 0; i++) if (into[i] !== ((prev * 7 + i) & 0xff)) bad = i;
  t.equal(bad, -1, `rank ${rank}: ${n} bytes from rank ${prev} arrived intact`);
}
comm.Barrier();
MPI.Finalize();
t.finish(rank);
