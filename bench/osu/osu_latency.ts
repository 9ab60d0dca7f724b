/**
 * osu_latency: OMB's point-to-point latency test on tsmpi. Two ranks ping-pong one message
 * with blocking Send/Recv; rank 0 reports half the round trip in microseconds per size.
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_latency.js [-m [MIN:]MAX] [-i ITER] [-x ITER] [-c]
 *   node dist/bin/tsmpiexec.js -n 2 node --expose-gc dist/bench/osu/osu_latency.js -m 8   (exact heap figure)
 *   TSMPI_SHORT_MAX=0 node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_latency.js   (no short protocol)
 *
 * Per size: fill the buffers, Barrier, untimed warm-up, then MPI.Wtime() around the timed loop
 * only. For sizes 0..8 bytes both ranks also read the V8 heap (v8.getHeapStatistics()) before
 * and after the timed loop, after a full collection when node runs with --expose-gc, and the
 * sum over those sizes is printed after the table as `# heap growth over the 0-8 byte loop: N
 * bytes`, followed by a `# heap growth detail:` line. N includes what the JIT compiles while
 * the loops run (the default warm-up of 100 round trips is too short for V8 to settle), a
 * fixed cost of a few hundred kilobytes that does not grow with -i; the young generation
 * per message in the last size shows the message path itself: a fraction of a byte (a fixed
 * cost spread over the loop) when it allocates nothing, at least 16 bytes for one object.
 */
import { MPI } from '../../src/index.js';
import {
  type BenchmarkSpec, collectGarbage, countMismatches, fill, fillPattern, finish, formatRow, gatherToRoot, hasGc,
  HeapWatch, iterationsFor, out, printHeaderWithJitWarmup, shareFromRoot, start, sumToRoot, tableSizes,
  validationFailure, warmupFor,
} from './util.js';

const spec: BenchmarkSpec = {
  name: 'osu_latency',
  title: 'OSU MPI Latency Test',
  kind: 'latency',
  processCountError: (n) => (n === 2 ? null : 'This test requires exactly two processes'),
};

/** Largest size whose timed loop is watched for heap growth. */
const HEAP_WATCH_MAX = 8;
const TAG = 1;

type Comm = typeof MPI.COMM_WORLD;

/**
 * `skip + n` round trips in one loop, as OMB's C loop has them: the clock starts at round trip
 * `skip` (after `heap.begin()`, when watched), so the timed round trips run the code the warm-up
 * ones made hot (two calls would let V8 compile the function again, inside the timed part).
 * Both clock readings go through one call site, also reached at round trip 0, so V8 has seen
 * every call in the loop before it compiles it (a call first reached in optimized code throws
 * that code away). Returns the seconds of the last `n`. The initiator sends first.
 */
function pingPong(comm: Comm, s: Uint8Array, r: Uint8Array, peer: number, skip: number, n: number, initiator: boolean,
                  heap: HeapWatch | null = null): number {
  const total = skip + n;
  let t0 = 0;
  for (let i = 0; ; i++) {
    if (i === 0 || i === skip || i === total) {
      const now = MPI.Wtime();
      const elapsed = now - t0;
      if (i === total) return elapsed;
      // At round trip 0 as well as at `skip` (begin() starts over): every call and test in the
      // loop has run before V8 compiles it.
      if (heap !== null) heap.begin();
      t0 = now;
    }
    if (initiator) {
      comm.Send(s, peer, TAG);
      comm.Recv(r, peer, TAG);
    } else {
      comm.Recv(r, peer, TAG);
      comm.Send(s, peer, TAG);
    }
  }
}

/** One untimed round trip of patterned data; returns the mismatching bytes seen by both ranks (on rank 0). */
function validate(comm: Comm, s: Uint8Array, r: Uint8Array, peer: number, size: number): number {
  fillPattern(s, size, comm.rank);
  r.fill(0);
  comm.Barrier();
  pingPong(comm, s, r, peer, 0, 1, comm.rank === 0);
  return sumToRoot(comm, countMismatches(r, size, peer));
}

/**
 * Collective: rank 0 prints the heap line (the larger growth of the two ranks, as
 * v8.getHeapStatistics() sees it), then a line with each rank's share: its young generation
 * (where per-message objects would land), that of the last size per message (when the JIT has
 * settled), and the collections that ran during the loops.
 */
function reportHeap(comm: Comm, heap: HeapWatch, roundTrips: number, lastRoundTrips: number): void {
  const used = gatherToRoot(comm, heap.used);
  const young = gatherToRoot(comm, heap.young);
  const lastYoung = gatherToRoot(comm, heap.lastYoung);
  const collections = gatherToRoot(comm, heap.collections).reduce((a, b) => a + b, 0);
  if (comm.rank !== 0) return;
  out(`# heap growth over the 0-8 byte loop: ${Math.max(...used)} bytes`);
  // Each rank sends one message and receives one per round trip.
  const ranks = used.map((u, k) => `rank ${k} ${u} B, young generation ${young[k]} B, ` +
    `${(lastYoung[k]! / (2 * lastRoundTrips)).toFixed(2)} B per message in the last size`).join('; ');
  out(`# heap growth detail: ${ranks}; ${roundTrips} round trips, ${collections} collections during the loops and their warm-ups` +
    `${hasGc() ? '' : ' (run node with --expose-gc for a clean start)'}; the rest is JIT-compiled code and its data`);
}

function main(): void {
  const o = start(spec);
  const comm = MPI.COMM_WORLD;
  const rank = comm.rank;
  const peer = 1 - rank;
  const initiator = rank === 0;
  const sbuf = new Uint8Array(Math.max(o.maxSize, 4));
  const rbuf = new Uint8Array(Math.max(o.maxSize, 4));
  const heap = new HeapWatch();
  // The untimed pass watches the sizes the table watches: the loop then has run heap.begin()
  // when V8 compiles it (a call first reached in the timed rows would throw the code away there).
  printHeaderWithJitWarmup(spec, o, comm, (size, n) => pingPong(comm, sbuf.subarray(0, size), rbuf.subarray(0, size), peer, 0, n,
    initiator, size <= HEAP_WATCH_MAX ? heap : null));

  let watchedRoundTrips = 0;
  let lastRoundTrips = 0;
  for (const size of tableSizes(spec, o)) {
    const s = sbuf.subarray(0, size);
    const r = rbuf.subarray(0, size);
    fill(sbuf, size, 0x61);
    fill(rbuf, size, 0x62);
    const iterations = iterationsFor(o, size);
    const watch = size <= HEAP_WATCH_MAX;
    if (watch) {
      collectGarbage(); // before the warm-up, whose iterations absorb the skew
      heap.watch();
    }

    comm.Barrier();
    const elapsed = pingPong(comm, s, r, peer, warmupFor(o, size), iterations, initiator, watch ? heap : null);
    if (watch) {
      heap.end();
      watchedRoundTrips += iterations;
      lastRoundTrips = iterations;
    }

    let validation: string | null = null;
    let failed = false;
    if (o.validate) {
      failed = shareFromRoot(comm, validate(comm, s, r, peer, size)) > 0;
      validation = failed ? 'Fail' : 'Pass';
    }
    if (rank === 0) out(formatRow(size, (elapsed * 1e6) / (2 * iterations), validation));
    if (failed) validationFailure(size);
  }

  if (heap.loops > 0) reportHeap(comm, heap, watchedRoundTrips, lastRoundTrips);
  finish(0);
}

main();
