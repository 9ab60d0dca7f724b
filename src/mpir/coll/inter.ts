import { PROC_NULL, ROOT } from '../constants.js';
import type { CommCore } from '../comm.js';
import { ErrorClass } from '../error-classes.js';
import type { Request } from '../request.js';
import { bcastBinomial, gatherBinomial } from './blocks.js';
import { describe } from '../buffer.js';
import {
  type Call, checkOp, type Decoded, decode, decodeV, decodeW, execute, fail, intList, isInPlace, Schedule,
} from './common.js';
import { type Reduction, reduceBinomial } from './reduce.js';
import { nextCollTag } from './schedule.js';

/**
 * Collectives on intercommunicators (MPI-3.1 §5.2.2): every call involves both groups.
 *
 * Rooted calls: in the root's group the root passes MPI.ROOT and the others MPI.PROC_NULL (they
 * take no part); the other group passes the root's rank in the remote group. Data flows
 * between the groups only: Bcast sends the root's buffer to the other group, Gather collects
 * the other group's blocks at the root, Reduce the reduction over the other group. All-to-all
 * calls: each group receives what the other group contributed (Allgather: the remote group's
 * blocks; Allreduce: the reduction over the remote group; Reduce_scatter: the remote group's
 * reduction scattered over this group).
 *
 * Shape: a phase inside a group runs the intracommunicator algorithms on the group's own
 * collective context (`local`: the intercommunicator's context + 2, reserved when it was made),
 * and the leaders (rank 0 of each group) exchange across on the intercommunicator's collective
 * context; the rooted calls send straight between the root and the other group's leader.
 * Allgather and the all-to-all family pair every process with every remote process directly.
 * MPI.IN_PLACE does not exist for intercommunicators (MPI-3.1 §5.2.2): ERR_BUFFER.
 */
export interface InterCall extends Call {
  /** This group as a core whose collective context is the intercommunicator's own-group one. */
  readonly local: CommCore;
}

function schedule(c: InterCall): Schedule {
  return new Schedule(c.local, c.world.engine, nextCollTag(c.core), `${c.comm.Get_name()}.${c.name}`);
}

function noInPlace(c: InterCall, buf: unknown, what: string): void {
  if (isInPlace(buf)) fail(c, ErrorClass.ERR_BUFFER, `${what}: MPI.IN_PLACE is not allowed on an intercommunicator`);
}

type Role = 'root' | 'idle' | 'other';

/** Which part this process plays in a rooted call, from its root argument. */
function roleOf(c: InterCall, root: number): Role {
  if (root === ROOT) return 'root';
  if (root === PROC_NULL) return 'idle';
  if (Number.isInteger(root) && root >= 0 && root < c.core.size) return 'other';
  return fail(c, ErrorClass.ERR_ROOT, `root ${typeof root === 'number' ? root : describe(root)} is invalid on an intercommunicator: MPI.ROOT at the root, ` +
    `MPI.PROC_NULL in the rest of its group, the root's rank (0..${c.core.size - 1}) in the other group`);
}

export function interBarrier(c: InterCall, nonblocking: boolean): Request | undefined {
  const s = schedule(c);
  const token = new Uint8Array(0);
  const { rank, size } = c.local;
  s.round();
  if (rank === 0) for (let r = 1; r < size; r++) s.recv(token, r);
  else s.send(token, 0);
  if (rank === 0) s.round().sendVia(c.core, token, 0).recvVia(c.core, new Uint8Array(0), 0);
  bcastBinomial(s, token, 0);
  return execute(c, s, nonblocking);
}

export function interBcast(c: InterCall, buf: unknown, root: number, nonblocking: boolean): Request | undefined {
  const role = roleOf(c, root);
  const s = schedule(c);
  if (role === 'root') s.round().sendVia(c.core, decode(c, buf, 'buf').bytes, 0);
  else if (role === 'other') {
    const bytes = decode(c, buf, 'buf').bytes;
    if (c.local.rank === 0) s.round().recvVia(c.core, bytes, root);
    bcastBinomial(s, bytes, 0);
  }
  return execute(c, s, nonblocking);
}

export function interGather(c: InterCall, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  const role = roleOf(c, root);
  const s = schedule(c);
  if (role === 'root') {
    const out = decode(c, recvbuf, 'recvbuf').bytes;
    if (out.length % c.core.size !== 0) {
      fail(c, ErrorClass.ERR_COUNT, `recvbuf of ${out.length} bytes does not split into the remote group's ${c.core.size} blocks`);
    }
    s.round().recvVia(c.core, out, 0);
  } else if (role === 'other') {
    noInPlace(c, sendbuf, 'sendbuf');
    const mine = decode(c, sendbuf, 'sendbuf').bytes;
    const all = new Uint8Array(c.local.rank === 0 ? mine.length * c.local.size : 0);
    gatherBinomial(s, mine, all, mine.length, 0);
    if (c.local.rank === 0) s.round().sendVia(c.core, all, root);
  }
  return execute(c, s, nonblocking);
}

export function interGatherv(c: InterCall, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  const role = roleOf(c, root);
  const s = schedule(c).round();
  if (role === 'root') {
    const v = decodeV(c, recvbuf, 'recvbuf', c.core.size);
    const es = v.datatype.size;
    for (let r = 0; r < c.core.size; r++) {
      s.recvVia(c.core, v.data.subarray(v.displs[r]! * es, (v.displs[r]! + v.counts[r]!) * es), r);
    }
  } else if (role === 'other') {
    noInPlace(c, sendbuf, 'sendbuf');
    s.sendVia(c.core, decode(c, sendbuf, 'sendbuf').bytes, root);
  }
  return execute(c, s, nonblocking);
}

export function interScatter(c: InterCall, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  const role = roleOf(c, root);
  const s = schedule(c);
  if (role === 'root') {
    const inp = decode(c, sendbuf, 'sendbuf').bytes;
    if (inp.length % c.core.size !== 0) {
      fail(c, ErrorClass.ERR_COUNT, `sendbuf of ${inp.length} bytes does not split into the remote group's ${c.core.size} blocks`);
    }
    s.round().sendVia(c.core, inp, 0);
  } else if (role === 'other') {
    noInPlace(c, recvbuf, 'recvbuf');
    const mine = decode(c, recvbuf, 'recvbuf').bytes;
    const bb = mine.length;
    const { rank, size } = c.local;
    if (rank === 0) {
      const all = new Uint8Array(bb * size);
      s.round().recvVia(c.core, all, root);
      s.round();
      for (let r = 1; r < size; r++) s.send(all.subarray(r * bb, (r + 1) * bb), r);
      s.local(() => mine.set(all.subarray(0, bb)));
    } else s.round().recv(mine, 0);
  }
  return execute(c, s, nonblocking);
}

export function interScatterv(c: InterCall, sendbuf: unknown, recvbuf: unknown, root: number, nonblocking: boolean): Request | undefined {
  const role = roleOf(c, root);
  const s = schedule(c).round();
  if (role === 'root') {
    const v = decodeV(c, sendbuf, 'sendbuf', c.core.size);
    const es = v.datatype.size;
    for (let r = 0; r < c.core.size; r++) {
      s.sendVia(c.core, v.data.subarray(v.displs[r]! * es, (v.displs[r]! + v.counts[r]!) * es), r);
    }
  } else if (role === 'other') {
    noInPlace(c, recvbuf, 'recvbuf');
    s.recvVia(c.core, decode(c, recvbuf, 'recvbuf').bytes, root);
  }
  return execute(c, s, nonblocking);
}

/** The reduction over this group, left at local rank 0 in the returned buffer (empty elsewhere). */
function reduceToLeader(c: InterCall, s: Schedule, sendbuf: unknown, op: unknown): { result: Uint8Array; red: Reduction } {
  noInPlace(c, sendbuf, 'sendbuf');
  const send = decode(c, sendbuf, 'sendbuf');
  const red: Reduction = { op: checkOp(c, op, send.datatype), count: send.count, datatype: send.datatype };
  const result = new Uint8Array(c.local.rank === 0 ? send.bytes.length : 0);
  const acc = new Uint8Array(send.bytes.length);
  s.prepare(() => acc.set(send.bytes));
  reduceBinomial(s, acc, result, red, 0);
  return { result, red };
}

export function interReduce(c: InterCall, sendbuf: unknown, recvbuf: unknown, op: unknown, root: number,
                            nonblocking: boolean): Request | undefined {
  const role = roleOf(c, root);
  const s = schedule(c);
  if (role === 'root') s.round().recvVia(c.core, decode(c, recvbuf, 'recvbuf').bytes, 0);
  else if (role === 'other') {
    const { result } = reduceToLeader(c, s, sendbuf, op);
    if (c.local.rank === 0) s.round().sendVia(c.core, result, root);
  }
  return execute(c, s, nonblocking);
}

export function interAllreduce(c: InterCall, sendbuf: unknown, recvbuf: unknown, op: unknown, nonblocking: boolean): Request | undefined {
  const s = schedule(c);
  const { result } = reduceToLeader(c, s, sendbuf, op);
  noInPlace(c, recvbuf, 'recvbuf');
  const out = decode(c, recvbuf, 'recvbuf').bytes;
  if (c.local.rank === 0) s.round().sendVia(c.core, result, 0).recvVia(c.core, out, 0);
  bcastBinomial(s, out, 0);
  return execute(c, s, nonblocking);
}

/** The remote group's reduction, scattered over this group by `counts` (elements per local rank). */
function interReduceScatterRun(c: InterCall, sendbuf: unknown, recv: Decoded, counts: number[], op: unknown,
                               nonblocking: boolean): Request | undefined {
  const s = schedule(c);
  const { result, red } = reduceToLeader(c, s, sendbuf, op);
  const es = red.datatype.size;
  const { rank, size } = c.local;
  if (recv.count < counts[rank]!) fail(c, ErrorClass.ERR_COUNT, `recvbuf has ${recv.count} elements, this rank's block has ${counts[rank]}`);
  const mine = recv.bytes.subarray(0, counts[rank]! * es);
  if (rank === 0) {
    const total = counts.reduce((a, b) => a + b, 0);
    const theirs = new Uint8Array(total * es);
    s.round().sendVia(c.core, result, 0).recvVia(c.core, theirs, 0);
    s.round();
    let at = counts[0]! * es;
    for (let r = 1; r < size; r++) {
      s.send(theirs.subarray(at, at + counts[r]! * es), r);
      at += counts[r]! * es;
    }
    s.local(() => mine.set(theirs.subarray(0, mine.length)));
  } else s.round().recv(mine, 0);
  return execute(c, s, nonblocking);
}

export function interReduceScatterBlock(c: InterCall, sendbuf: unknown, recvbuf: unknown, op: unknown,
                                        nonblocking: boolean): Request | undefined {
  noInPlace(c, recvbuf, 'recvbuf');
  const recv = decode(c, recvbuf, 'recvbuf');
  return interReduceScatterRun(c, sendbuf, recv, new Array<number>(c.local.size).fill(recv.count), op, nonblocking);
}

export function interReduceScatter(c: InterCall, sendbuf: unknown, recvbuf: unknown, recvcounts: unknown, op: unknown,
                                   nonblocking: boolean): Request | undefined {
  noInPlace(c, recvbuf, 'recvbuf');
  const counts = intList(c, recvcounts, 'recvcounts', c.local.size);
  return interReduceScatterRun(c, sendbuf, decode(c, recvbuf, 'recvbuf'), counts, op, nonblocking);
}

/** Every process sends `send(r)` to remote rank r and receives `recv(r)` from it, in one round. */
function pairwise(c: InterCall, send: (r: number) => Uint8Array, recv: (r: number) => Uint8Array, nonblocking: boolean): Request | undefined {
  const s = schedule(c).round();
  for (let r = 0; r < c.core.size; r++) s.recvVia(c.core, recv(r), r);
  for (let r = 0; r < c.core.size; r++) s.sendVia(c.core, send(r), r);
  return execute(c, s, nonblocking);
}

function splitEven(c: InterCall, bytes: Uint8Array, what: string): (r: number) => Uint8Array {
  const n = c.core.size;
  if (bytes.length % n !== 0) fail(c, ErrorClass.ERR_COUNT, `${what} of ${bytes.length} bytes does not split into the remote group's ${n} blocks`);
  const bb = bytes.length / n;
  return (r) => bytes.subarray(r * bb, (r + 1) * bb);
}

export function interAllgather(c: InterCall, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  noInPlace(c, sendbuf, 'sendbuf');
  const mine = decode(c, sendbuf, 'sendbuf').bytes;
  const recv = splitEven(c, decode(c, recvbuf, 'recvbuf').bytes, 'recvbuf');
  return pairwise(c, () => mine, recv, nonblocking);
}

export function interAllgatherv(c: InterCall, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  noInPlace(c, sendbuf, 'sendbuf');
  const mine = decode(c, sendbuf, 'sendbuf').bytes;
  const v = decodeV(c, recvbuf, 'recvbuf', c.core.size);
  const es = v.datatype.size;
  return pairwise(c, () => mine, (r) => v.data.subarray(v.displs[r]! * es, (v.displs[r]! + v.counts[r]!) * es), nonblocking);
}

export function interAlltoall(c: InterCall, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  noInPlace(c, sendbuf, 'sendbuf');
  const send = splitEven(c, decode(c, sendbuf, 'sendbuf').bytes, 'sendbuf');
  const recv = splitEven(c, decode(c, recvbuf, 'recvbuf').bytes, 'recvbuf');
  return pairwise(c, send, recv, nonblocking);
}

export function interAlltoallv(c: InterCall, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  noInPlace(c, sendbuf, 'sendbuf');
  const sv = decodeV(c, sendbuf, 'sendbuf', c.core.size);
  const rv = decodeV(c, recvbuf, 'recvbuf', c.core.size);
  const block = (v: typeof sv, r: number) => v.data.subarray(v.displs[r]! * v.datatype.size, (v.displs[r]! + v.counts[r]!) * v.datatype.size);
  return pairwise(c, (r) => block(sv, r), (r) => block(rv, r), nonblocking);
}

export function interAlltoallw(c: InterCall, sendbuf: unknown, recvbuf: unknown, nonblocking: boolean): Request | undefined {
  noInPlace(c, sendbuf, 'sendbuf');
  const sw = decodeW(c, sendbuf, 'sendbuf', c.core.size);
  const rw = decodeW(c, recvbuf, 'recvbuf', c.core.size);
  return pairwise(c, (r) => sw.data.subarray(sw.off[r]!, sw.off[r]! + sw.len[r]!),
    (r) => rw.data.subarray(rw.off[r]!, rw.off[r]! + rw.len[r]!), nonblocking);
}
