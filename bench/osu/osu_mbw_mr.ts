/**
 * osu_mbw_mr: OMB's multiple-bandwidth / message-rate test on tsmpi. The ranks form pairs (rank
 * i of the first half sends to rank i + n/2): each sender posts a window of Isends, waits for
 * them and for a 4-byte acknowledgement from its receiver, which posts the matching window of
 * Irecvs. Every sender times its own loop; rank 0 reports the aggregate MB/s (10^6 bytes) of
 * all pairs over their mean time, and the message rate that makes (messages per second).
 *
 *   node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_mbw_mr.js [-m [MIN:]MAX] [-i ITER] [-x ITER] [-W WINDOW] [-c]
 *
 * Per size: fill the buffers, Barrier, untimed warm-up windows, then MPI.Wtime() around the
 * timed windows only, as osu_bw.
 */
import { MPI, type Request } from '../../src/index.js';
import {
  type BenchmarkSpec, countMismatches, FIELD_WIDTH, fill, fillPattern, finish, formatRow, iterationsFor, out,
  printHeaderWithJitWarmup, shareFromRoot, start, sumToRoot, tableSizes, validationFailure, warmupFor,
} from './util.js';

const spec: BenchmarkSpec = {
  name: 'osu_mbw_mr',
  title: 'OSU MPI Multiple Bandwidth / Message Rate Test',
  kind: 'bandwidth',
  processCountError: (n) => (n >= 2 && n % 2 === 0 ? null : 'This test requires an even number of processes'),
};

const TAG_DATA = 100;
const TAG_ACK = 101;

type Comm = typeof MPI.COMM_WORLD;

/** A sender: `n` windows of Isends to `peer`, each closed by Waitall and the acknowledgement. */
function sendWindows(comm: Comm, peer: number, s: Uint8Array, ack: Uint8Array, reqs: Request[], n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < reqs.length; j++) reqs[j] = comm.Isend(s, peer, TAG_DATA);
    MPI.Request.Waitall(reqs);
    comm.Recv(ack, peer, TAG_ACK);
  }
}

/** A receiver: `n` windows of Irecvs from `peer`, each completed by Waitall and acknowledged. */
function receiveWindows(comm: Comm, peer: number, r: Uint8Array, ack: Uint8Array, reqs: Request[], n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < reqs.length; j++) reqs[j] = comm.Irecv(r, peer, TAG_DATA);
    MPI.Request.Waitall(reqs);
    comm.Send(ack, peer, TAG_ACK);
  }
}

function main(): void {
  const o = start(spec);
  const comm = MPI.COMM_WORLD;
  const { rank, size: nprocs } = comm;
  const pairs = nprocs / 2;
  const sender = rank < pairs;
  const peer = sender ? rank + pairs : rank - pairs;
  const sbuf = new Uint8Array(Math.max(o.maxSize, 4));
  const rbuf = new Uint8Array(Math.max(o.maxSize, 4));
  const sendAck = sbuf.subarray(0, 4);
  const recvAck = rbuf.subarray(0, 4);
  const reqs = new Array<Request>(o.window);
  const windows = (r: Uint8Array, s: Uint8Array, n: number): void => {
    if (sender) sendWindows(comm, peer, s, recvAck, reqs, n);
    else receiveWindows(comm, peer, r, sendAck, reqs, n);
  };
  const column = '# Size'.padEnd(10) + 'MB/s'.padStart(FIELD_WIDTH) + 'Messages/s'.padStart(FIELD_WIDTH) +
    (o.validate ? 'Validation'.padStart(FIELD_WIDTH) : '');
  printHeaderWithJitWarmup(spec, o, comm, (size, n) => windows(rbuf.subarray(0, size), sbuf.subarray(0, size), n),
    [`tsmpi pairs: ${pairs} (rank i sends to rank i + ${pairs})`], column);

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
    const elapsed = MPI.Wtime() - t0;
    const meanTime = sumToRoot(comm, sender ? elapsed : 0) / pairs;

    let validation: string | null = null;
    let failed = false;
    if (o.validate) {
      fillPattern(s, size, 0);
      r.fill(0);
      comm.Barrier();
      windows(r, s, 1);
      const errors = sumToRoot(comm, sender ? 0 : countMismatches(r, size, 0));
      failed = shareFromRoot(comm, errors) > 0;
      validation = failed ? 'Fail' : 'Pass';
    }
    if (rank === 0) {
      const messagesPerSecond = (pairs * iterations * o.window) / meanTime;
      const row = formatRow(size, (messagesPerSecond * size) / 1e6);
      out(row + messagesPerSecond.toFixed(2).padStart(FIELD_WIDTH) + (validation === null ? '' : validation.padStart(FIELD_WIDTH)));
    }
    if (failed) validationFailure(size);
  }
  finish(0);
}

main();
