/**
 * osu_bibw: OMB's bidirectional bandwidth test on tsmpi. Both ranks post a window of Irecvs,
 * then a window of Isends to each other, and wait for both windows (rank 0: sends then
 * receives, rank 1: receives then sends, as OMB). No acknowledgement: each side's receives
 * close the window. Rank 0 reports the total of both directions in MB/s (10^6 bytes).
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_bibw.js [-m [MIN:]MAX] [-i ITER] [-x ITER] [-W WINDOW] [-c]
 *
 * Per size: fill the buffers, Barrier, untimed warm-up windows, then MPI.Wtime() around the
 * timed windows only.
 */
import { MPI, type Request } from '../../src/index.js';
import {
  type BenchmarkSpec, countMismatches, fill, fillPattern, finish, formatRow, iterationsFor, out,
  printHeaderWithJitWarmup, shareFromRoot, start, sumToRoot, tableSizes, validationFailure, warmupFor,
} from './util.js';

const spec: BenchmarkSpec = {
  name: 'osu_bibw',
  title: 'OSU MPI Bi-Directional Bandwidth Test',
  kind: 'bandwidth',
  processCountError: (n) => (n === 2 ? null : 'This test requires exactly two processes'),
};

/** Tags as OMB: rank 0 sends with 100 and receives with 10; rank 1 the other way round. */
const TAG_FROM_0 = 100;
const TAG_FROM_1 = 10;

type Comm = typeof MPI.COMM_WORLD;

function exchangeWindows(comm: Comm, s: Uint8Array, r: Uint8Array, sends: Request[], recvs: Request[],
                         n: number): void {
  const rank = comm.rank;
  const peer = 1 - rank;
  const sendTag = rank === 0 ? TAG_FROM_0 : TAG_FROM_1;
  const recvTag = rank === 0 ? TAG_FROM_1 : TAG_FROM_0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < recvs.length; j++) recvs[j] = comm.Irecv(r, peer, recvTag);
    for (let j = 0; j < sends.length; j++) sends[j] = comm.Isend(s, peer, sendTag);
    if (rank === 0) {
      MPI.Request.Waitall(sends);
      MPI.Request.Waitall(recvs);
    } else {
      MPI.Request.Waitall(recvs);
      MPI.Request.Waitall(sends);
    }
  }
}

function main(): void {
  const o = start(spec);
  const comm = MPI.COMM_WORLD;
  const rank = comm.rank;
  const sbuf = new Uint8Array(Math.max(o.maxSize, 1));
  const rbuf = new Uint8Array(Math.max(o.maxSize, 1));
  const sends = new Array<Request>(o.window);
  const recvs = new Array<Request>(o.window);
  printHeaderWithJitWarmup(spec, o, comm,
    (size, n) => exchangeWindows(comm, sbuf.subarray(0, size), rbuf.subarray(0, size), sends, recvs, n));

  for (const size of tableSizes(spec, o)) {
    const s = sbuf.subarray(0, size);
    const r = rbuf.subarray(0, size);
    fill(sbuf, size, 0x61);
    fill(rbuf, size, 0x62);
    const iterations = iterationsFor(o, size);

    comm.Barrier();
    exchangeWindows(comm, s, r, sends, recvs, warmupFor(o, size));
    const t0 = MPI.Wtime();
    exchangeWindows(comm, s, r, sends, recvs, iterations);
    const t1 = MPI.Wtime();

    let validation: string | null = null;
    let failed = false;
    if (o.validate) {
      fillPattern(s, size, rank);
      r.fill(0);
      comm.Barrier();
      exchangeWindows(comm, s, r, sends, recvs, 1);
      failed = shareFromRoot(comm, sumToRoot(comm, countMismatches(r, size, 1 - rank))) > 0;
      validation = failed ? 'Fail' : 'Pass';
    }
    if (rank === 0) out(formatRow(size, ((size / 1e6) * iterations * o.window * 2) / (t1 - t0), validation));
    if (failed) validationFailure(size);
  }
  finish(0);
}

main();
