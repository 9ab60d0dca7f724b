import { BufferSpec, decodeBuffer } from '../buffer.js';
import type { Datatype } from '../datatype.js';
import { IN_PLACE } from '../in-place.js';
import { Op } from '../op.js';
import type { Call } from './common.js';
import { smallAllgather, smallAlltoall, smallBcast, smallReduce } from './shm-small.js';

/**
 * The way into the node cells (shm-small.ts) of the blocking small collectives, allocating
 * nothing per call: buffers decoded into two scratch specs, operands handed over as they are.
 * The general entries (bcast.ts, reduce.ts, ...) build a Decoded record per buffer, closures and
 * a reduction record, 184 B a Bcast and 736 B an Allreduce; the young generation they filled was
 * scavenged every few thousand calls, a stall the peer waited through.
 *
 * Each returns false, having changed nothing, whenever the general path must decide: an argument
 * it refuses (it then says why), a non-contiguous buffer (it packs), data larger than a cell, a
 * communicator without cells.
 */

const specs = [new BufferSpec(), new BufferSpec()] as const;
const NO_OUTPUT = new Uint8Array(0);

/** `buf` decoded into scratch spec `slot` when it is valid and contiguous (valid until that slot is used again), else null. */
function contiguous(buf: unknown, slot: 0 | 1): BufferSpec | null {
  const spec = specs[slot];
  return decodeBuffer(buf, spec, 'direct') && spec.packed === null ? spec : null;
}

function usableOp(op: unknown, dt: Datatype): op is Op {
  return op instanceof Op && op.checkType(dt) === null;
}

export function bcastSmall(c: Call, buf: unknown, root: number): boolean {
  const d = contiguous(buf, 0);
  return d !== null && smallBcast(c, d.bytes, root);
}

/** Allreduce (`root` < 0) or Reduce to `root`, as reduce.ts and allreduce.ts check them. */
export function reduceSmall(c: Call, sendbuf: unknown, recvbuf: unknown, op: unknown, root: number): boolean {
  let out: Uint8Array = NO_OUTPUT;
  let ref: BufferSpec;
  if (root < 0 || c.core.rank === root) {
    const recv = contiguous(recvbuf, 0);
    if (recv === null) return false;
    out = recv.bytes;
    ref = recv;
    if (sendbuf !== IN_PLACE) {
      const send = contiguous(sendbuf, 1);
      if (send === null || send.datatype !== recv.datatype || send.count !== recv.count) return false;
      ref = send;
    }
  } else {
    if (sendbuf === IN_PLACE) return false;
    const send = contiguous(sendbuf, 1);
    if (send === null) return false;
    ref = send;
  }
  return usableOp(op, ref.datatype) && smallReduce(c, ref.bytes, out, op, ref.count, ref.datatype, root);
}

export function allgatherSmall(c: Call, sendbuf: unknown, recvbuf: unknown): boolean {
  const recv = contiguous(recvbuf, 0);
  const size = c.core.size;
  if (recv === null || recv.bytes.length % size !== 0) return false;
  const block = recv.bytes.length / size;
  if (sendbuf === IN_PLACE) return smallAllgather(c, recv.bytes, c.core.rank * block, block, recv.bytes);
  const send = contiguous(sendbuf, 1);
  return send !== null && send.bytes.length === block && smallAllgather(c, send.bytes, 0, block, recv.bytes);
}

export function alltoallSmall(c: Call, sendbuf: unknown, recvbuf: unknown): boolean {
  const recv = contiguous(recvbuf, 0);
  const size = c.core.size;
  if (recv === null || recv.bytes.length % size !== 0) return false;
  if (sendbuf === IN_PLACE) return smallAlltoall(c, recv.bytes, recv.bytes, recv.bytes.length / size);
  const send = contiguous(sendbuf, 1);
  return send !== null && send.bytes.length === recv.bytes.length &&
    smallAlltoall(c, send.bytes, recv.bytes, recv.bytes.length / size);
}
