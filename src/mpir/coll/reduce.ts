// Research ids cited here: see docs/references.md.
import { COLL_REDUCE, COLL_REDUCE_FANIN, COLL_RPIPE_MIN } from '../config.js';
import type { Datatype } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import type { Op } from '../op.js';
import type { Request } from '../request.js';
import { type Call, checkOp, checkRoot, checkSame, decode, execute, fail, isInPlace, newSchedule, type Schedule, traceAlgorithm, unpackReceived } from './common.js';
import { reducePipeline } from './pipeline.js';
import { smallReduce } from './shm-small.js';
import { reduceSmall } from './small-calls.js';
import { binomialNode, toAbs, toRel } from './tree.js';

const choice = COLL_REDUCE.read();
const fanin = COLL_REDUCE_FANIN.read();
const rpipeMin = COLL_RPIPE_MIN.read();

/** The operands of a reduction: `count` elements of `datatype` under `op`. */
export interface Reduction {
  op: Op;
  count: number;
  datatype: Datatype;
}

/**
 * Binomial reduce. A node receives its children's partial results (each child covers the
 * relative ranks after those the node already holds) and combines them as
 * `held op child`, so the order of ranks is kept. A commutative op runs on the tree rooted at
 * `root`; a non-commutative one on the tree rooted at rank 0 (so relative order is rank
 * order), and rank 0 then sends the result to `root`. `acc` holds our operand and is
 * overwritten; the result lands in `out` at the root.
 */
export function reduceBinomial(s: Schedule, acc: Uint8Array, out: Uint8Array, red: Reduction, root: number): void {
  const { rank, size } = s.core;
  const treeRoot = red.op.Is_commutative() ? root : 0;
  const rel = toRel(rank, treeRoot, size);
  const node = binomialNode(rel, size);
  const kids = node.children.slice().reverse();
  const tmps = kids.map(() => new Uint8Array(acc.length));
  s.round();
  kids.forEach((child, i) => s.recv(tmps[i]!, toAbs(child, treeRoot, size)));
  if (kids.length > 0) {
    s.local(() => {
      for (const t of tmps) {
        red.op.apply(acc, t, red.count, red.datatype);
        acc.set(t);
      }
    });
  }
  if (node.parent >= 0) s.round().send(acc, toAbs(node.parent, treeRoot, size));
  if (treeRoot !== root) {
    if (rank === treeRoot) s.round().send(acc, root);
    if (rank === root) s.round().recv(out, treeRoot);
  } else if (rank === root && out !== acc) s.local(() => out.set(acc));
}

/**
 * SCI-MPICH's reduce for short vectors (003c §1.7): a tree that sends upward, to higher ranks,
 * with fan-in f. At each level ranks form groups of f subgroups; the highest rank of a group
 * receives the partial results of the other subgroups' highest ranks in one round and
 * combines them lowest range first, its own last. Ranks are relative to the root so the root
 * is the top (commutative ops), or the ranks themselves for a non-commutative op (operands
 * then combine in rank order), the top sending the result on to the root.
 */
export function reduceFaninTree(s: Schedule, acc: Uint8Array, out: Uint8Array, red: Reduction, root: number, f: number): void {
  const { rank, size } = s.core;
  const commutative = red.op.Is_commutative();
  const rel = commutative ? (rank - root - 1 + 2 * size) % size : rank;
  const abs = (q: number) => (commutative ? (q + root + 1) % size : q);
  for (let c = 1; c < size; c *= f) {
    const g = c * f;
    const base = Math.floor(rel / g) * g;
    const leader = Math.min(base + g - 1, size - 1);
    if (rel !== leader) {
      s.round().send(acc, abs(leader));
      break;
    }
    const parts: Uint8Array[] = [];
    s.round();
    for (let j = 0; j < f && base + j * c < size; j++) {
      const sub = Math.min(base + (j + 1) * c - 1, size - 1);
      if (sub === rel) continue;
      const t = new Uint8Array(acc.length);
      parts.push(t);
      s.recv(t, abs(sub));
    }
    if (parts.length > 0) {
      s.local(() => {
        let held = parts[0]!;
        for (let i = 1; i < parts.length; i++) {
          red.op.apply(held, parts[i]!, red.count, red.datatype);
          held = parts[i]!;
        }
        red.op.apply(held, acc, red.count, red.datatype);
      });
    }
  }
  const top = abs(size - 1);
  if (top !== root) {
    if (rank === top) s.round().send(acc, root);
    if (rank === root) s.round().recv(out, top);
  } else if (rank === root && out !== acc) s.local(() => out.set(acc));
}

/** rpipe: the pipelined chain (pipeline.ts); the tail sends the result to the root if it is not the root. */
export function reduceRpipe(s: Schedule, acc: Uint8Array, out: Uint8Array, red: Reduction, root: number): void {
  const rank = s.core.rank;
  const tail = reducePipeline(s, acc, red, root);
  if (tail !== root) {
    if (rank === tail) s.round().send(acc, root);
    if (rank === root) s.round().recv(out, tail);
  } else if (rank === root && out !== acc) s.local(() => out.set(acc));
}

/** Linear: the root receives every operand and combines them in rank order. */
export function reduceLinear(s: Schedule, acc: Uint8Array, out: Uint8Array, red: Reduction, root: number): void {
  const { rank, size } = s.core;
  s.round();
  if (rank !== root) {
    s.send(acc, root);
    return;
  }
  const parts: Uint8Array[] = [];
  for (let r = 0; r < size; r++) {
    parts.push(r === root ? acc : new Uint8Array(acc.length));
    if (r !== root) s.recv(parts[r]!, r);
  }
  s.local(() => {
    let held = parts[0]!;
    for (let r = 1; r < size; r++) {
      red.op.apply(held, parts[r]!, red.count, red.datatype);
      held = parts[r]!;
    }
    out.set(held);
  });
}

/** The output of a non-root (it has none): one empty array, not one per call. */
const NO_OUTPUT = new Uint8Array(0);

/** Reduce(sendbuf, recvbuf, op, root): recvbuf matters at the root; root's sendbuf may be IN_PLACE. */
export function reduce(c: Call, sendbuf: unknown, recvbuf: unknown, op: unknown, root: number,
                       nonblocking: boolean): Request | undefined {
  checkRoot(c, root);
  if (!nonblocking && choice === 'auto' && reduceSmall(c, sendbuf, recvbuf, op, root)) return undefined;
  const isRoot = c.core.rank === root;
  // `own` is this rank's contribution, left as it is: the cells copy it, a schedule reduces
  // into a copy (acc) of it.
  let own: Uint8Array;
  let out: Uint8Array = NO_OUTPUT;
  let red: Reduction;
  if (isRoot) {
    const recv = decode(c, recvbuf, 'recvbuf');
    out = recv.bytes;
    if (isInPlace(sendbuf)) {
      own = recv.bytes;
      red = { op: checkOp(c, op, recv.datatype), count: recv.count, datatype: recv.datatype };
    } else {
      const send = decode(c, sendbuf, 'sendbuf');
      checkSame(c, send, recv);
      own = send.bytes;
      red = { op: checkOp(c, op, send.datatype), count: send.count, datatype: send.datatype };
    }
  } else {
    if (isInPlace(sendbuf)) fail(c, ErrorClass.ERR_BUFFER, 'sendbuf: MPI.IN_PLACE is allowed at the root only');
    const send = decode(c, sendbuf, 'sendbuf');
    own = send.bytes;
    red = { op: checkOp(c, op, send.datatype), count: send.count, datatype: send.datatype };
  }
  if (!nonblocking && choice === 'auto' && smallReduce(c, own, out, red.op, red.count, red.datatype, root)) return unpackReceived(c);
  const acc = new Uint8Array(own.length);
  const s = newSchedule(c);
  s.prepare(() => acc.set(own));
  let algo = choice;
  if (algo === 'auto') algo = acc.length >= rpipeMin && c.core.size > 2 ? 'rpipe' : 'binomial';
  traceAlgorithm(s, 'reduce', algo, acc.length);
  if (algo === 'linear') reduceLinear(s, acc, out, red, root);
  else if (algo === 'fanin_tree') reduceFaninTree(s, acc, out, red, root, fanin);
  else if (algo === 'rpipe') reduceRpipe(s, acc, out, red, root);
  else reduceBinomial(s, acc, out, red, root);
  return execute(c, s, nonblocking);
}
