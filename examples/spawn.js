// Dynamic processes: the job spawns worker processes of this same program, which find their
// parent with MPI.Comm.Get_parent; the two jobs talk over the intercommunicator Spawn returns.
//   npx tsmpiexec -n 1 node examples/spawn.js [workers]
// The parents broadcast the number of intervals, the workers integrate 4 / (1 + x^2) over
// [0, 1] (which is pi) by the midpoint rule, each its share, and their sums are reduced to the
// parents' rank 0 (MPI.ROOT on an intercommunicator: the data comes from the other group).
import { fileURLToPath } from 'node:url';
import { MPI } from 'tsmpi';

MPI.Init();
const parent = MPI.Comm.Get_parent();
if (parent === MPI.COMM_NULL) {
  const world = MPI.COMM_WORLD;
  const workers = Number(process.argv[2] ?? 3);
  const children = world.Spawn(process.execPath, [fileURLToPath(import.meta.url)], workers, MPI.INFO_NULL, 0);
  const root = world.rank === 0 ? MPI.ROOT : MPI.PROC_NULL;
  children.Bcast(Int32Array.of(1_000_000), root);
  const pi = new Float64Array(1);
  children.Reduce(null, pi, MPI.SUM, root);
  if (world.rank === 0) console.log(`pi is about ${pi[0].toFixed(10)}, from ${children.Get_remote_size()} spawned workers`);
  children.Disconnect();
} else {
  const world = MPI.COMM_WORLD;
  const n = new Int32Array(1);
  parent.Bcast(n, 0);
  const h = 1 / n[0];
  let sum = 0;
  for (let i = world.rank; i < n[0]; i += world.size) {
    const x = h * (i + 0.5);
    sum += 4 / (1 + x * x);
  }
  parent.Reduce(Float64Array.of(sum * h), null, MPI.SUM, 0);
  parent.Disconnect();
}
MPI.Finalize();
