import { COLL_RPIPE_MIN, COLL_SCAN } from '../config.js';
import type { Request } from '../request.js';
import { type Call, checkOp, checkSame, decode, execute, isInPlace, newSchedule, type Schedule, traceAlgorithm } from './common.js';
import { reducePipeline } from './pipeline.js';
import type { Reduction } from './reduce.js';

const choice = COLL_SCAN.read();
const rpipeMin = COLL_RPIPE_MIN.read();

/**
 * Recursive doubling scan (MPICH's): `partial` is the reduction over a block of ranks that
 * grows to 2^(k+1) in step k; a rank combines what comes from a lower rank into both its
 * partial and its result (lower operand first), and what comes from a higher rank into its
 * partial only. The exclusive scan takes the first lower contribution as its result.
 */
export function scanRecursiveDoubling(s: Schedule, mine: Uint8Array, out: Uint8Array, red: Reduction, exclusive: boolean): void {
  const { rank, size } = s.core;
  const { op, count, datatype } = red;
  const partial = new Uint8Array(mine.length);
  const tmp = new Uint8Array(mine.length);
  s.prepare(() => {
    partial.set(mine);
    if (!exclusive) out.set(mine);
  });
  let first = true;
  for (let mask = 1; mask < size; mask <<= 1) {
    const dst = rank ^ mask;
    if (dst >= size) continue;
    s.round().recv(tmp, dst).send(partial, dst);
    if (rank > dst) {
      const isFirst = first;
      first = false;
      s.local(() => {
        op.apply(tmp, partial, count, datatype);
        if (exclusive && isFirst) out.set(tmp);
        else op.apply(tmp, out, count, datatype);
      });
    } else {
      s.local(() => {
        op.apply(partial, tmp, count, datatype);
        partial.set(tmp);
      });
    }
  }
}

/** Linear chain: rank r receives the inclusive prefix of r - 1, combines, passes it on. */
export function scanLinear(s: Schedule, mine: Uint8Array, out: Uint8Array, red: Reduction, exclusive: boolean): void {
  const { rank, size } = s.core;
  const { op, count, datatype } = red;
  const prefix = new Uint8Array(mine.length);
  const tmp = new Uint8Array(mine.length);
  s.prepare(() => {
    prefix.set(mine);
    if (!exclusive) out.set(mine);
  });
  if (rank > 0) {
    s.round().recv(tmp, rank - 1).local(() => {
      if (exclusive) out.set(tmp);
      else op.apply(tmp, out, count, datatype);
      op.apply(tmp, prefix, count, datatype);
    });
  }
  if (rank < size - 1) s.round().send(prefix, rank + 1);
}

function run(c: Call, sendbuf: unknown, recvbuf: unknown, op: unknown, exclusive: boolean, nonblocking: boolean): Request | undefined {
  const recv = decode(c, recvbuf, 'recvbuf');
  let mine: Uint8Array;
  const inPlace = isInPlace(sendbuf);
  if (inPlace) mine = new Uint8Array(recv.bytes.length);
  else {
    const send = decode(c, sendbuf, 'sendbuf');
    checkSame(c, send, recv);
    mine = send.bytes;
  }
  const red: Reduction = { op: checkOp(c, op, recv.datatype), count: recv.count, datatype: recv.datatype };
  const s = newSchedule(c);
  if (inPlace) s.prepare(() => mine.set(recv.bytes));
  let algo = choice;
  if (algo === 'auto') algo = recv.bytes.length >= rpipeMin && c.core.size > 2 ? 'rpipe' : 'recursive_doubling';
  traceAlgorithm(s, 'scan', algo, recv.bytes.length);
  if (algo === 'linear') scanLinear(s, mine, recv.bytes, red, exclusive);
  else if (algo === 'rpipe') {
    const acc = new Uint8Array(mine.length);
    s.prepare(() => acc.set(mine));
    reducePipeline(s, acc, red, c.core.size - 1, { out: recv.bytes, exclusive });
  }
  else scanRecursiveDoubling(s, mine, recv.bytes, red, exclusive);
  return execute(c, s, nonblocking);
}

/** Scan(sendbuf, recvbuf, op): rank r gets the reduction over ranks 0..r; sendbuf may be IN_PLACE. */
export function scan(c: Call, sendbuf: unknown, recvbuf: unknown, op: unknown, nonblocking: boolean): Request | undefined {
  return run(c, sendbuf, recvbuf, op, false, nonblocking);
}

/** Exscan(sendbuf, recvbuf, op): rank r gets the reduction over ranks 0..r-1 (rank 0's recvbuf is left as is). */
export function exscan(c: Call, sendbuf: unknown, recvbuf: unknown, op: unknown, nonblocking: boolean): Request | undefined {
  return run(c, sendbuf, recvbuf, op, true, nonblocking);
}
