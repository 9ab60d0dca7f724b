import v8 from 'node:v8';
import type { Comm } from '../comm.js';
import { Datatypes } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { type Op, type ValueFunction, reduceValues } from '../op.js';

/**
 * The lower-case collectives on any structured-clonable JS value (node:v8 serializer), as
 * mpi4py's: sizes travel first through the buffer collective of the same family, then the
 * bytes through its v-variant. Reductions gather the values and fold them in rank order, so
 * a JS function need not be commutative.
 */

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
    out.push(v8.deserialize(buf.subarray(at, at + n)));
    at += n;
  }
  return out;
}

export function bcastObject(comm: Comm, obj: unknown, root: number): unknown {
  const isRoot = comm.rank === root;
  const data = isRoot ? v8.serialize(obj) : null;
  const n = Int32Array.of(data?.length ?? 0);
  comm.Bcast(n, root);
  const buf = data ?? new Uint8Array(n[0]!);
  comm.Bcast(buf, root);
  return isRoot ? obj : v8.deserialize(buf);
}

export function gatherObject(comm: Comm, obj: unknown, root: number): unknown[] | null {
  const data = v8.serialize(obj);
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
      comm.fail('scatter', ErrorClass.ERR_ARG, `the root must pass an array of ${comm.size} values (one per rank)`);
    }
    const parts = objs.map((o) => v8.serialize(o));
    sizes = Int32Array.from(parts, (p) => p.length);
    all = Buffer.concat(parts);
  }
  const n = new Int32Array(1);
  comm.Scatter(isRoot ? sizes : null, n, root);
  const buf = new Uint8Array(n[0]!);
  comm.Scatterv(isRoot ? [all, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE] : null, buf, root);
  return v8.deserialize(buf);
}

export function allgatherObject(comm: Comm, obj: unknown): unknown[] {
  const data = v8.serialize(obj);
  const sizes = new Int32Array(comm.size);
  comm.Allgather(Int32Array.of(data.length), sizes);
  const buf = new Uint8Array(total(sizes));
  comm.Allgatherv(data, [buf, [sizes, sizesAndDispls(sizes)], Datatypes.BYTE]);
  return split(buf, sizes);
}

export function alltoallObject(comm: Comm, objs: unknown): unknown[] {
  if (!Array.isArray(objs) || objs.length !== comm.size) {
    comm.fail('alltoall', ErrorClass.ERR_ARG, `pass an array of ${comm.size} values (one per rank)`);
  }
  const parts = objs.map((o) => v8.serialize(o));
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
  const all = gatherObject(comm, obj, root);
  return all === null ? null : fold(all, all.length, op);
}

export function allreduceObject(comm: Comm, obj: unknown, op: Op | ValueFunction): unknown {
  const all = allgatherObject(comm, obj);
  return fold(all, all.length, op);
}

export function scanObject(comm: Comm, obj: unknown, op: Op | ValueFunction): unknown {
  return fold(allgatherObject(comm, obj), comm.rank + 1, op);
}

export function exscanObject(comm: Comm, obj: unknown, op: Op | ValueFunction): unknown {
  const all = allgatherObject(comm, obj);
  return comm.rank === 0 ? null : fold(all, comm.rank, op);
}
