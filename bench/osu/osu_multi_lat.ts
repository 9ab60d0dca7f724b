/**
 * osu_multi_lat: OMB's multi-pair latency test on tsmpi. With N ranks (N even), rank i and
 * rank i + N/2 ping-pong as in osu_latency, all pairs at once; rank 0 reports the average of
 * every rank's one-way latency in microseconds, as OMB's osu_multi_lat does.
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/osu/osu_multi_lat.js [-m [MIN:]MAX] [-i ITER] [-x ITER] [-c]
 *
 * Per size: fill the buffers, Barrier, untimed warm-up, a second Barrier so that all pairs
 * start their timed loops together, then MPI.Wtime() around each rank's timed loop only. The
 * average is summed over point-to-point messages to rank 0 after the loop (tsmpi has no
 * Reduce yet). On a machine with fewer cores than ranks the pairs share cores, and the figure
 * measures that sharing as much as the library.
 */
import { MPI } from '../../src/index.js';
import {
  type BenchmarkSpec, countMismatches, fill, fillPattern, finish, formatRow, iterationsFor, messageSizes, out,
  printHeader, shareFromRoot, start, sumToRoot, validationFailure, warmupFor,
} from './util.js';

const spec: BenchmarkSpec = {
  name: 'osu_multi_lat',
  title: 'OSU MPI Multi Latency Test',
  kind: 'latency',
  processCountError: (n) => {
    if (n < 2) return 'This test requires at least two processes';
    // OMB 7.0 does not check this and hangs on an odd count (the last rank has no partner).
    return n % 2 === 0 ? null : 'This test requires an even number of processes';
  },
};

const TAG = 1;

type Comm = typeof MPI.COMM_WORLD;

function pingPong(comm: Comm, s: Uint8Array, r: Uint8Array, partner: number, n: number, initiator: boolean): void {
  if (initiator) {
    for (let i = 0; i < n; i++) {
      comm.Send(s, partner, TAG);
      comm.Recv(r, partner, TAG);
    }
  } else {
    for (let i = 0; i < n; i++) {
      comm.Recv(r, partner, TAG);
      comm.Send(s, partner, TAG);
    }
  }
}

function main(): void {
  const o = start(spec);
  const comm = MPI.COMM_WORLD;
  const rank = comm.rank;
  const pairs = comm.size / 2;
  const initiator = rank < pairs;
  const partner = initiator ? rank + pairs : rank - pairs;
  const sbuf = new Uint8Array(Math.max(o.maxSize, 1));
  const rbuf = new Uint8Array(Math.max(o.maxSize, 1));
  printHeader(spec, o, comm);

  for (const size of messageSizes(spec, o)) {
    const s = sbuf.subarray(0, size);
    const r = rbuf.subarray(0, size);
    fill(sbuf, size, 0x61);
    fill(rbuf, size, 0x62);
    const iterations = iterationsFor(o, size);

    comm.Barrier();
    pingPong(comm, s, r, partner, warmupFor(o, size), initiator);
    comm.Barrier();
    const t0 = MPI.Wtime();
    pingPong(comm, s, r, partner, iterations, initiator);
    const t1 = MPI.Wtime();
    const latency = ((t1 - t0) * 1e6) / (2 * iterations);
    const average = sumToRoot(comm, latency) / comm.size;

    let validation: string | null = null;
    let failed = false;
    if (o.validate) {
      fillPattern(s, size, rank);
      r.fill(0);
      comm.Barrier();
      pingPong(comm, s, r, partner, 1, initiator);
      failed = shareFromRoot(comm, sumToRoot(comm, countMismatches(r, size, partner))) > 0;
      validation = failed ? 'Fail' : 'Pass';
    }
    if (rank === 0) out(formatRow(size, average, validation));
    if (failed) validationFailure(size);
  }
  comm.Barrier();
  finish(0);
}

main();
