// Research ids cited here: see docs/references.md.
import { COLL_GATHER, COLL_LARGE_BYTES } from '../config.js';
import { ErrorClass } from '../error-classes.js';
import type { Request } from '../request.js';
import { gatherBinomial } from './blocks.js';
import { type Call, checkRoot, decode, decodeV, execute, fail, isInPlace, newSchedule, type Schedule, traceAlgorithm } from './common.js';

const choice = COLL_GATHER.read();
const large = COLL_LARGE_BYTES.read();

/** Linear gather: the root receives each rank's block straight into place. */
export function gatherLinear(s: Schedule, mine: Uint8Array, out: Uint8Array, bb: number, root: number): void {
  const { rank, size } = s.core;
  s.round();
  if (rank !== root) {
    s.send(mine.subarray(0, bb), root);
    return;
  }
  for (let r = 0; r < size; r++) if (r !== root) s.recv(out.subarray(r * bb, (r + 1) * bb), r);
  s.local(() => out.set(mine.subarray(0, bb), root * bb));
}

/** Gather(sendbuf, recvbuf, root): recvbuf matters at the root only; root's sendbuf may be IN_PLACE. */
export function gather(c: Call, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  checkRoot(c, root);
  const { rank, size } = c.core;
  let mine: Uint8Array;
  let out: Uint8Array = new Uint8Array(0);
  let bb: number;
  if (rank === root) {
    const recv = decode(c, recvbuf, 'recvbuf');
    if (recv.bytes.length % size !== 0) {
      fail(c, ErrorClass.ERR_COUNT, `recvbuf holds ${recv.count} x ${recv.datatype.name}, not a multiple of the ${size} ranks`);
    }
    out = recv.bytes;
    bb = out.length / size;
    if (isInPlace(sendbuf)) mine = new Uint8Array(bb);
    else {
      mine = decode(c, sendbuf, 'sendbuf').bytes;
      if (mine.length !== bb) {
        fail(c, ErrorClass.ERR_COUNT, `sendbuf has ${mine.length} bytes but recvbuf has room for ${bb} per rank; they must match`);
      }
    }
  } else {
    if (isInPlace(sendbuf)) fail(c, ErrorClass.ERR_BUFFER, 'sendbuf: MPI.IN_PLACE is allowed at the root only');
    mine = decode(c, sendbuf, 'sendbuf').bytes;
    bb = mine.length;
  }
  const s = newSchedule(c);
  if (rank === root && isInPlace(sendbuf)) {
    const own = mine;
    s.prepare(() => own.set(out.subarray(root * bb, (root + 1) * bb)));
  }
  // The binomial tree forwards whole subtrees through scratch buffers: for large blocks the
  // root receiving each block straight into place costs less (003c §1.9 for scatter).
  const algo = choice === 'auto' ? (bb * c.core.size >= large ? 'linear' : 'binomial') : choice;
  traceAlgorithm(s, 'gather', algo, bb);
  if (algo === 'linear') gatherLinear(s, mine, out, bb, root);
  else gatherBinomial(s, mine, out, bb, root);
  return execute(c, s, nonblocking);
}

/** Gatherv(sendbuf, [recvbuf, [counts, displs], datatype], root): linear. */
export function gatherv(c: Call, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  checkRoot(c, root);
  const { rank, size } = c.core;
  const s = newSchedule(c).round();
  if (rank === root) {
    const v = decodeV(c, recvbuf, 'recvbuf', size);
    const es = v.datatype.size;
    const block = (r: number) => v.data.subarray(v.displs[r]! * es, (v.displs[r]! + v.counts[r]!) * es);
    if (!isInPlace(sendbuf)) {
      const mine = decode(c, sendbuf, 'sendbuf').bytes;
      if (mine.length !== v.counts[root]! * es) {
        fail(c, ErrorClass.ERR_COUNT, `sendbuf has ${mine.length} bytes but recvbuf counts[${root}] asks for ${v.counts[root]! * es}`);
      }
      s.prepare(() => block(root).set(mine));
    }
    for (let r = 0; r < size; r++) if (r !== root) s.recv(block(r), r);
  } else {
    if (isInPlace(sendbuf)) fail(c, ErrorClass.ERR_BUFFER, 'sendbuf: MPI.IN_PLACE is allowed at the root only');
    s.send(decode(c, sendbuf, 'sendbuf').bytes, root);
  }
  return execute(c, s, nonblocking);
}
