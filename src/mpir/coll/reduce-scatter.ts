import { COLL_LARGE_BYTES, COLL_REDUCE_SCATTER } from '../config.js';
import { ErrorClass } from '../error-classes.js';
import type { Request } from '../request.js';
import { ringReduceScatter } from './allreduce.js';
import { type Call, checkOp, decode, execute, fail, intList, isInPlace, newSchedule, type Schedule, traceAlgorithm } from './common.js';
import { type Reduction, reduceBinomial } from './reduce.js';

const choice = COLL_REDUCE_SCATTER.read();
const large = COLL_LARGE_BYTES.read();

/**
 * SCI-MPICH's overlapping reduce_scatter for short vectors (003c §1.7, Fig. 6.31): no
 * reduction tree; each rank sends every other rank its block of the vector directly and
 * combines the blocks it gets for its own part while the others are still sending, so
 * computation and communication of different processes overlap and no rank waits for a later
 * step. Partner order (send to rank + k, receive from rank - k): the neighbour first (k = 1),
 * then the other parity group (odd k, descending), then the own group (even k, descending),
 * which is the even/odd grouping of the figure; the digest marks the figure's exact orders as
 * unreadable, this keeps its stated properties. Commutative ops only (operands of a block are
 * combined in arrival order).
 *
 * Research ids cited here: see docs/references.md.
 */
function reduceScatterOverlap(s: Schedule, acc: Uint8Array, out: Uint8Array, red: Reduction, off: number[], len: number[],
                              counts: number[]): void {
  const { rank, size } = s.core;
  const ks: number[] = [];
  if (size > 1) ks.push(1);
  for (let k = size - 1; k >= 2; k--) if (k % 2 === 1) ks.push(k);
  for (let k = size - 1; k >= 2; k--) if (k % 2 === 0) ks.push(k);
  const mine = acc.subarray(off[rank]!, off[rank]! + len[rank]!);
  const tmp = [new Uint8Array(len[rank]!), new Uint8Array(len[rank]!)];
  ks.forEach((k, i) => {
    const to = (rank + k) % size;
    const from = (rank - k + size) % size;
    const t = tmp[i % 2]!;
    s.round().recv(t, from).send(acc.subarray(off[to]!, off[to]! + len[to]!), to);
    s.local(() => red.op.apply(t, mine, counts[rank]!, red.datatype));
  });
  s.local(() => out.set(mine));
}

/**
 * Reduce_scatter: the element-wise reduction of every rank's sendbuf, block r (counts[r]
 * elements) left at rank r. Ring reduce-scatter for commutative ops; otherwise (or when
 * forced) a binomial reduce to rank 0 followed by a linear scatter of the blocks.
 */
function build(s: Schedule, acc: Uint8Array, out: Uint8Array, red: Reduction, counts: number[]): void {
  const { rank, size } = s.core;
  const es = red.datatype.size;
  const off: number[] = [];
  const len: number[] = [];
  let at = 0;
  for (const n of counts) {
    off.push(at * es);
    len.push(n * es);
    at += n;
  }
  const mine = () => acc.subarray(off[rank]!, off[rank]! + len[rank]!);
  let algo = choice;
  if (algo === 'auto') algo = red.op.Is_commutative() ? (acc.length < large ? 'overlap' : 'ring') : 'reduce_scatterv';
  if ((algo === 'ring' || algo === 'overlap') && !red.op.Is_commutative()) algo = 'reduce_scatterv';
  traceAlgorithm(s, 'reduce_scatter', algo, acc.length);
  if (algo === 'overlap') {
    reduceScatterOverlap(s, acc, out, red, off, len, counts);
    return;
  }
  if (algo === 'ring') {
    ringReduceScatter(s, acc, red, off, len, counts);
    s.local(() => out.set(mine()));
    return;
  }
  reduceBinomial(s, acc, acc, red, 0);
  s.round();
  if (rank === 0) for (let r = 1; r < size; r++) s.send(acc.subarray(off[r]!, off[r]! + len[r]!), r);
  else s.recv(out.subarray(0, len[rank]), 0);
  if (rank === 0) s.local(() => out.set(mine()));
}

function run(c: Call, sendbuf: unknown, recvbuf: unknown, counts: number[], op: unknown, nonblocking: boolean): Request | undefined {
  const rank = c.core.rank;
  const recv = decode(c, recvbuf, 'recvbuf');
  const total = counts.reduce((a, b) => a + b, 0);
  let own: Uint8Array;
  let dt = recv.datatype;
  if (isInPlace(sendbuf)) {
    if (recv.count < total) fail(c, ErrorClass.ERR_COUNT, `with MPI.IN_PLACE recvbuf must hold all ${total} elements, it has ${recv.count}`);
    own = recv.bytes.subarray(0, total * dt.size);
  } else {
    const send = decode(c, sendbuf, 'sendbuf');
    dt = send.datatype;
    if (send.datatype !== recv.datatype) fail(c, ErrorClass.ERR_TYPE, `sendbuf is ${send.datatype.name} but recvbuf is ${recv.datatype.name}`);
    if (send.count !== total) fail(c, ErrorClass.ERR_COUNT, `sendbuf has ${send.count} elements, the counts of recvbuf (recvcounts) add up to ${total}`);
    if (recv.count < counts[rank]!) fail(c, ErrorClass.ERR_COUNT, `recvbuf has ${recv.count} elements, rank ${rank}'s block has ${counts[rank]}`);
    own = send.bytes;
  }
  const red: Reduction = { op: checkOp(c, op, dt), count: total, datatype: dt };
  const s = newSchedule(c);
  const acc = new Uint8Array(own.length);
  s.prepare(() => acc.set(own));
  build(s, acc, recv.bytes, red, counts);
  return execute(c, s, nonblocking);
}

/** Reduce_scatter_block(sendbuf, recvbuf, op): every block has recvbuf's count. */
export function reduceScatterBlock(c: Call, sendbuf: unknown, recvbuf: unknown, op: unknown, nonblocking: boolean): Request | undefined {
  const size = c.core.size;
  const recv = decode(c, recvbuf, 'recvbuf');
  const n = isInPlace(sendbuf) ? recv.count / size : recv.count;
  if (!Number.isInteger(n)) fail(c, ErrorClass.ERR_COUNT, `with MPI.IN_PLACE recvbuf's ${recv.count} elements must split over ${size} ranks`);
  return run(c, sendbuf, recvbuf, new Array<number>(size).fill(n), op, nonblocking);
}

/** Reduce_scatter(sendbuf, recvbuf, recvcounts, op). */
export function reduceScatter(c: Call, sendbuf: unknown, recvbuf: unknown, recvcounts: unknown, op: unknown,
                              nonblocking: boolean): Request | undefined {
  return run(c, sendbuf, recvbuf, intList(c, recvcounts, 'recvcounts', c.core.size), op, nonblocking);
}
