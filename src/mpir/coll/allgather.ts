// Research ids cited here: see docs/references.md.
import { COLL_ALLGATHER, COLL_LARGE_BYTES } from '../config.js';
import { ErrorClass } from '../error-classes.js';
import type { Request } from '../request.js';
import { bcastBinomial, gatherBinomial, ringAllgather } from './blocks.js';
import { type Call, decode, decodeV, execute, fail, isInPlace, newSchedule, type Schedule, traceAlgorithm, unpackReceived } from './common.js';
import { smallAllgather } from './shm-small.js';
import { allgatherSmall } from './small-calls.js';
import { isPowerOfTwo } from './tree.js';

const choice = COLL_ALLGATHER.read();
const large = COLL_LARGE_BYTES.read();

/** Recursive doubling (p a power of two): in step m, exchange the 2^m blocks gathered so far. */
export function recursiveDoublingAllgather(s: Schedule, buf: Uint8Array, bb: number): void {
  const { rank, size } = s.core;
  for (let mask = 1; mask < size; mask <<= 1) {
    const partner = rank ^ mask;
    const mine = rank & ~(mask - 1);
    const theirs = partner & ~(mask - 1);
    s.round()
      .recv(buf.subarray(theirs * bb, (theirs + mask) * bb), partner)
      .send(buf.subarray(mine * bb, (mine + mask) * bb), partner);
  }
}

/**
 * SCI-MPICH's one-direction shift (003c §1.8): even rank r first swaps blocks with r + 1, so
 * both hold the pair's two blocks; then in each of p/2 - 1 steps every rank passes the pair it
 * received last to r + 2 and receives the next pair from r - 2. Data flow one way round the
 * ring except in the first swap, and every message after it carries two blocks: 1 + p/2 steps
 * with the copy of the own block. Odd p: the last rank sends its block to every other rank in
 * the first step and then waits until rank p - 2, which has everything else, hands it all
 * blocks but its own in one message (the thesis: "process N-1 stays idle until N-2 finally
 * hands it all needed data in one transfer"; how its own block reaches the others the text
 * does not say, so it is sent directly).
 */
export function shiftAllgather(s: Schedule, buf: Uint8Array, bb: number): void {
  const { rank, size } = s.core;
  const even = size - (size % 2);
  const pair = (p: number) => buf.subarray(2 * p * bb, (2 * p + 2) * bb);
  const last = size - 1;
  if (size % 2 === 1 && rank === last) {
    s.round();
    for (let r = 0; r < last; r++) s.send(buf.subarray(last * bb, size * bb), r);
    if (last > 0) s.round().recv(buf.subarray(0, last * bb), last - 1);
    return;
  }
  const step1 = s.round();
  if (size % 2 === 1) step1.recv(buf.subarray(last * bb, size * bb), last);
  const partner = rank ^ 1;
  step1.recv(buf.subarray(partner * bb, (partner + 1) * bb), partner).send(buf.subarray(rank * bb, (rank + 1) * bb), partner);
  const myPair = rank >> 1;
  const pairs = even / 2;
  for (let k = 1; k < pairs; k++) {
    const sendPair = (myPair - (k - 1) + pairs) % pairs;
    const recvPair = (myPair - k + pairs) % pairs;
    s.round().recv(pair(recvPair), (rank - 2 + even) % even).send(pair(sendPair), (rank + 2) % even);
  }
  if (size % 2 === 1 && rank === last - 1) s.round().send(buf.subarray(0, last * bb), last);
}

/** Allgather(sendbuf, recvbuf): sendbuf may be MPI.IN_PLACE (own block already in recvbuf). */
export function allgather(c: Call, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  if (!nonblocking && choice === 'auto' && allgatherSmall(c, sendbuf, recvbuf)) return undefined;
  const { rank, size } = c.core;
  const recv = decode(c, recvbuf, 'recvbuf');
  const total = recv.bytes.length;
  if (total % size !== 0) {
    fail(c, ErrorClass.ERR_COUNT, `recvbuf holds ${recv.count} x ${recv.datatype.name}, not a multiple of the ${size} ranks`);
  }
  const bb = total / size;
  let ownIn: (() => void) | null = null;
  if (!isInPlace(sendbuf)) {
    const send = decode(c, sendbuf, 'sendbuf');
    if (send.bytes.length !== bb) {
      fail(c, ErrorClass.ERR_COUNT, `sendbuf has ${send.bytes.length} bytes but recvbuf has room for ${bb} per rank ` +
        `(${size} ranks); they must match`);
    }
    ownIn = () => recv.bytes.set(send.bytes, rank * bb);
  }
  // Our block goes into our cell before anything is read into recvbuf, so a view of it serves.
  const small = !nonblocking && choice === 'auto';
  if (small) ownIn?.();
  if (small && smallAllgather(c, recv.bytes, rank * bb, bb, recv.bytes)) {
    return unpackReceived(c);
  }
  const s = newSchedule(c);
  if (!small && ownIn !== null) s.prepare(ownIn);
  let algo = choice;
  if (algo === 'auto') algo = isPowerOfTwo(size) && bb * size < large ? 'recursive_doubling' : 'ring';
  if (algo === 'recursive_doubling' && !isPowerOfTwo(size)) algo = 'ring';
  traceAlgorithm(s, 'allgather', algo, bb * size);
  if (algo === 'recursive_doubling') recursiveDoublingAllgather(s, recv.bytes, bb);
  else if (algo === 'shift') shiftAllgather(s, recv.bytes, bb);
  else if (algo === 'gather_bcast') {
    const tmp = new Uint8Array(total);
    gatherBinomial(s, recv.bytes.subarray(rank * bb, (rank + 1) * bb), tmp, bb, 0);
    if (rank === 0) s.local(() => recv.bytes.set(tmp));
    bcastBinomial(s, recv.bytes, 0);
  } else {
    const off: number[] = [];
    const len: number[] = [];
    for (let r = 0; r < size; r++) {
      off.push(r * bb);
      len.push(bb);
    }
    ringAllgather(s, recv.bytes, off, len);
  }
  return execute(c, s, nonblocking);
}

/** Allgatherv(sendbuf, [recvbuf, [counts, displs], datatype]): ring over the blocks. */
export function allgatherv(c: Call, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  const { rank, size } = c.core;
  const v = decodeV(c, recvbuf, 'recvbuf', size);
  const es = v.datatype.size;
  const off = v.displs.map((d) => d * es);
  const len = v.counts.map((n) => n * es);
  const s = newSchedule(c);
  if (!isInPlace(sendbuf)) {
    const send = decode(c, sendbuf, 'sendbuf');
    if (send.bytes.length !== len[rank]) {
      fail(c, ErrorClass.ERR_COUNT, `sendbuf has ${send.bytes.length} bytes but recvbuf counts[${rank}] asks for ${len[rank]}`);
    }
    s.prepare(() => v.data.set(send.bytes, off[rank]));
  }
  ringAllgather(s, v.data, off, len);
  return execute(c, s, nonblocking);
}
