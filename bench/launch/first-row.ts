/**
 * A fresh job's first timed 8-byte ping-pong row against the same job's warm row, the loop
 * written as programs usually write it: 2,000 untimed round trips, then 10,000 timed (half the
 * round trip in µs), right after Init; then 100,000 more round trips untimed, then the same loop
 * again. Two rows of one job, so the ratio first / warm does not carry the VM's job-to-job speed
 * levels (docs/measuring.md) that a first row and a warm row of two different jobs do.
 * With --omb the loop reads its clock as OMB's loop and bench/osu/osu_latency.ts do, through one
 * call site reached at round trip 0 as well, so V8 has seen every call of the loop before it
 * compiles it (the programs' way meets the clock's call first in compiled code: below).
 * bench/compare/first-row.sh runs both beside the OMB programs.
 *
 *   node dist/bin/tsmpiexec.js -n 2 node dist/bench/launch/first-row.js [--omb] [-x WARMUP] [-i ITERATIONS] [--between N]
 *
 * Prints `first-row first F warm W` (rank 0; µs), `first-row-omb ...` with --omb.
 */
import { MPI } from '../../src/index.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const n = Number(args[at + 1]);
  if (!Number.isSafeInteger(n) || n < 1) {
    console.error(`first-row: ${name} needs a positive integer, got ${JSON.stringify(args[at + 1])}`);
    process.exit(2);
  }
  return n;
};
const skip = option('-x', 2000);
const iterations = option('-i', 10_000);
const between = option('--between', 100_000);
const omb = args.includes('--omb');

MPI.Init();
const comm = MPI.COMM_WORLD;
if (comm.size !== 2) {
  if (comm.rank === 0) console.error('first-row: needs exactly 2 ranks');
  MPI.Finalize();
  process.exit(2);
}
const initiator = comm.rank === 0;
const peer = 1 - comm.rank;
const out = new Uint8Array(8).fill(comm.rank + 1);
const into = new Uint8Array(8);

/**
 * `skip + n` round trips in one loop, the clock first read at round trip `skip`, as OMB's C loop
 * and most programs have it: V8, which compiled the loop during the untimed part, meets a call
 * there it has no feedback for, throws the compiled loop away and compiles it again inside the
 * timed part (bench/osu/osu_latency.ts reads its clock at round trip 0 too, to avoid that; a
 * program does not). µs per one-way trip of the last `n`, 0 for an untimed stretch (n = 0).
 */
function pingPong(skipped: number, n: number): number {
  let t0 = 0;
  for (let i = 0; i < skipped + n; i++) {
    if (i === skipped) t0 = MPI.Wtime();
    if (initiator) {
      comm.Send(out, peer, 1);
      comm.Recv(into, peer, 1);
    } else {
      comm.Recv(into, peer, 1);
      comm.Send(out, peer, 1);
    }
  }
  return n === 0 ? 0 : ((MPI.Wtime() - t0) * 1e6) / (2 * n);
}

/**
 * The same round trips with OMB's clock: one call site, reached at round trip 0, `skipped` and the
 * end. The round trip is written out in both loops, not shared through a function: what is timed
 * is V8 compiling the loop as written, and a loop calling a round-trip function compiles
 * differently (a program's loop's first row 0.77-0.83 µs that way, 1.4-2.1 written out).
 */
function pingPongOmb(skipped: number, n: number): number {
  const total = skipped + n;
  let t0 = 0;
  for (let i = 0; ; i++) {
    if (i === 0 || i === skipped || i === total) {
      const now = MPI.Wtime();
      if (i === total) return n === 0 ? 0 : ((now - t0) * 1e6) / (2 * n);
      t0 = now;
    }
    if (initiator) {
      comm.Send(out, peer, 1);
      comm.Recv(into, peer, 1);
    } else {
      comm.Recv(into, peer, 1);
      comm.Send(out, peer, 1);
    }
  }
}

const loop = omb ? pingPongOmb : pingPong;
comm.Barrier();
const first = loop(skip, iterations);
loop(between, 0);
comm.Barrier();
const warm = loop(skip, iterations);
if (into[0] !== peer + 1) throw new Error(`first-row: rank ${comm.rank} received ${into[0]}, not rank ${peer}'s ${peer + 1}`);
if (initiator) console.log(`${omb ? 'first-row-omb' : 'first-row'} first ${first.toFixed(2)} warm ${warm.toFixed(2)}`);
MPI.Finalize();
