import { nodeV8 } from '../../common/node-v8.js';
import type { Comm } from '../comm.js';
import { PROC_NULL, ROOT } from '../constants.js';
import { Datatypes } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import type { Intercomm } from '../intercomm.js';
import { Op, type ValueFunction, reduceValues } from '../op.js';
import { clonableProblem, isInt32, show } from '../validate.js';

/**
 * The lower-case collectives on any structured-clonable JS value (node:v8 serializer), as
 * mpi4py's: sizes travel first through the buffer collective of the same family, then the
 * bytes through its v-variant. Reductions gather the values and fold them in rank order, so
 * a JS function need not be commutative.
 *
 * On an intercommunicator the same code runs over the buffer collectives of MPI-3.1 §5.2.2, as
 * mpi4py's does: a rank exchanges with the remote group (lists have its size); in a rooted call
 * the root passes MPI.ROOT, the rest of its group MPI.PROC_NULL (they take no part and get null,
 * as the root does where it only gives: bcast, scatter), and the remote group the root's rank.
 */

/** Whether this rank gives and takes in a rooted call (`rootGives`: bcast, scatter; else gather). */
interface Parts {
  readonly send: boolean;
  readonly recv: boolean;
}

function rootedParts(comm: Comm, call: string, root: number, rootGives: boolean): Parts {
  if (!comm.Is_inter()) {
    const isRoot = comm.rank === root;
    return rootGives ? { send: isRoot, recv: true } : { send: true, recv: isRoot };
  }
  if (root === ROOT) return { send: rootGives, recv: !rootGives };
  if (root === PROC_NULL) return { send: false, recv: false };
  const remote = peers(comm);
  if (!(isInt32(root) && root >= 0 && root < remote)) {
    comm.fail(call, ErrorClass.ERR_ROOT, `root ${show(root)} is neither MPI.ROOT, MPI.PROC_NULL nor a rank of the remote ` +
      `group of size ${remote} (expected 0..${remote - 1})`);
  }
  return { send: !rootGives, recv: rootGives };
}

/**
 * A buffer of a rooted call, null where this rank's part does not use it: only on an
 * intercommunicator (the root's group, MPI.PROC_NULL), whose buffer collectives accept null there.
 */
function unused<T>(buf: T | null): T {
  return buf as T;
}

/** What a list entry stands for, in an error message. */
function perRank(comm: Comm): string {
  return comm.Is_inter() ? 'rank of the remote group' : 'rank';
}

/** How many ranks a rank exchanges with: its communicator's, or an intercommunicator's remote group. */
function peers(comm: Comm): number {
  return comm.Is_inter() ? (comm as Intercomm).Get_remote_size() : comm.size;
}

/** node:v8's serialization of an argument of `call`; a value it cannot take is MPI.ERR_ARG naming the argument. */
export function serializeArg(comm: Comm, call: string, value: unknown, name: string): Buffer {
  const bad = clonableProblem(value, name);
  if (bad !== null) comm.fail(call, ErrorClass.ERR_ARG, bad);
  try {
    return nodeV8().serialize(value);
  } catch (e) {
    return comm.fail(call, ErrorClass.ERR_ARG, `${name} cannot be serialized: ${(e as Error).message}`);
  }
}

/**
 * The arguments of a lower-case collective, checked before any communication (so every rank
 * raises before the first exchange): the value, the op (an MPI.Op or a function) and the root
 * (of an intracommunicator; an intercommunicator's Bcast/Gather check theirs).
 */
export function checkObjectArgs(comm: Comm, call: string, op: unknown, root: unknown): void {
  if (op !== undefined && !(op instanceof Op && !op.isFreed) && typeof op !== 'function') {
    comm.fail(call, ErrorClass.ERR_OP, op instanceof Op ? 'op has been freed' : `op must be an MPI.Op or a function, got ${show(op)}`);
  }
  if (root !== undefined && !comm.Is_inter() && !(isInt32(root) && root >= 0 && root < comm.size)) {
    comm.fail(call, ErrorClass.ERR_ROOT, `root ${show(root)} is out of range for a communicator of size ${comm.size} ` +
      `(expected 0..${comm.size - 1})`);
  }
}

function sizesAndDispls(sizes: Int32Array): number[] {
  const displs: number[] = [];
  let at = 0;
  for (const n of sizes) {
    displs.push(at);
    at += n;
  }
  return displs;
}

function total(sizes: Int32Array): number {
  let t = 0;
  for (const n of sizes) t += n;
  return t;
}

function split(buf: Uint8Array, sizes: Int32Array): unknown[] {
  const out: unknown[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(nodeV8().deserialize(buf.subarray(at, at + n)));
    at += n;
  }
  return out;
}

export function bcastObject(comm: Comm, obj: unknown, root: number): unknown {
  const part = rootedParts(comm, 'bcast', root, true);
  const data = part.send ? serializeArg(comm, 'bcast', obj, 'obj') : null;
  const n = Int32Array.of(data?.length ?? 0);
  const takes = part.send || part.recv;
  comm.Bcast(unused(takes ? n : null), root);
  const buf = data ?? (takes ? new Uint8Array(n[0]!) : null);
  comm.Bcast(unused(buf), root);
  if (!part.recv) return null;
  return part.send ? obj : nodeV8().deserialize(buf!);
}

export function gatherObject(comm: Comm, obj: unknown, root: number, call = 'gather'): unknown[] | null {
  const part = rootedParts(comm, call, root, false);
  const data = part.send ? serializeArg(comm, call, obj, 'obj') : null;
  const sizes = new Int32Array(part.recv ? peers(comm) : 0);
  comm.Gather(unused(data === null ? null : Int32Array.of(data.length)), part.recv ? sizes : null, root);
  if (!part.recv) {
    comm.Gatherv(unused(data), null, root);
    return null;
  }
  const buf = new Uint8Array(total(sizes));
  comm.Gatherv(unused(data), [buf, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE], root);
  return split(buf, sizes);
}

export function scatterObject(comm: Comm, objs: unknown, root: number): unknown {
  const part = rootedParts(comm, 'scatter', root, true);
  let sizes: Int32Array | null = null;
  let all: Uint8Array | null = null;
  if (part.send) {
    const n = peers(comm);
    if (!Array.isArray(objs) || objs.length !== n) {
      comm.fail('scatter', ErrorClass.ERR_ARG, `objs must be an array of ${n} values (one per ${perRank(comm)}) at the root, ` +
        `got ${show(objs)}`);
    }
    const parts = objs.map((o, i) => serializeArg(comm, 'scatter', o, `objs[${i}]`));
    sizes = Int32Array.from(parts, (p) => p.length);
    all = Buffer.concat(parts);
  }
  const n = new Int32Array(1);
  comm.Scatter(sizes, unused(part.recv ? n : null), root);
  const buf = part.recv ? new Uint8Array(n[0]!) : null;
  comm.Scatterv(sizes === null ? null : [all!, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE], unused(buf), root);
  return buf === null ? null : nodeV8().deserialize(buf);
}

export function allgatherObject(comm: Comm, obj: unknown, call = 'allgather'): unknown[] {
  const data = serializeArg(comm, call, obj, 'obj');
  const sizes = new Int32Array(peers(comm));
  comm.Allgather(Int32Array.of(data.length), sizes);
  const buf = new Uint8Array(total(sizes));
  comm.Allgatherv(data, [buf, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE]);
  return split(buf, sizes);
}

export function alltoallObject(comm: Comm, objs: unknown): unknown[] {
  const n = peers(comm);
  if (!Array.isArray(objs) || objs.length !== n) {
    comm.fail('alltoall', ErrorClass.ERR_ARG, `objs must be an array of ${n} values (one per ${perRank(comm)}), got ${show(objs)}`);
  }
  const parts = objs.map((o, i) => serializeArg(comm, 'alltoall', o, `objs[${i}]`));
  const sendSizes = Int32Array.from(parts, (p) => p.length);
  const recvSizes = new Int32Array(n);
  comm.Alltoall(sendSizes, recvSizes);
  const buf = new Uint8Array(total(recvSizes));
  comm.Alltoallv([Buffer.concat(parts), [sendSizes, sizesAndDispls(sendSizes)], Datatypes.BYTE],
    [buf, [recvSizes, sizesAndDispls(recvSizes)], Datatypes.BYTE]);
  return split(buf, recvSizes);
}

function fold(values: unknown[], upto: number, op: Op | ValueFunction): unknown {
  let acc = values[0];
  for (let i = 1; i < upto; i++) acc = reduceValues(op, acc, values[i]);
  return acc;
}

export function reduceObject(comm: Comm, obj: unknown, op: Op | ValueFunction, root: number): unknown {
  const all = gatherObject(comm, obj, root, 'reduce');
  return all === null ? null : fold(all, all.length, op);
}

export function allreduceObject(comm: Comm, obj: unknown, op: Op | ValueFunction): unknown {
  const all = allgatherObject(comm, obj, 'allreduce');
  return fold(all, all.length, op);
}

export function scanObject(comm: Comm, obj: unknown, op: Op | ValueFunction): unknown {
  return fold(allgatherObject(comm, obj, 'scan'), comm.rank + 1, op);
}

export function exscanObject(comm: Comm, obj: unknown, op: Op | ValueFunction): unknown {
  const all = allgatherObject(comm, obj, 'exscan');
  return comm.rank === 0 ? null : fold(all, comm.rank, op);
}
