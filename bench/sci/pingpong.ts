/**
 * The thesis's ping-pong (003a §6, Fig. 4.11): two ranks, blocking Send/Recv, half the round
 * trip per size, for an explicit list of sizes (powers of two plus 500, which OMB's size
 * ladder cannot express). Output in the OSU format.
 *
 *   node dist/bin/tsmpiexec.js -n 2 -x TSMPI_DEVICE=sci node dist/bench/sci/pingpong.js 0,1,2,4,500,1024
 */
import { MPI } from '../../src/index.js';

MPI.Init();
const comm = MPI.COMM_WORLD;
const sizes = (process.argv[2] ?? '0,1,4,16,64,256,500,1024,4096').split(',').map(Number);
if (comm.size !== 2) {
  if (comm.rank === 0) console.error('pingpong needs exactly two ranks');
  MPI.COMM_WORLD.Abort(1);
}
const peer = 1 - comm.rank;
if (comm.rank === 0) {
  console.log('# tsmpi ping-pong (bench/sci/pingpong.ts): half round trip');
  console.log(`# ${'Size'.padEnd(10)}${'Latency (us)'.padStart(20)}`);
}
/** Half the round trip in µs over `iterations` after `warmup` untimed ones. */
function measure(size: number, iterations: number, warmup: number): number {
  const s = new Uint8Array(size).fill(comm.rank + 1);
  const r = new Uint8Array(size);
  let t0 = 0;
  comm.Barrier();
  for (let i = 0; i < warmup + iterations; i++) {
    if (i === warmup) t0 = MPI.Wtime();
    if (comm.rank === 0) {
      comm.Send(s, peer, 1);
      comm.Recv(r, peer, 1);
    } else {
      comm.Recv(r, peer, 1);
      comm.Send(s, peer, 1);
    }
  }
  if (size > 0 && r[size - 1] !== peer + 1) throw new Error(`pingpong: wrong data at size ${size}`);
  return ((MPI.Wtime() - t0) * 1e6) / (2 * iterations);
}

const iterationsFor = (size: number) => (size <= 8192 ? 5000 : size <= 262144 ? 500 : 100);
// The whole list once untimed first, so every row starts from JIT-compiled code and warm resources.
for (const size of sizes) measure(size, iterationsFor(size), 0);
for (const size of sizes) {
  const iterations = iterationsFor(size);
  const us = measure(size, iterations, Math.max(10, iterations / 10));
  if (comm.rank === 0) console.log(`${String(size).padEnd(12)}${us.toFixed(2).padStart(20)}`);
}
MPI.Finalize();
