import { COLL_GATHER, COLL_LARGE_BYTES } from '../config.js';
import { ErrorClass } from '../error-classes.js';
import type { Request } from '../request.js';
import { type Call, checkRoot, decode, decodeV, execute, fail, isInPlace, newSchedule, type Schedule, traceAlgorithm } from './common.js';
import { binomialNode, toAbs, toRel } from './tree.js';

const choice = COLL_GATHER.read();
const large = COLL_LARGE_BYTES.read();

/**
 * Binomial gather of `bb`-byte blocks: each node collects its subtree's blocks (a contiguous
 * range of relative ranks) in a scratch buffer and passes them to its parent; the root then
 * rotates relative order into rank order in `out` (p * bb bytes, root only).
 */
export function gatherBinomial(s: Schedule, mine: Uint8Array, out: Uint8Array, bb: number, root: number): void {
  const { rank, size } = s.core;
  const rel = toRel(rank, root, size);
  const node = binomialNode(rel, size);
  const tmp = new Uint8Array(node.span * bb);
  tmp.set(mine.subarray(0, bb));
  s.round();
  for (const child of node.children) {
    const span = binomialNode(child, size).span;
    s.recv(tmp.subarray((child - rel) * bb, (child - rel + span) * bb), toAbs(child, root, size));
  }
  if (node.parent >= 0) {
    s.round().send(tmp, toAbs(node.parent, root, size));
    return;
  }
  s.local(() => {
    for (let q = 0; q < size; q++) out.set(tmp.subarray(q * bb, (q + 1) * bb), toAbs(q, root, size) * bb);
  });
}

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
    if (isInPlace(sendbuf)) mine = out.slice(root * bb, (root + 1) * bb);
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
  // The binomial tree forwards whole subtrees through scratch buffers: for large blocks the
  // root receiving each block straight into place costs less (003c §1.9 for scatter).
  const algo = choice === 'auto' ? (bb * c.core.size >= large ? 'linear' : 'binomial') : choice;
  traceAlgorithm(s, algo, bb);
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
      block(root).set(mine);
    }
    for (let r = 0; r < size; r++) if (r !== root) s.recv(block(r), r);
  } else {
    if (isInPlace(sendbuf)) fail(c, ErrorClass.ERR_BUFFER, 'sendbuf: MPI.IN_PLACE is allowed at the root only');
    s.send(decode(c, sendbuf, 'sendbuf').bytes, root);
  }
  return execute(c, s, nonblocking);
}
