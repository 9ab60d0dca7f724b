import { COLL_ALLTOALL } from '../config.js';
import { ErrorClass } from '../error-classes.js';
import type { Request } from '../request.js';
import { type Call, decode, decodeV, decodeW, execute, fail, isInPlace, newSchedule, type Schedule, traceAlgorithm, unpackReceived } from './common.js';
import { smallAlltoall } from './shm-small.js';
import { alltoallSmall } from './small-calls.js';

const choice = COLL_ALLTOALL.read();
/**
 * Auto selection: up to this many bytes sent per rank every message is posted at once (the
 * latency of one round); above it pairwise exchange bounds the messages in flight to two.
 */
const LINEAR_MAX_BYTES = 32768;

/** Where rank r's block lies in a send or receive buffer. */
interface Blocks {
  data: Uint8Array;
  off: number[];
  len: number[];
}

const block = (b: Blocks, r: number) => b.data.subarray(b.off[r]!, b.off[r]! + b.len[r]!);

/** Pairwise exchange: in step i send to rank + i and receive from rank - i (p - 1 rounds). */
export function alltoallPairwise(s: Schedule, send: Blocks, recv: Blocks): void {
  const { rank, size } = s.core;
  s.prepare(() => block(recv, rank).set(block(send, rank)));
  for (let i = 1; i < size; i++) {
    const to = (rank + i) % size;
    const from = (rank - i + size) % size;
    s.round().recv(block(recv, from), from).send(block(send, to), to);
  }
}

/** Linear: every receive and send posted at once. */
export function alltoallLinear(s: Schedule, send: Blocks, recv: Blocks): void {
  const { rank, size } = s.core;
  s.prepare(() => block(recv, rank).set(block(send, rank)));
  s.round();
  for (let i = 1; i < size; i++) s.recv(block(recv, (rank - i + size) % size), (rank - i + size) % size);
  for (let i = 1; i < size; i++) s.send(block(send, (rank + i) % size), (rank + i) % size);
}

function uniform(data: Uint8Array, size: number): Blocks {
  const bb = data.length / size;
  const off: number[] = [];
  const len: number[] = [];
  for (let r = 0; r < size; r++) {
    off.push(r * bb);
    len.push(bb);
  }
  return { data, off, len };
}

/**
 * With MPI.IN_PLACE (send null) the data to send is the receive buffer's: sent from a copy
 * taken when the schedule starts.
 */
function run(c: Call, sendBlocks: Blocks | null, recv: Blocks, nonblocking: boolean): Request | undefined {
  const s = newSchedule(c);
  let send = sendBlocks;
  if (send === null) {
    const copy = new Uint8Array(recv.data.length);
    s.prepare(() => copy.set(recv.data));
    send = { data: copy, off: recv.off, len: recv.len };
  }
  let algo = choice;
  if (algo === 'auto') {
    let bytes = 0;
    for (const n of send.len) bytes += n;
    algo = bytes <= LINEAR_MAX_BYTES ? 'linear' : 'pairwise';
  }
  traceAlgorithm(s, 'alltoall', algo, send.len.reduce((a, b) => a + b, 0));
  if (algo === 'linear') alltoallLinear(s, send, recv);
  else alltoallPairwise(s, send, recv);
  return execute(c, s, nonblocking);
}

/** Alltoall(sendbuf, recvbuf): block r of sendbuf goes to rank r; sendbuf may be MPI.IN_PLACE. */
export function alltoall(c: Call, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  if (!nonblocking && choice === 'auto' && alltoallSmall(c, sendbuf, recvbuf)) return undefined;
  const size = c.core.size;
  const r = decode(c, recvbuf, 'recvbuf');
  if (r.bytes.length % size !== 0) {
    fail(c, ErrorClass.ERR_COUNT, `recvbuf holds ${r.count} x ${r.datatype.name}, not a multiple of the ${size} ranks`);
  }
  const sd = isInPlace(sendbuf) ? null : decode(c, sendbuf, 'sendbuf');
  if (sd !== null && sd.bytes.length !== r.bytes.length) {
    fail(c, ErrorClass.ERR_COUNT, `sendbuf has ${sd.bytes.length} bytes but recvbuf has ${r.bytes.length}; they must match`);
  }
  // In place the cells take recvbuf itself: our whole block is stored before anything is read into it.
  if (!nonblocking && choice === 'auto' && smallAlltoall(c, sd?.bytes ?? r.bytes, r.bytes, r.bytes.length / size)) {
    return unpackReceived(c);
  }
  const recv = uniform(r.bytes, size);
  return run(c, sd === null ? null : uniform(sd.bytes, size), recv, nonblocking);
}

function fromV(c: Call, arg: unknown, what: string): Blocks {
  const v = decodeV(c, arg, what, c.core.size);
  const es = v.datatype.size;
  return { data: v.data, off: v.displs.map((d) => d * es), len: v.counts.map((n) => n * es) };
}

/** Alltoallv([sendbuf, [counts, displs], type], [recvbuf, [counts, displs], type]). */
export function alltoallv(c: Call, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  const recv = fromV(c, recvbuf, 'recvbuf');
  return run(c, isInPlace(sendbuf) ? null : fromV(c, sendbuf, 'sendbuf'), recv, nonblocking);
}

/**
 * Alltoallw([sendbuf, [counts, displs], types], [recvbuf, [counts, displs], types]): one
 * datatype per rank, displacements in bytes (MPI's rule for the w-variants).
 */
export function alltoallw(c: Call, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  const recv = decodeW(c, recvbuf, 'recvbuf', c.core.size);
  return run(c, isInPlace(sendbuf) ? null : decodeW(c, sendbuf, 'sendbuf', c.core.size), recv, nonblocking);
}
