/** Lower-case object forms: send/recv/isend/irecv/ssend/sendrecv/probe/iprobe of structured-clonable values. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const value = (r: number) => ({
  from: r, text: 'ünïcødé ✓'.repeat(r + 1), big: 2n ** 70n + BigInt(r), list: [1, 'two', null, [3]],
  map: new Map([[r, 'x']]), set: new Set([r, r + 1]), date: new Date(1_700_000_000_000 + r),
  floats: Float64Array.of(r, Math.PI), bytes: new Uint8Array(100_000).fill(r),
});
const check = (v: ReturnType<typeof value>, r: number, what: string) => {
  t.equal(v.from, r, `${what}: from`);
  t.equal(v.text, 'ünïcødé ✓'.repeat(r + 1), `${what}: text`);
  t.equal(v.big, 2n ** 70n + BigInt(r), `${what}: bigint`);
  t.equal(v.map.get(r), 'x', `${what}: Map`);
  t.equal(v.set.has(r + 1), true, `${what}: Set`);
  t.equal(v.date.getTime(), 1_700_000_000_000 + r, `${what}: Date`);
  t.equal(v.floats[1], Math.PI, `${what}: Float64Array`);
  t.equal(v.bytes[99_999], r, `${what}: big Uint8Array`);
};
const status = new MPI.Status();
const s = comm.isend(value(rank), right, 5);
check(comm.recv(left, 5, status) as ReturnType<typeof value>, left, 'isend/recv');
t.equal(status.Get_source(), left, 'recv status source');
s.Wait();
check(comm.sendrecv(value(rank), right, 6, left, 6) as ReturnType<typeof value>, left, 'sendrecv');
const r = comm.irecv(left, 7);
comm.ssend(value(rank), right, 7);
r.Wait();
check(r.result() as ReturnType<typeof value>, left, 'irecv/ssend');
comm.send({ small: rank }, right, 8);
comm.probe(left, 8, status);
t.check(status.Get_count() > 0, 'probe sees the serialized size');
while (!comm.iprobe(left, 8)) { /* poll */ }
t.equal((comm.recv(left, 8) as { small: number }).small, left, 'small object');
t.equal(comm.recv(MPI.PROC_NULL), null, 'recv from PROC_NULL is null');
MPI.Finalize();
t.finish(rank);
