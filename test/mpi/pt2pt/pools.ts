/**
 * The message path allocates no requests or unexpected records in steady state: after a
 * warm-up, 10,000 short and eager messages (expected and unexpected) leave the engine's
 * constructor counts unchanged, and the V8 heap does not grow by more than noise.
 */
import v8 from 'node:v8';
import { MPI } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const world = runtime.requireRunning('pools test');
const peer = rank ^ 1;
const small = new Uint8Array(8);
const mid = new Uint8Array(3000);
const exchange = (n: number) => {
  for (let i = 0; i < n; i++) {
    const buf = i % 10 === 0 ? mid : small;
    if (rank % 2 === 0) {
      comm.Send(buf, peer, 1);
      comm.Recv(buf, peer, 1);
    } else {
      comm.Recv(buf, peer, 1);
      comm.Send(buf, peer, 1);
    }
  }
};
if (peer < size) {
  exchange(2000);
  const requests = world.engine.requests.created;
  const unexpected = world.engine.unexpectedPool.created;
  const heapBefore = v8.getHeapStatistics().used_heap_size;
  exchange(10_000);
  const heapAfter = v8.getHeapStatistics().used_heap_size;
  t.equal(world.engine.requests.created, requests, 'no request constructed in steady state');
  t.equal(world.engine.unexpectedPool.created, unexpected, 'no unexpected record or buffer constructed in steady state');
  t.check(heapAfter - heapBefore < 256 * 1024, `heap grew by ${heapAfter - heapBefore} bytes over 10,000 round trips`);
}
MPI.Finalize();
t.finish(rank);
