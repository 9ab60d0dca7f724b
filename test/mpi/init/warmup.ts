/**
 * The warm-up in MPI.Init (src/mpir/warmup.ts): it runs when asked (or, under auto, when every
 * rank of the node has a core), and leaves nothing behind: no message waits in any queue after
 * Init, so wildcard receives and probes see only the program's own messages, and the tags the
 * warm-up used are free. argv[2]: 'ran' (the warm-up must have run), 'skipped', or 'auto' (it
 * runs when the job's ranks do not outnumber the cores).
 */
import os from 'node:os';
import { MPI } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const expect = process.argv[2] === 'auto' ? (size <= os.availableParallelism() ? 'ran' : 'skipped') : process.argv[2];
const engine = runtime.requireRunning('test').engine;
const sentInInit = engine.sentTotal('eager', 'messages') + engine.sentTotal('rndv', 'messages');
if (expect === 'ran') t.check(sentInInit >= 1000, `rank ${rank}: the warm-up sent ${sentInInit} messages in Init (>= 1000)`);
else t.equal(sentInInit, 0, `rank ${rank}: no message was sent in Init`);

// Nothing of the warm-up is left to match: a probe for anything finds nothing until every
// rank has sent its own message, and then exactly those messages, in order.
t.equal(comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG), false, `rank ${rank}: Iprobe(ANY_SOURCE, ANY_TAG) right after Init`);
comm.Barrier();
t.equal(comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG), false, `rank ${rank}: Iprobe(ANY_SOURCE, ANY_TAG) after a Barrier`);
comm.Barrier(); // no rank sends below before every rank has probed

// Every rank sends 3 messages of odd sizes to each other rank on the warm-up's own tag and on
// others; wildcard receives must see exactly these 3 (size - 1) messages.
const tags = [32_000, 7, 32_000];
const lengths = [8, 1000, 3];
const reqs: InstanceType<typeof MPI.Request>[] = [];
for (let p = 0; p < size; p++) {
  if (p === rank) continue;
  for (let k = 0; k < 3; k++) {
    const b = new Uint8Array(lengths[k]!).fill(rank * 3 + k + 1);
    reqs.push(comm.Isend(b, p, tags[k]!));
  }
}
const seen = new Map<number, number[]>();
for (let m = 0; m < 3 * (size - 1); m++) {
  const status = new MPI.Status();
  const into = new Uint8Array(1000);
  comm.Recv(into, MPI.ANY_SOURCE, MPI.ANY_TAG, status);
  const src = status.Get_source();
  const got = seen.get(src) ?? [];
  const k = got.length;
  t.equal(status.Get_tag(), tags[k], `rank ${rank}: message ${k} from ${src} has its tag`);
  t.equal(status.Get_count(MPI.BYTE), lengths[k], `rank ${rank}: message ${k} from ${src} has its length`);
  t.equal(into[0], src * 3 + k + 1, `rank ${rank}: message ${k} from ${src} has its data`);
  got.push(k);
  seen.set(src, got);
}
MPI.Request.Waitall(reqs);
t.equal(comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG), false, `rank ${rank}: nothing left after the exchange`);
MPI.Finalize();
t.finish(rank);
