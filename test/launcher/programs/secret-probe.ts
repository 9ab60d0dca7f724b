/**
 * For the test of tsmpiexec's PMI secret: after Init, rank 0 prints where the ranks reach PMI
 * (`pmi <host:port>`) and every rank says whether its secret shows on any process's command
 * line (`rank R secret on command lines: N`, read from /proc/<pid>/cmdline as ps does). Then the
 * ranks wait until the file named by argv[2] exists (the test probes the port meanwhile) and
 * check that the job still works: an Allreduce of the ranks' numbers.
 */
import fs from 'node:fs';
import { MPI } from '../../../src/index.js';

const flag = process.argv[2]!;
MPI.Init();
const comm = MPI.COMM_WORLD;
const secret = process.env.TSMPI_PMI_SECRET ?? '';
let shown = 0;
for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
  try {
    if (secret !== '' && fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(secret)) shown++;
  } catch {
    // Gone, or not ours to read.
  }
}
console.log(`rank ${comm.rank} has a secret of ${secret.length} characters; on command lines: ${shown}`);
if (comm.rank === 0) console.log(`pmi ${process.env.PMI_PORT}`);
const deadline = Date.now() + 60_000;
while (!fs.existsSync(flag) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
const sum = new Int32Array(1);
comm.Allreduce(new Int32Array([comm.rank + 1]), sum, MPI.SUM);
console.log(`rank ${comm.rank} sum ${sum[0]}`);
MPI.Finalize();
