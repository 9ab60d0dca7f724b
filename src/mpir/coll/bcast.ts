import { COLL_BCAST, COLL_LARGE_BYTES, COLL_PCAST_MIN } from '../config.js';
import type { Request } from '../request.js';
import { bcastBinomial, ringAllgather } from './blocks.js';
import { type Call, checkRoot, decode, execute, newSchedule, type Schedule, traceAlgorithm, unpackReceived } from './common.js';
import { bcastPcast } from './pipeline.js';
import { smallBcast } from './shm-small.js';
import { bcastSmall } from './small-calls.js';
import { binomialNode, toAbs, toRel } from './tree.js';

const choice = COLL_BCAST.read();
const large = COLL_LARGE_BYTES.read();
const pcastMin = COLL_PCAST_MIN.read();

/** Linear: the root sends to every rank. */
export function bcastLinear(s: Schedule, buf: Uint8Array, root: number): void {
  const { rank, size } = s.core;
  s.round();
  if (rank === root) for (let r = 0; r < size; r++) s.send(buf, r);
  else s.recv(buf, root);
}

/**
 * Large messages (van de Geijn): the buffer is cut into p pieces, scattered along a binomial
 * tree (piece i goes to relative rank i), then gathered everywhere with a ring allgather.
 */
export function bcastScatterAllgather(s: Schedule, buf: Uint8Array, root: number): void {
  const { rank, size } = s.core;
  const n = buf.length;
  const chunk = Math.ceil(n / size);
  const at = (rel: number) => Math.min(rel * chunk, n);
  const rel = toRel(rank, root, size);
  const node = binomialNode(rel, size);
  s.round();
  if (node.parent >= 0) s.recv(buf.subarray(at(rel), at(rel + node.span)), toAbs(node.parent, root, size));
  s.round();
  for (const child of node.children) {
    const span = binomialNode(child, size).span;
    s.send(buf.subarray(at(child), at(child + span)), toAbs(child, root, size));
  }
  const off: number[] = [];
  const len: number[] = [];
  for (let r = 0; r < size; r++) {
    const q = toRel(r, root, size);
    off.push(at(q));
    len.push(at(q + 1) - at(q));
  }
  ringAllgather(s, buf, off, len);
}

export function bcast(c: Call, buf: unknown, root: number, nonblocking: boolean): Request | undefined {
  checkRoot(c, root);
  if (!nonblocking && choice === 'auto' && bcastSmall(c, buf, root)) return undefined;
  const d = decode(c, buf, 'buf');
  if (!nonblocking && choice === 'auto' && smallBcast(c, d.bytes, root)) return unpackReceived(c);
  const s = newSchedule(c);
  let algo = choice;
  if (algo === 'auto') {
    const n = d.bytes.length;
    algo = n >= pcastMin && c.core.size > 2 ? 'pcast' : n >= large && c.core.size > 2 ? 'scatter_allgather' : 'binomial';
  }
  traceAlgorithm(s, 'bcast', algo, d.bytes.length);
  if (algo === 'pcast') bcastPcast(s, d.bytes, root);
  else if (algo === 'scatter_allgather') bcastScatterAllgather(s, d.bytes, root);
  else if (algo === 'linear') bcastLinear(s, d.bytes, root);
  else bcastBinomial(s, d.bytes, root);
  return execute(c, s, nonblocking);
}
