/**
 * osu_bw: OMB's unidirectional bandwidth test on tsmpi. Rank 0 posts a window of Isends, waits
 * for all of them, and waits for a 4-byte acknowledgement from rank 1, which posts the matching
 * window of Irecvs, waits for them and replies. Rank 0 reports MB/s (10^6 bytes) per size.
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_bw.js [-m [MIN:]MAX] [-i ITER] [-x ITER] [-W WINDOW] [-c]
 *
 * Per size: fill the buffers, Barrier, untimed warm-up windows, then MPI.Wtime() around the
 * timed windows only. Every message of a window uses the same buffer, as OMB's default
 * (`-b single`).
 */
import { MPI, type Request } from '../../src/index.js';
import {
  type BenchmarkSpec, countMismatches, fill, fillPattern, finish, formatRow, iterationsFor, out,
  printHeaderWithJitWarmup, shareFromRoot, start, sumToRoot, tableSizes, validationFailure, warmupFor,
} from './util.js';

const spec: BenchmarkSpec = {
  name: 'osu_bw',
  title: 'OSU MPI Bandwidth Test',
  kind: 'bandwidth',
  processCountError: (n) => (n === 2 ? null : 'This test requires exactly two processes'),
};

const TAG_DATA = 100;
const TAG_ACK = 101;

type Comm = typeof MPI.COMM_WORLD;

/** Rank 0: `n` windows of Isends, each closed by Waitall and the receiver's acknowledgement. */
function sendWindows(comm: Comm, s: Uint8Array, ack: Uint8Array, reqs: Request[], n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < reqs.length; j++) reqs[j] = comm.Isend(s, 1, TAG_DATA);
    MPI.Request.Waitall(reqs);
    comm.Recv(ack, 1, TAG_ACK);
  }
}

/** Rank 1: `n` windows of Irecvs, each completed by Waitall and acknowledged. */
function receiveWindows(comm: Comm, r: Uint8Array, ack: Uint8Array, reqs: Request[], n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < reqs.length; j++) reqs[j] = comm.Irecv(r, 0, TAG_DATA);
    MPI.Request.Waitall(reqs);
    comm.Send(ack, 0, TAG_ACK);
  }
}

function main(): void {
  const o = start(spec);
  const comm = MPI.COMM_WORLD;
  const rank = comm.rank;
  const sbuf = new Uint8Array(Math.max(o.maxSize, 4));
  const rbuf = new Uint8Array(Math.max(o.maxSize, 4));
  const sendAck = sbuf.subarray(0, 4);
  const recvAck = rbuf.subarray(0, 4);
  const reqs = new Array<Request>(o.window);
  const windows = (r: Uint8Array, s: Uint8Array, n: number): void => {
    if (rank === 0) sendWindows(comm, s, recvAck, reqs, n);
    else receiveWindows(comm, r, sendAck, reqs, n);
  };
  printHeaderWithJitWarmup(spec, o, comm, (size, n) => windows(rbuf.subarray(0, size), sbuf.subarray(0, size), n));

  for (const size of tableSizes(spec, o)) {
    const s = sbuf.subarray(0, size);
    const r = rbuf.subarray(0, size);
    fill(sbuf, size, 0x61);
    fill(rbuf, size, 0x62);
    const iterations = iterationsFor(o, size);

    comm.Barrier();
    windows(r, s, warmupFor(o, size));
    const t0 = MPI.Wtime();
    windows(r, s, iterations);
    const t1 = MPI.Wtime();

    let validation: string | null = null;
    let failed = false;
    if (o.validate) {
      fillPattern(s, size, 0);
      r.fill(0);
      comm.Barrier();
      windows(r, s, 1);
      const errors = sumToRoot(comm, rank === 1 ? countMismatches(r, size, 0) : 0);
      failed = shareFromRoot(comm, errors) > 0;
      validation = failed ? 'Fail' : 'Pass';
    }
    if (rank === 0) out(formatRow(size, ((size / 1e6) * iterations * o.window) / (t1 - t0), validation));
    if (failed) validationFailure(size);
  }
  finish(0);
}

main();
