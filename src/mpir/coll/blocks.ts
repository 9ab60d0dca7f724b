/**
 * Schedule building blocks that several collectives compose (the binomial broadcast and gather
 * trees, the ring allgather): one module below the collectives that use them, so that no two
 * collective modules import each other (bcast's scatter-allgather uses the ring, allgather's
 * gather-bcast uses the trees).
 */
import type { Schedule } from './common.js';
import { binomialNode, toAbs, toRel } from './tree.js';

/** Binomial tree: receive from the parent, then send to the children (largest subtree first). */
export function bcastBinomial(s: Schedule, buf: Uint8Array, root: number): void {
  const { rank, size } = s.core;
  const node = binomialNode(toRel(rank, root, size), size);
  s.round();
  if (node.parent >= 0) s.recv(buf, toAbs(node.parent, root, size));
  s.round();
  for (const child of node.children) s.send(buf, toAbs(child, root, size));
}

/**
 * Ring allgather over blocks of any size: block r (bytes off[r] .. off[r] + len[r] of buf) is
 * rank r's. In step k each rank passes block (rank - k) to rank + 1 and gets block
 * (rank - k - 1) from rank - 1; p - 1 steps.
 */
export function ringAllgather(s: Schedule, buf: Uint8Array, off: number[], len: number[]): void {
  const { rank, size } = s.core;
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  for (let k = 0; k < size - 1; k++) {
    const sb = (rank - k + size) % size;
    const rb = (rank - k - 1 + 2 * size) % size;
    s.round()
      .recv(buf.subarray(off[rb]!, off[rb]! + len[rb]!), left)
      .send(buf.subarray(off[sb]!, off[sb]! + len[sb]!), right);
  }
}

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
  s.prepare(() => tmp.set(mine.subarray(0, bb)));
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
