import { COLL_PIPE_BLOCK } from '../config.js';
import type { Schedule } from './common.js';
import type { Reduction } from './reduce.js';

/**
 * SCI-MPICH's pipelined chain collectives (003c §1.6 pcast, §1.7 rpipe): the message is cut
 * into blocks of TSMPI_COLL_PIPE_BLOCK bytes (a whole number of elements) and travels along a
 * chain of ranks, every rank forwarding block k while block k + 1 arrives, so the time is
 * about one message plus (p - 1) block delays instead of log p whole messages.
 *
 * On shared memory a block of up to TSMPI_EAGER_MAX bytes is an eager message: the sender
 * writes it into the successor's eager ring (its input buffer), the successor copies it into
 * the user's buffer and forwards it from there. That is the data path of the thesis's pcast
 * (input buffer -> user buffer, forward to the next input buffer); the PCAST_READY handshake
 * is not needed because the eager ring is known in advance, and its flow control is the ring's
 * credits. A chain node's rounds post the receive of block k and the send of block k - 1
 * together.
 *
 * Research ids cited here: see docs/references.md.
 */
const blockBytes = COLL_PIPE_BLOCK.read();

/** Byte ranges of the blocks: whole elements of `es` bytes, the last one shorter. */
export function pipeBlocks(n: number, es: number): { off: number[]; len: number[] } {
  const per = Math.max(es, blockBytes - (blockBytes % es));
  const off: number[] = [];
  const len: number[] = [];
  for (let at = 0; at < n; at += per) {
    off.push(at);
    len.push(Math.min(per, n - at));
  }
  if (off.length === 0) {
    off.push(0);
    len.push(0);
  }
  return { off, len };
}

/**
 * One chain: `order` lists the ranks from head to tail. The head sends every block, the tail
 * receives every block, the others receive block k into `into(k)` and forward what `out(k)`
 * gives once `step(k)` (a local step after the receive) has run.
 */
function chain(s: Schedule, order: readonly number[], blocks: number, into: (k: number) => Uint8Array,
               out: (k: number) => Uint8Array, step: ((k: number) => void) | null): void {
  const pos = order.indexOf(s.core.rank);
  const prev = pos > 0 ? order[pos - 1]! : -1;
  const next = pos < order.length - 1 ? order[pos + 1]! : -1;
  for (let k = 0; k <= blocks; k++) {
    const receiving = prev >= 0 && k < blocks;
    const sending = next >= 0 && (prev < 0 ? k < blocks : k > 0);
    if (!receiving && !sending) continue;
    s.round();
    if (receiving) s.recv(into(k), prev);
    // The head sends block k at once; a forwarder sends block k - 1, which arrived last round.
    if (sending) s.send(out(prev < 0 ? k : k - 1), next);
    if (receiving && step !== null) {
      const kk = k;
      s.local(() => step(kk));
    }
  }
}

/** pcast: the chain root, root + 1, ..., root - 1 (mod p); `buf` holds the data at the root. */
export function bcastPcast(s: Schedule, buf: Uint8Array, root: number): void {
  const { size } = s.core;
  const order = Array.from({ length: size }, (_, i) => (root + i) % size);
  const { off, len } = pipeBlocks(buf.length, 1);
  const block = (k: number) => buf.subarray(off[k]!, off[k]! + len[k]!);
  chain(s, order, off.length, block, block, null);
}

/**
 * The chain of a pipelined reduction: for a commutative op it ends at `root` (starting at
 * root + 1), for a non-commutative one it runs 0, 1, ..., p - 1 so operands combine in rank
 * order; returns the chain and its tail.
 */
function reductionChain(size: number, root: number, commutative: boolean): number[] {
  return commutative
    ? Array.from({ length: size }, (_, i) => (root + 1 + i) % size)
    : Array.from({ length: size }, (_, i) => i);
}

/**
 * rpipe: every rank combines the partial result of block k coming from its predecessor with
 * its own block k (predecessor's operand first) and forwards it; the tail holds the result.
 * `acc` is our operand (overwritten with the running result). When `prefix` is given (scan),
 * each rank also keeps its running result there (`exclusive`: the predecessor's partial).
 * Returns the rank that ends up with the full reduction.
 */
export function reducePipeline(s: Schedule, acc: Uint8Array, red: Reduction, root: number,
                               prefix: { out: Uint8Array; exclusive: boolean } | null = null): number {
  const { rank, size } = s.core;
  const order = prefix !== null ? Array.from({ length: size }, (_, i) => i) : reductionChain(size, root, red.op.Is_commutative());
  const es = red.datatype.size;
  const { off, len } = pipeBlocks(acc.length, es);
  const tmp = [new Uint8Array(len[0]!), new Uint8Array(len[0]!)];
  const mine = (k: number) => acc.subarray(off[k]!, off[k]! + len[k]!);
  const incoming = (k: number) => tmp[k % 2]!.subarray(0, len[k]!);
  if (prefix !== null && !prefix.exclusive) s.prepare(() => prefix.out.set(acc));
  chain(s, order, off.length, incoming, mine, (k) => {
    const part = incoming(k);
    const own = mine(k);
    if (prefix !== null) {
      if (prefix.exclusive) prefix.out.set(part, off[k]!);
      else {
        const o = prefix.out.subarray(off[k]!, off[k]! + len[k]!);
        red.op.apply(part, o, len[k]! / es, red.datatype);
      }
    }
    red.op.apply(part, own, len[k]! / es, red.datatype);
  });
  void rank;
  return order[size - 1]!;
}
