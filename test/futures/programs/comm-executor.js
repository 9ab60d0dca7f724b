// MPICommExecutor in a program started without --import: `tsmpiexec -n N node comm-executor.js
// <root>`. Every rank calls it; the root computes with the others as workers and prints
// `ok root ...`; the workers print `ok worker <rank>` once the root's shutdown released them.
// Then every rank uses COMM_WORLD again (an Allreduce) and finalizes.
import assert from 'node:assert/strict';
import { MPI } from 'tsmpi';
import { MPICommExecutor } from 'tsmpi/futures';

MPI.Init();
const world = MPI.COMM_WORLD;
const root = Number(process.argv[2] ?? 0);
const executor = await MPICommExecutor(world, root);
if (executor !== null) {
  assert.equal(world.rank, root);
  const xs = Array.from({ length: 100 }, (_, i) => i);
  assert.deepEqual(await executor.map((x) => x * x + 1, xs, { chunksize: 4 }), xs.map((x) => x * x + 1));
  const failed = executor.submit(() => { throw new TypeError('from a comm worker'); });
  await assert.rejects(failed, /from a comm worker/);
  assert.notEqual(failed.exception().rank, root);
  await executor.shutdown();
  assert.throws(() => executor.submit((x) => x, 1), /after shutdown/);
  console.log(`ok root ${root}: 100 results right on ${executor.num_workers} workers`);
} else {
  console.log(`ok worker ${world.rank}`);
}
const sum = new Int32Array(1);
world.Allreduce(Int32Array.of(1), sum, MPI.SUM);
assert.equal(sum[0], world.size);
// Bad arguments reject on every rank before anything is exchanged.
await assert.rejects(MPICommExecutor(world, world.size), (e) => e instanceof MPI.Exception && e.Get_error_class() === MPI.ERR_ROOT);
await assert.rejects(MPICommExecutor(world, 0, { max_workers: -1 }), (e) => e.Get_error_class() === MPI.ERR_ARG);
await assert.rejects(MPICommExecutor('world'), (e) => e.Get_error_class() === MPI.ERR_COMM);
MPI.Finalize();
