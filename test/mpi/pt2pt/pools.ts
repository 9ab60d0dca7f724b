/**
 * The message path allocates no requests or unexpected records in steady state: after a
 * warm-up, 10,000 short and eager messages (expected and unexpected) leave the engine's
 * constructor counts unchanged, and V8's young generation (where per-message objects would
 * go) does not grow by more than noise.
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
const exchange = (n: number, withEager: boolean) => {
  for (let i = 0; i < n; i++) {
    const buf = withEager && i % 10 === 0 ? mid : small;
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
  exchange(2000, true);
  const requests = world.engine.requests.created;
  const unexpected = world.engine.unexpectedPool.created;
  // Objects made per message would land in the young generation; compiled code does not.
  const young = () => v8.getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')!.space_used_size;
  exchange(10_000, true);
  // The short path must allocate nothing at all (the eager path creates one view per receive).
  // A sleep in a noisy moment or a recompilation may allocate once; an object per message would
  // show in every loop (at least 320 kB for 10,000 round trips), so the least growth counts.
  let growth = Infinity;
  for (let loop = 0; loop < 3; loop++) {
    const before = young();
    exchange(10_000, false);
    growth = Math.min(growth, young() - before);
  }
  t.equal(world.engine.requests.created, requests, 'no request constructed in steady state');
  t.equal(world.engine.unexpectedPool.created, unexpected, 'no unexpected record or buffer constructed in steady state');
  t.check(growth < 16 * 1024, `young generation grew by ${growth} bytes over 10,000 short round trips`);
}
MPI.Finalize();
t.finish(rank);
