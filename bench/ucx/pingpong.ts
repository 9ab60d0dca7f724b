/**
 * Ping-pong latency as a distribution: half round trips of blocking Send/Recv between ranks 0
 * and 1, each timed on its own, printed as min, 10th, 50th and 90th percentile and mean (µs).
 * On a shared machine osu_latency's mean is mostly the tail (a rank preempted for a scheduler
 * slice); the low percentiles show what the message path itself costs.
 *
 *   node dist/bench/ucx/pingpong.js [ITERATIONS] [SIZE]     (under hydra or tsmpiexec, 2 ranks)
 */
import { MPI } from '../../src/index.js';

const n = Number(process.argv[2] ?? 20_000);
const size = Number(process.argv[3] ?? 8);
MPI.Init();
const comm = MPI.COMM_WORLD;
const buf = new Uint8Array(Math.max(size, 1)).subarray(0, size);
const times = new Float64Array(n);
const warm = 1000;
for (let i = 0; i < n + warm; i++) {
  const t0 = MPI.Wtime();
  if (comm.rank === 0) {
    comm.Send(buf, 1, 1);
    comm.Recv(buf, 1, 1);
  } else {
    comm.Recv(buf, 0, 1);
    comm.Send(buf, 0, 1);
  }
  if (i >= warm) times[i - warm] = ((MPI.Wtime() - t0) * 1e6) / 2;
}
if (comm.rank === 0) {
  const mean = times.reduce((a, b) => a + b, 0) / n;
  times.sort();
  const p = (q: number): string => times[Math.floor(n * q)]!.toFixed(2);
  console.log(`tsmpi min ${p(0)} p10 ${p(0.1)} p50 ${p(0.5)} p90 ${p(0.9)} mean ${mean.toFixed(2)}`);
}
MPI.Finalize();
