/**
 * Many Dups stay distinct: a message on every one with the same tag, received in the reverse
 * order of creation, lands on its own communicator. Dups of dups and frees in between too.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const count = Number(process.argv[2] ?? 50);
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;

const comms = [world];
for (let i = 1; i <= count; i++) comms.push((i % 2 === 0 ? comms[i - 1]! : world).Dup());
const sends = comms.map((c, i) => c.Isend(Int32Array.of(i * 1000 + rank), right, 5));
for (let i = comms.length - 1; i >= 0; i--) {
  const x = new Int32Array(1);
  comms[i]!.Recv(x, MPI.ANY_SOURCE, 5);
  t.equal(x[0], i * 1000 + left, `communicator ${i} of ${count}`);
}
MPI.Request.Waitall(sends);
for (let i = 1; i < comms.length; i++) {
  t.equal(comms[i]!.Compare(world), MPI.CONGRUENT, `Compare(dup ${i}, world)`);
  if (i > 1) t.equal(comms[i]!.Compare(comms[i - 1]!), MPI.CONGRUENT, `Compare(dup ${i}, dup ${i - 1})`);
}

// Free every other one and make more: the new ones must not match the survivors' messages.
for (let i = 1; i < comms.length; i += 2) comms[i]!.Free();
const survivors = comms.filter((_, i) => i === 0 || i % 2 === 0);
const fresh = Array.from({ length: 10 }, () => world.Dup());
const all = [...survivors, ...fresh];
const sends2 = all.map((c, i) => c.Isend(Int32Array.of(i), right, 9));
for (let i = all.length - 1; i >= 0; i--) {
  const x = new Int32Array(1);
  all[i]!.Recv(x, left, 9);
  t.equal(x[0], i, `after frees: communicator ${i} of ${all.length}`);
}
MPI.Request.Waitall(sends2);
for (const c of all) if (c !== world) c.Free();
MPI.Finalize();
t.finish(rank);
