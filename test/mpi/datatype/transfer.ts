/**
 * Derived datatypes over point-to-point, in a ring (each rank sends to its right, receives
 * from its left): vector, indexed, struct and subarray, at packed sizes across every protocol
 * limit, with Send/Recv, Isend/Irecv, Sendrecv and persistent requests. Every byte inside the
 * receive type's footprint must carry the sender's data; every byte outside it keeps its
 * sentinel. arg: largest packed size in MiB.
 */
import { MPI } from '../../../src/index.js';
import type { Datatype } from '../../../src/mpir/datatype.js';
import { MTest, fillPattern, protocolSizes } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const maxBytes = Math.round(Number(process.argv[2] ?? 1) * 1024 * 1024);
const SENTINEL = 0xa5;

/** Name, type, basic elements per instance. */
const types: [string, Datatype, number][] = [
  ['vector', MPI.INT.Create_vector(3, 2, 4).Commit(), 6],
  ['indexed', MPI.INT.Create_indexed([1, 3, 2], [0, 2, 7]).Commit(), 6],
  ['struct', MPI.Datatype.Create_struct([1, 3, 1], [0, 8, 24], [MPI.DOUBLE, MPI.SHORT, MPI.CHAR]).Create_resized(0, 32).Commit(), 5],
  ['subarray', MPI.DOUBLE.Create_subarray([8, 16], [4, 6], [2, 5], MPI.ORDER_C).Commit(), 24],
  ['contiguous', MPI.INT.Create_contiguous(5).Commit(), 5],
  // 003b's "triangle": the upper triangle of a 10x10 matrix of doubles, as hindexed.
  ['triangle', MPI.DOUBLE.Create_hindexed(Array.from({ length: 10 }, (_, i) => 10 - i),
    Array.from({ length: 10 }, (_, i) => (i * 10 + i) * 8)).Create_resized(0, 800).Commit(), 55],
];

/** Bytes a buffer of count instances spans, plus a tail that must stay untouched. */
const spanOf = (dt: Datatype, count: number) => Math.max(count * dt.extent, (count - 1) * dt.extent + dt.trueUb) + 16;

for (const [name, dt, elements] of types) {
  const seen = new Set<number>();
  for (const n of protocolSizes(maxBytes)) {
    const count = Math.ceil(n / dt.size);
    if (seen.has(count)) continue;
    seen.add(count);
    const len = spanOf(dt, count);
    const src = new Uint8Array(len);
    fillPattern(src, rank * 7 + count);
    // What the receiver must end up with: the left neighbour's data at the type map, sentinel elsewhere.
    const theirs = new Uint8Array(len);
    fillPattern(theirs, left * 7 + count);
    const packed = new Uint8Array(count * dt.size);
    dt.packTo(theirs, count, 0, packed.length, packed, 0);
    const expect = new Uint8Array(len).fill(SENTINEL);
    dt.unpackTo(packed, 0, count, 0, packed.length, expect);
    for (const mode of ['blocking', 'nonblocking', 'sendrecv', 'persistent'] as const) {
      const dst = new Uint8Array(len).fill(SENTINEL);
      const out = [src, count, dt] as const;
      const into = [dst, count, dt] as const;
      const status = new MPI.Status();
      if (mode === 'blocking') {
        if (rank % 2 === 0) {
          comm.Send(out, right, 1);
          comm.Recv(into, left, 1, status);
        } else {
          comm.Recv(into, left, 1, status);
          comm.Send(out, right, 1);
        }
      } else if (mode === 'nonblocking') {
        const r = comm.Irecv(into, left, 2);
        const s = comm.Isend(out, right, 2);
        s.Wait();
        r.Wait(status);
      } else if (mode === 'sendrecv') {
        comm.Sendrecv(out, right, 3, into, left, 3, status);
      } else {
        const r = comm.Recv_init(into, left, 4);
        const s = comm.Send_init(out, right, 4);
        for (let k = 0; k < 2; k++) {
          dst.fill(SENTINEL);
          MPI.Prequest.Startall([r, s]);
          MPI.Request.Waitall([r, s], [status, new MPI.Status()]);
        }
        r.Free();
        s.Free();
      }
      let bad = -1;
      for (let i = 0; i < len; i++) if (dst[i] !== expect[i]) { bad = i; break; }
      t.check(bad < 0, `${name} x ${count} (${count * dt.size} B) ${mode}: byte ${bad} is ${dst[bad]}, expected ${expect[bad]}`);
      t.equal(status.Get_count(dt), count, `${name} x ${count} ${mode}: Get_count`);
      t.equal(status.Get_elements(dt), count * elements, `${name} x ${count} ${mode}: Get_elements`);
      t.equal(status.Get_source(), left, `${name} x ${count} ${mode}: source`);
    }
  }
}
MPI.Finalize();
t.finish(rank);
