import { nodeV8 } from '../../common/node-v8.js';
import type { Comm } from '../comm.js';
import { Datatypes } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { Op, type ValueFunction, reduceValues } from '../op.js';
import { clonableProblem, isInt32, show } from '../validate.js';

/**
 * The lower-case collectives on any structured-clonable JS value (node:v8 serializer), as
 * mpi4py's: sizes travel first through the buffer collective of the same family, then the
 * bytes through its v-variant. Reductions gather the values and fold them in rank order, so
 * a JS function need not be commutative.
 */

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
  const isRoot = comm.rank === root;
  const data = isRoot ? serializeArg(comm, 'bcast', obj, 'obj') : null;
  const n = Int32Array.of(data?.length ?? 0);
  comm.Bcast(n, root);
  const buf = data ?? new Uint8Array(n[0]!);
  comm.Bcast(buf, root);
  return isRoot ? obj : nodeV8().deserialize(buf);
}

export function gatherObject(comm: Comm, obj: unknown, root: number, call = 'gather'): unknown[] | null {
  const data = serializeArg(comm, call, obj, 'obj');
  const isRoot = comm.rank === root;
  const sizes = new Int32Array(isRoot ? comm.size : 0);
  comm.Gather(Int32Array.of(data.length), isRoot ? sizes : null, root);
  if (!isRoot) {
    comm.Gatherv(data, null, root);
    return null;
  }
  const buf = new Uint8Array(total(sizes));
  comm.Gatherv(data, [buf, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE], root);
  return split(buf, sizes);
}

export function scatterObject(comm: Comm, objs: unknown, root: number): unknown {
  const isRoot = comm.rank === root;
  let sizes = new Int32Array(0);
  let all = new Uint8Array(0);
  if (isRoot) {
    if (!Array.isArray(objs) || objs.length !== comm.size) {
      comm.fail('scatter', ErrorClass.ERR_ARG, `objs must be an array of ${comm.size} values (one per rank) at the root, ` +
        `got ${show(objs)}`);
    }
    const parts = objs.map((o, i) => serializeArg(comm, 'scatter', o, `objs[${i}]`));
    sizes = Int32Array.from(parts, (p) => p.length);
    all = Buffer.concat(parts);
  }
  const n = new Int32Array(1);
  comm.Scatter(isRoot ? sizes : null, n, root);
  const buf = new Uint8Array(n[0]!);
  comm.Scatterv(isRoot ? [all, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE] : null, buf, root);
  return nodeV8().deserialize(buf);
}

export function allgatherObject(comm: Comm, obj: unknown, call = 'allgather'): unknown[] {
  const data = serializeArg(comm, call, obj, 'obj');
  const sizes = new Int32Array(comm.size);
  comm.Allgather(Int32Array.of(data.length), sizes);
  const buf = new Uint8Array(total(sizes));
  comm.Allgatherv(data, [buf, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE]);
  return split(buf, sizes);
}

export function alltoallObject(comm: Comm, objs: unknown): unknown[] {
  if (!Array.isArray(objs) || objs.length !== comm.size) {
    comm.fail('alltoall', ErrorClass.ERR_ARG, `objs must be an array of ${comm.size} values (one per rank), got ${show(objs)}`);
  }
  const parts = objs.map((o, i) => serializeArg(comm, 'alltoall', o, `objs[${i}]`));
  const sendSizes = Int32Array.from(parts, (p) => p.length);
  const recvSizes = new Int32Array(comm.size);
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
