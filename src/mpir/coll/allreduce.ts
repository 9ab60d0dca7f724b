// Research ids cited here: see docs/references.md.
import { COLL_ALLREDUCE, COLL_LARGE_BYTES, COLL_RPIPE_MIN } from '../config.js';
import type { Request } from '../request.js';
import { bcastBinomial, ringAllgather } from './blocks.js';
import { type Call, checkOp, checkSame, decode, execute, isInPlace, newSchedule, type Schedule, traceAlgorithm, unpackReceived } from './common.js';
import { bcastPcast, reducePipeline } from './pipeline.js';
import { type Reduction, reduceBinomial } from './reduce.js';
import { smallReduce } from './shm-small.js';
import { reduceSmall } from './small-calls.js';

const choice = COLL_ALLREDUCE.read();
const large = COLL_LARGE_BYTES.read();
const rpipeMin = COLL_RPIPE_MIN.read();

/**
 * Recursive doubling (MPICH's, with the non-power-of-two fold): with pof2 the largest power
 * of two <= p and rem = p - pof2, the first 2 * rem ranks pair up (even sends to odd, which
 * combines even op odd); the pof2 remaining ranks exchange with partners at distance 1, 2, 4,
 * ... combining lower-ranked first; the odd ranks finally return the result to their even
 * partners. Rank order is kept, so non-commutative ops are correct.
 */
export function allreduceRecursiveDoubling(s: Schedule, acc: Uint8Array, red: Reduction): void {
  const { rank, size } = s.core;
  let pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  const rem = size - pof2;
  const tmp = new Uint8Array(acc.length);
  const { op, count, datatype } = red;
  let newrank: number;
  if (rank < 2 * rem) {
    if (rank % 2 === 0) {
      s.round().send(acc, rank + 1);
      newrank = -1;
    } else {
      s.round().recv(tmp, rank - 1).local(() => op.apply(tmp, acc, count, datatype));
      newrank = rank >> 1;
    }
  } else newrank = rank - rem;
  if (newrank >= 0) {
    for (let mask = 1; mask < pof2; mask <<= 1) {
      const nd = newrank ^ mask;
      const dst = nd < rem ? nd * 2 + 1 : nd + rem;
      s.round().recv(tmp, dst).send(acc, dst);
      if (dst < rank) s.local(() => op.apply(tmp, acc, count, datatype));
      else s.local(() => {
        op.apply(acc, tmp, count, datatype);
        acc.set(tmp);
      });
    }
  }
  if (rank < 2 * rem) {
    if (rank % 2 === 1) s.round().send(acc, rank - 1);
    else s.round().recv(acc, rank + 1);
  }
}

/**
 * Rabenseifner (MPICH's reduce_scatter_allgather), commutative ops, large messages: fold to a
 * power of two as recursive doubling does, then a reduce-scatter by recursive halving (each
 * step halves the range of chunks a rank is responsible for and exchanges the other half with
 * its partner) and an allgather by recursive doubling that retraces those steps; finally the
 * odd ranks of the fold return the result to their even partners.
 */
export function allreduceRabenseifner(s: Schedule, acc: Uint8Array, red: Reduction): void {
  const { rank, size } = s.core;
  const { op, datatype } = red;
  const es = datatype.size;
  let pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  const rem = size - pof2;
  const tmp = new Uint8Array(acc.length);
  let newrank: number;
  if (rank < 2 * rem) {
    if (rank % 2 === 0) {
      s.round().send(acc, rank + 1);
      newrank = -1;
    } else {
      s.round().recv(tmp, rank - 1).local(() => op.apply(tmp, acc, red.count, datatype));
      newrank = rank >> 1;
    }
  } else newrank = rank - rem;
  if (newrank >= 0 && pof2 > 1) {
    const cnts: number[] = [];
    const disps: number[] = [];
    const base = Math.floor(red.count / pof2);
    const extra = red.count % pof2;
    for (let i = 0, at = 0; i < pof2; i++) {
      cnts.push(base + (i < extra ? 1 : 0));
      disps.push(at);
      at += cnts[i]!;
    }
    const sum = (from: number, to: number) => { let n = 0; for (let i = from; i < to; i++) n += cnts[i]!; return n; };
    const real = (nd: number) => (nd < rem ? nd * 2 + 1 : nd + rem);
    let mask = 1;
    let sendIdx = 0;
    let recvIdx = 0;
    let lastIdx = pof2;
    while (mask < pof2) {
      const newdst = newrank ^ mask;
      let sendCnt: number;
      let recvCnt: number;
      if (newrank < newdst) {
        sendIdx = recvIdx + pof2 / (mask * 2);
        sendCnt = sum(sendIdx, lastIdx);
        recvCnt = sum(recvIdx, sendIdx);
      } else {
        recvIdx = sendIdx + pof2 / (mask * 2);
        sendCnt = sum(sendIdx, recvIdx);
        recvCnt = sum(recvIdx, lastIdx);
      }
      const into = tmp.subarray(disps[recvIdx]! * es, (disps[recvIdx]! + recvCnt) * es);
      const dest = acc.subarray(disps[recvIdx]! * es, (disps[recvIdx]! + recvCnt) * es);
      const n = recvCnt;
      s.round().recv(into, real(newdst)).send(acc.subarray(disps[sendIdx]! * es, (disps[sendIdx]! + sendCnt) * es), real(newdst))
        .local(() => op.apply(into, dest, n, datatype));
      sendIdx = recvIdx;
      mask <<= 1;
      if (mask < pof2) lastIdx = recvIdx + pof2 / mask;
    }
    mask >>= 1;
    while (mask > 0) {
      const newdst = newrank ^ mask;
      let sendCnt: number;
      let recvCnt: number;
      if (newrank < newdst) {
        if (mask !== pof2 / 2) lastIdx += pof2 / (mask * 2);
        recvIdx = sendIdx + pof2 / (mask * 2);
        sendCnt = sum(sendIdx, recvIdx);
        recvCnt = sum(recvIdx, lastIdx);
      } else {
        recvIdx = sendIdx - pof2 / (mask * 2);
        sendCnt = sum(sendIdx, lastIdx);
        recvCnt = sum(recvIdx, sendIdx);
      }
      s.round()
        .recv(acc.subarray(disps[recvIdx]! * es, (disps[recvIdx]! + recvCnt) * es), real(newdst))
        .send(acc.subarray(disps[sendIdx]! * es, (disps[sendIdx]! + sendCnt) * es), real(newdst));
      if (newrank > newdst) sendIdx = recvIdx;
      mask >>= 1;
    }
  }
  if (rank < 2 * rem) {
    if (rank % 2 === 1) s.round().send(acc, rank - 1);
    else s.round().recv(acc, rank + 1);
  }
}

/** Chunk r of `count` elements split as evenly as possible over p ranks, as byte offsets. */
export function chunks(count: number, p: number, es: number): { off: number[]; len: number[]; elems: number[] } {
  const off: number[] = [];
  const len: number[] = [];
  const elems: number[] = [];
  const base = Math.floor(count / p);
  const extra = count % p;
  let at = 0;
  for (let r = 0; r < p; r++) {
    const n = base + (r < extra ? 1 : 0);
    off.push(at * es);
    len.push(n * es);
    elems.push(n);
    at += n;
  }
  return { off, len, elems };
}

/**
 * Ring reduce-scatter (commutative ops): in step k rank r passes chunk r - k - 1 to r + 1 and
 * folds chunk r - k - 2 from r - 1 into its own; after p - 1 steps rank r holds chunk r fully
 * reduced. Chunks are given as byte offsets/lengths and element counts.
 */
export function ringReduceScatter(s: Schedule, acc: Uint8Array, red: Reduction, off: number[], len: number[], elems: number[]): void {
  const { rank, size } = s.core;
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  const tmp = new Uint8Array(Math.max(0, ...len));
  for (let k = 0; k < size - 1; k++) {
    const sc = (rank - k - 1 + 2 * size) % size;
    const rc = (rank - k - 2 + 2 * size) % size;
    const t = tmp.subarray(0, len[rc]);
    const dest = acc.subarray(off[rc]!, off[rc]! + len[rc]!);
    s.round().recv(t, left).send(acc.subarray(off[sc]!, off[sc]! + len[sc]!), right)
      .local(() => red.op.apply(t, dest, elems[rc]!, red.datatype));
  }
}

/** Ring allreduce: ring reduce-scatter, then ring allgather of the reduced chunks. */
export function allreduceRing(s: Schedule, acc: Uint8Array, red: Reduction): void {
  const { off, len, elems } = chunks(red.count, s.core.size, red.datatype.size);
  ringReduceScatter(s, acc, red, off, len, elems);
  ringAllgather(s, acc, off, len);
}

/** Allreduce(sendbuf, recvbuf, op): sendbuf may be MPI.IN_PLACE. */
export function allreduce(c: Call, sendbuf: unknown, recvbuf: unknown, op: unknown, nonblocking: boolean): Request | undefined {
  if (!nonblocking && choice === 'auto' && reduceSmall(c, sendbuf, recvbuf, op, -1)) return undefined;
  const recv = decode(c, recvbuf, 'recvbuf');
  let sendIn: (() => void) | null = null;
  if (!isInPlace(sendbuf)) {
    const send = decode(c, sendbuf, 'sendbuf');
    checkSame(c, send, recv);
    sendIn = () => recv.bytes.set(send.bytes);
  }
  const red: Reduction = { op: checkOp(c, op, recv.datatype), count: recv.count, datatype: recv.datatype };
  const small = !nonblocking && choice === 'auto';
  if (small) sendIn?.();
  if (small && smallReduce(c, recv.bytes, recv.bytes, red.op, red.count, red.datatype, -1)) {
    return unpackReceived(c);
  }
  const s = newSchedule(c);
  if (!small && sendIn !== null) s.prepare(sendIn);
  const size = c.core.size;
  let algo = choice;
  if ((algo === 'ring' || algo === 'rabenseifner') && !red.op.Is_commutative()) algo = 'recursive_doubling';
  if (algo === 'auto') {
    const n = recv.bytes.length;
    algo = n >= rpipeMin && size > 2 ? 'rpipe'
      : red.op.Is_commutative() && n >= large && red.count >= size ? 'rabenseifner' : 'recursive_doubling';
  }
  traceAlgorithm(s, 'allreduce', algo, recv.bytes.length);
  if (algo === 'rpipe') {
    // SCI-MPICH runs the reduce pipeline and then pcast as two pipelines (003c §1.7, allreduce).
    const tail = reducePipeline(s, recv.bytes, red, 0);
    bcastPcast(s, recv.bytes, tail);
  } else if (algo === 'ring') allreduceRing(s, recv.bytes, red);
  else if (algo === 'rabenseifner') allreduceRabenseifner(s, recv.bytes, red);
  else if (algo === 'reduce_bcast') {
    const acc = new Uint8Array(recv.bytes.length);
    s.prepare(() => acc.set(recv.bytes));
    reduceBinomial(s, acc, recv.bytes, red, 0);
    bcastBinomial(s, recv.bytes, 0);
  } else allreduceRecursiveDoubling(s, recv.bytes, red);
  return execute(c, s, nonblocking);
}
