/**
 * osu_vector_bw: bandwidth of a non-contiguous vector type against the same bytes sent
 * contiguously (003b §4.1, Abb. 5.11 left). Every message carries PAYLOAD bytes: a vector of
 * blocks of the row's size with a gap as large as the block (stride 2 x block), sent and
 * received with that type; the contiguous reference sends PAYLOAD plain bytes. Both are timed
 * in the same run with osu_bw's window method, alternating per row. Run it with
 * TSMPI_DIRECT_PACK=1 (direct packing, the default) and =0 (pack into a temporary buffer, send,
 * unpack) to compare the two methods; bench/tune/vector-table.js runs both and prints the table.
 *
 *   node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_vector_bw.js [-m [MIN:]MAX] [-i ITER] [-x ITER] [-W WINDOW] [-c]
 *
 * -m selects the block sizes (default 8 to 65536 bytes).
 */
import { MPI, type Request } from '../../src/index.js';
import type { Datatype } from '../../src/mpir/datatype.js';
import {
  type BenchmarkSpec, FIELD_WIDTH, FLOAT_PRECISION, countMismatches, fill, fillPattern, finish, iterationsFor,
  messageSizes, out, printHeader, shareFromRoot, start, sumToRoot, validationFailure, warmupFor,
} from './util.js';

const spec: BenchmarkSpec = {
  name: 'osu_vector_bw',
  title: 'OSU MPI Vector Bandwidth Test',
  kind: 'bandwidth',
  processCountError: (n) => (n === 2 ? null : 'This test requires exactly two processes'),
};

/** Bytes of data in every message (the vector's blocks, or the contiguous reference). */
const PAYLOAD = 1 << 20;
const MIN_BLOCK = 8;
const MAX_BLOCK = 1 << 16;
const TAG_DATA = 100;
const TAG_ACK = 101;

type Comm = typeof MPI.COMM_WORLD;
type Spec = [Uint8Array, number, Datatype];

function windows(comm: Comm, data: Spec, ack: Uint8Array, reqs: Request[], n: number): void {
  const rank = comm.rank;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < reqs.length; j++) reqs[j] = rank === 0 ? comm.Isend(data, 1, TAG_DATA) : comm.Irecv(data, 0, TAG_DATA);
    MPI.Request.Waitall(reqs);
    if (rank === 0) comm.Recv(ack, 1, TAG_ACK);
    else comm.Send(ack, 0, TAG_ACK);
  }
}

/** MB/s (10^6 bytes) of PAYLOAD-byte messages sent as `data`, timed after a warm-up. */
function measure(comm: Comm, data: Spec, ack: Uint8Array, reqs: Request[], iterations: number, warmup: number): number {
  comm.Barrier();
  windows(comm, data, ack, reqs, warmup);
  const t0 = MPI.Wtime();
  windows(comm, data, ack, reqs, iterations);
  const t1 = MPI.Wtime();
  return ((PAYLOAD / 1e6) * iterations * reqs.length) / (t1 - t0);
}

function main(): void {
  const o = start(spec);
  const comm = MPI.COMM_WORLD;
  const rank = comm.rank;
  const span = 2 * PAYLOAD;
  const buf = new Uint8Array(span);
  const ack = new Uint8Array(4);
  const reqs = new Array<Request>(o.window);
  const contiguous: Spec = [buf, PAYLOAD, MPI.BYTE];
  const blocks = messageSizes(spec, o).filter((b) => b >= MIN_BLOCK && b <= MAX_BLOCK);
  const column = '# Block size'.padEnd(10) + 'Vector (MB/s)'.padStart(FIELD_WIDTH) + 'Contiguous (MB/s)'.padStart(FIELD_WIDTH) +
    '% of contiguous'.padStart(FIELD_WIDTH) + (o.validate ? 'Validation'.padStart(FIELD_WIDTH) : '');
  printHeader(spec, o, comm, [
    `tsmpi vector: ${PAYLOAD} bytes per message in blocks of the row's size, stride 2 x block; ` +
      `TSMPI_DIRECT_PACK=${process.env.TSMPI_DIRECT_PACK ?? '1 (default)'}`,
  ], column);
  const iterations = iterationsFor(o, PAYLOAD);
  const warmup = warmupFor(o, PAYLOAD);
  for (const block of blocks) {
    const vector = MPI.BYTE.Create_vector(PAYLOAD / block, block, 2 * block).Commit();
    const data: Spec = [buf, 1, vector];
    fill(buf, span, rank === 0 ? 0x61 : 0x62);
    const bwContiguous = measure(comm, contiguous, ack, reqs, iterations, warmup);
    const bwVector = measure(comm, data, ack, reqs, iterations, warmup);

    let validation: string | null = null;
    let failed = false;
    if (o.validate) {
      // Rank 0's blocks carry a pattern, its gaps something else; rank 1 must see the pattern in
      // its blocks and its own gap bytes untouched.
      const packed = new Uint8Array(PAYLOAD);
      fillPattern(packed, PAYLOAD, 0);
      const mine = new Uint8Array(span).fill(rank === 0 ? 0x77 : 0x00);
      if (rank === 0) vector.unpackTo(packed, 0, 1, 0, PAYLOAD, mine);
      comm.Barrier();
      if (rank === 0) comm.Send([mine, 1, vector], 1, TAG_DATA);
      else comm.Recv([mine, 1, vector], 0, TAG_DATA);
      let errors = 0;
      if (rank === 1) {
        const got = new Uint8Array(PAYLOAD);
        vector.packTo(mine, 1, 0, PAYLOAD, got, 0);
        errors = countMismatches(got, PAYLOAD, 0);
        for (let b = block; b < span; b += 2 * block) for (let i = 0; i < block && b + i < span; i++) if (mine[b + i] !== 0) errors++;
      }
      failed = shareFromRoot(comm, sumToRoot(comm, errors)) > 0;
      validation = failed ? 'Fail' : 'Pass';
    }
    if (rank === 0) {
      let row = String(block).padEnd(10) + bwVector.toFixed(FLOAT_PRECISION).padStart(FIELD_WIDTH) +
        bwContiguous.toFixed(FLOAT_PRECISION).padStart(FIELD_WIDTH) +
        ((100 * bwVector) / bwContiguous).toFixed(FLOAT_PRECISION).padStart(FIELD_WIDTH);
      if (validation !== null) row += validation.padStart(FIELD_WIDTH);
      out(row);
    }
    vector.Free();
    if (failed) validationFailure(block);
  }
  finish(0);
}

main();
