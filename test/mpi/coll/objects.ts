/** Lower-case collectives on JS values: bcast, gather, scatter, allgather, alltoall, reduce, allreduce, scan, exscan. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const same = (a: unknown, b: unknown) => JSON.stringify(a, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)) ===
  JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));

for (let root = 0; root < size; root++) {
  const v = comm.bcast(rank === root ? { root, list: [1, 'x', null], big: 2n ** 65n } : null, root);
  t.check(same(v, { root, list: [1, 'x', null], big: 2n ** 65n }), `bcast root ${root}`);
  const g = comm.gather({ r: rank, s: 'a'.repeat(rank * 1000) }, root);
  if (rank === root) t.check(same(g, Array.from({ length: size }, (_, r) => ({ r, s: 'a'.repeat(r * 1000) }))), `gather root ${root}`);
  else t.equal(g, null, 'gather non-root gets null');
  const s = comm.scatter(rank === root ? Array.from({ length: size }, (_, r) => [r, root]) : null, root);
  t.check(same(s, [rank, root]), `scatter root ${root}`);
  t.equal(comm.reduce(rank + 1, MPI.SUM, root), rank === root ? (size * (size + 1)) / 2 : null, `reduce SUM root ${root}`);
}
t.check(same(comm.allgather(`r${rank}`), Array.from({ length: size }, (_, r) => `r${r}`)), 'allgather');
t.check(same(comm.alltoall(Array.from({ length: size }, (_, r) => `${rank}->${r}`)), Array.from({ length: size }, (_, r) => `${r}->${rank}`)), 'alltoall');
t.equal(comm.allreduce(BigInt(rank) + 10n, MPI.PROD), Array.from({ length: size }, (_, r) => BigInt(r) + 10n).reduce((a, b) => a * b), 'allreduce PROD bigint');
t.equal(comm.allreduce(rank * 3 % 5, MPI.MAX), Math.max(...Array.from({ length: size }, (_, r) => r * 3 % 5)), 'allreduce MAX');
t.equal(comm.allreduce(`${rank}`, (a: string, b: string) => a + b), Array.from({ length: size }, (_, r) => `${r}`).join(''), 'allreduce with a non-commutative function');
t.check(same(comm.allreduce([rank % 2, rank], MPI.MAXLOC), [size > 1 ? 1 : 0, size > 1 ? 1 : 0]), 'allreduce MAXLOC on pairs');
t.equal(comm.scan(rank + 1, MPI.SUM), ((rank + 1) * (rank + 2)) / 2, 'scan');
t.equal(comm.exscan(rank + 1, MPI.SUM), rank === 0 ? null : (rank * (rank + 1)) / 2, 'exscan');
comm.barrier();

MPI.Finalize();
t.finish(rank);
