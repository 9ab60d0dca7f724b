/**
 * A rank that sleeps on its doorbell is woken by every kind of publish, whichever fence the
 * node uses (mpid/publish-fence.ts): with plain stores and membarrier (2 ranks with a core
 * each, x86-64) or with locked stores (TSMPI_ASYMMETRIC_FENCE=0, or more ranks than cores).
 * The testlist runs it with TSMPI_SPIN_POLLS=1, so a waiting rank sleeps within microseconds,
 * and TSMPI_SLEEP_TIMEOUT_MS=60000, so a lost wake-up is not rescued by the sleep's safety net
 * but hangs the job past its time bound.
 *
 * Each round one rank (alternating) waits a random time, from nothing to a few microseconds
 * (inside the other's spin, yield or announce) to 2 ms (asleep), then publishes one of: a
 * short message, a multi-slot short message, an eager-ring message, a small Bcast, a Barrier.
 * The other waits for it in a blocking call and checks the data.
 *
 *   args: [rounds]
 */
import os from 'node:os';
import { MPI } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const ROUNDS = Number(process.argv[2] ?? 1500);

const fenceOn = process.env.TSMPI_ASYMMETRIC_FENCE !== '0';
const expectPlain = fenceOn && process.arch === 'x64' && size <= os.availableParallelism();
t.equal(runtime.requireRunning('sleep-wake test').plainPublish, expectPlain, 'plain publish (asymmetric fence) in use');

const nap = new Int32Array(new SharedArrayBuffer(4));
/** A seeded generator, the same sequence on both ranks. */
let seed = 0x2545f491;
function random(n: number): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}

function delay(kind: number): void {
  if (kind === 0) return;
  if (kind === 4) {
    Atomics.wait(nap, 0, 0, 2);
    return;
  }
  const until = process.hrtime.bigint() + BigInt([0, 2_000, 15_000, 60_000][kind]!);
  while (process.hrtime.bigint() < until);
}

const sizes = [8, 500, 20_000];
const out = new Uint8Array(20_000);
const into = new Uint8Array(20_000);
const small = new Uint8Array(16);

for (let round = 0; round < ROUNDS; round++) {
  const from = round % size;
  const what = random(5);
  const wait = random(5);
  const stamp = (round * 7 + 3) & 0xff;
  if (what < 3) {
    const n = sizes[what]!;
    if (rank === from) {
      delay(wait);
      out.fill(stamp, 0, n);
      for (let to = 0; to < size; to++) if (to !== from) comm.Send(out.subarray(0, n), to, round & 0x7fff);
    } else {
      into.fill(0, 0, n);
      comm.Recv(into.subarray(0, n), from, round & 0x7fff);
      if (into[0] !== stamp || into[n - 1] !== stamp) t.check(false, `round ${round}: ${n} B from ${from}: got ${into[0]}..${into[n - 1]}, expected ${stamp}`);
    }
  } else if (what === 3) {
    if (rank === from) {
      delay(wait);
      small.fill(stamp);
    } else small.fill(0);
    comm.Bcast(small, from);
    if (small[15] !== stamp) t.check(false, `round ${round}: Bcast from ${from}: got ${small[15]}, expected ${stamp}`);
  } else {
    if (rank === from) delay(wait);
    comm.Barrier();
  }
}

MPI.Finalize();
t.finish(rank);
