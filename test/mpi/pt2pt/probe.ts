/** Probe, Iprobe, Mprobe/Improbe with Message.Recv/Irecv, for short, eager and rendezvous sizes. */
import { MPI } from '../../../src/index.js';
import { MTest, fillPattern, findPatternError } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank } = comm;
const sizes = [3, 4000, 300_000];
const status = new MPI.Status();
if (rank === 0) {
  for (const [i, n] of sizes.entries()) {
    for (let k = 0; k < 4; k++) {
      const b = new Uint8Array(n + k);
      fillPattern(b, n + k);
      comm.Send(b, 1, 10 * i + 10 + k);
    }
  }
} else if (rank === 1) {
  for (const [i, n] of sizes.entries()) {
    // Each size has its own tags 10i+10 .. 10i+13: later sizes may already be queued.
    const tag = 10 * i + 10;
    comm.Probe(0, tag, status);
    t.equal(status.Get_count(), n, `Probe count ${n}`);
    t.equal(status.Get_tag(), tag, 'Probe tag');
    const a = new Uint8Array(n);
    comm.Recv(a, 0, tag);
    t.equal(findPatternError(a, n), -1, `after Probe ${n}`);

    while (!comm.Iprobe(MPI.ANY_SOURCE, tag + 1, status)) { /* poll */ }
    t.equal(status.Get_source(), 0, 'Iprobe source');
    const b = new Uint8Array(status.Get_count());
    comm.Recv(b, 0, tag + 1);
    t.equal(findPatternError(b, n + 1), -1, `after Iprobe ${n}`);

    const m = comm.Mprobe(0, MPI.ANY_TAG, status);
    t.equal(status.Get_tag(), tag + 2, 'Mprobe takes the first in order');
    t.equal(comm.Iprobe(0, tag + 2), false, 'an Mprobed message is off the queue');
    const c = new Uint8Array(status.Get_count());
    m.Recv(c);
    t.equal(findPatternError(c, n + 2), -1, `Message.Recv ${n}`);
    t.throws(() => m.Recv(c), MPI.ERR_REQUEST, /already received/, 'a Message is received once');

    let im = null;
    while ((im = comm.Improbe(0, tag + 3, status)) === null) { /* poll */ }
    const d = new Uint8Array(status.Get_count());
    im.Irecv(d).Wait();
    t.equal(findPatternError(d, n + 3), -1, `Message.Irecv ${n}`);
  }
  t.equal(comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG), false, 'queue empty at the end');
}
comm.Probe(MPI.PROC_NULL, 0, status);
t.equal(status.Get_source(), MPI.PROC_NULL, 'Probe of PROC_NULL');
MPI.Finalize();
t.finish(rank);
