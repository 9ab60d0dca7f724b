// Research ids cited here: see docs/references.md.
import { COLL_LARGE_BYTES, COLL_SCATTER } from '../config.js';
import { ErrorClass } from '../error-classes.js';
import type { Request } from '../request.js';
import { type Call, checkRoot, decode, decodeV, execute, fail, isInPlace, newSchedule, type Schedule, traceAlgorithm } from './common.js';
import { binomialNode, toAbs, toRel } from './tree.js';

const choice = COLL_SCATTER.read();
const large = COLL_LARGE_BYTES.read();

/**
 * Binomial scatter of `bb`-byte blocks: the root lays the blocks out in relative order; each
 * node receives its subtree's range from its parent, keeps the first block and passes the
 * children their ranges. `inp` is the root's p * bb bytes; `mine` receives our block (null:
 * the root keeps its block in place).
 */
export function scatterBinomial(s: Schedule, inp: Uint8Array, mine: Uint8Array | null, bb: number, root: number): void {
  const { rank, size } = s.core;
  const rel = toRel(rank, root, size);
  const node = binomialNode(rel, size);
  let tmp: Uint8Array;
  s.round();
  if (node.parent < 0) {
    const all = new Uint8Array(size * bb);
    tmp = all;
    s.prepare(() => {
      for (let q = 0; q < size; q++) {
        const r = toAbs(q, root, size);
        all.set(inp.subarray(r * bb, (r + 1) * bb), q * bb);
      }
    });
  } else {
    tmp = new Uint8Array(node.span * bb);
    s.recv(tmp, toAbs(node.parent, root, size));
  }
  if (mine !== null) s.local(() => mine.set(tmp.subarray(0, bb)));
  s.round();
  for (const child of node.children) {
    const span = binomialNode(child, size).span;
    s.send(tmp.subarray((child - rel) * bb, (child - rel + span) * bb), toAbs(child, root, size));
  }
}

/** Linear scatter: the root sends each rank its block. */
export function scatterLinear(s: Schedule, inp: Uint8Array, mine: Uint8Array | null, bb: number, root: number): void {
  const { rank, size } = s.core;
  s.round();
  if (rank === root) {
    for (let r = 0; r < size; r++) if (r !== root) s.send(inp.subarray(r * bb, (r + 1) * bb), r);
    if (mine !== null) s.prepare(() => mine.set(inp.subarray(root * bb, (root + 1) * bb)));
  } else s.recv(mine!, root);
}

/** Scatter(sendbuf, recvbuf, root): sendbuf matters at the root only; root's recvbuf may be IN_PLACE. */
export function scatter(c: Call, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  checkRoot(c, root);
  const { rank, size } = c.core;
  let inp: Uint8Array = new Uint8Array(0);
  let mine: Uint8Array | null;
  let bb: number;
  if (rank === root) {
    const send = decode(c, sendbuf, 'sendbuf');
    if (send.bytes.length % size !== 0) {
      fail(c, ErrorClass.ERR_COUNT, `sendbuf holds ${send.count} x ${send.datatype.name}, not a multiple of the ${size} ranks`);
    }
    inp = send.bytes;
    bb = inp.length / size;
    if (isInPlace(recvbuf)) mine = null;
    else {
      mine = decode(c, recvbuf, 'recvbuf').bytes;
      if (mine.length !== bb) {
        fail(c, ErrorClass.ERR_COUNT, `recvbuf has ${mine.length} bytes but sendbuf has ${bb} per rank; they must match`);
      }
    }
  } else {
    if (isInPlace(recvbuf)) fail(c, ErrorClass.ERR_BUFFER, 'recvbuf: MPI.IN_PLACE is allowed at the root only');
    mine = decode(c, recvbuf, 'recvbuf').bytes;
    bb = mine.length;
  }
  const s = newSchedule(c);
  // 003c §1.9: the binomial tree for small messages only; for large ones every rank would get
  // its block only after (p - 1) / p of the data went through the tree.
  const algo = choice === 'auto' ? (bb * c.core.size >= large ? 'linear' : 'binomial') : choice;
  traceAlgorithm(s, 'scatter', algo, bb);
  if (algo === 'linear') scatterLinear(s, inp, mine, bb, root);
  else scatterBinomial(s, inp, mine, bb, root);
  return execute(c, s, nonblocking);
}

/** Scatterv([sendbuf, [counts, displs], datatype], recvbuf, root): linear. */
export function scatterv(c: Call, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  checkRoot(c, root);
  const { rank, size } = c.core;
  const s = newSchedule(c).round();
  if (rank === root) {
    const v = decodeV(c, sendbuf, 'sendbuf', size);
    const es = v.datatype.size;
    const block = (r: number) => v.data.subarray(v.displs[r]! * es, (v.displs[r]! + v.counts[r]!) * es);
    if (!isInPlace(recvbuf)) {
      const mine = decode(c, recvbuf, 'recvbuf').bytes;
      if (mine.length !== v.counts[root]! * es) {
        fail(c, ErrorClass.ERR_COUNT, `recvbuf has ${mine.length} bytes but sendbuf counts[${root}] gives ${v.counts[root]! * es}`);
      }
      s.prepare(() => mine.set(block(root)));
    }
    for (let r = 0; r < size; r++) if (r !== root) s.send(block(r), r);
  } else {
    if (isInPlace(recvbuf)) fail(c, ErrorClass.ERR_BUFFER, 'recvbuf: MPI.IN_PLACE is allowed at the root only');
    s.recv(decode(c, recvbuf, 'recvbuf').bytes, root);
  }
  return execute(c, s, nonblocking);
}
