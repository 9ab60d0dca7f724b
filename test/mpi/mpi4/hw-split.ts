/**
 * Split_type by hardware on whatever hosts the job spans: COMM_TYPE_HW_GUIDED with
 * mpi_shared_memory and COMM_TYPE_SHARED give the ranks of this host; COMM_TYPE_HW_UNGUIDED
 * gives them too when the job spans several hosts (a strictly smaller part), and MPI.COMM_NULL
 * on one host. Checked against the host names every rank gathers, with keys that reverse the
 * order, and a message inside each part.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const hosts = world.allgather(MPI.Get_processor_name());
const mine = hosts.map((h, r) => (h === hosts[rank] ? r : -1)).filter((r) => r >= 0).reverse();
const spans = new Set(hosts).size > 1;

const info = MPI.Info.Create();
info.Set('mpi_hw_resource_type', 'mpi_shared_memory');
for (const [what, made] of [
  ['HW_GUIDED', world.Split_type(MPI.COMM_TYPE_HW_GUIDED, size - rank, info)],
  ['SHARED', world.Split_type(MPI.COMM_TYPE_SHARED, size - rank)],
  ['HW_UNGUIDED', world.Split_type(MPI.COMM_TYPE_HW_UNGUIDED, size - rank)],
] as const) {
  if (what === 'HW_UNGUIDED' && !spans) {
    t.equal(made, MPI.COMM_NULL, 'one host: HW_UNGUIDED has nothing smaller');
    continue;
  }
  const members = made.allgather(rank);
  t.equal(members.join(), mine.join(), `${what}: this host's ranks, highest key first`);
  if (what !== 'SHARED') t.equal(made.Get_info().Get('mpi_hw_resource_type'), 'mpi_shared_memory', `${what}: resource named`);
  const token = made.sendrecv(rank, (made.rank + 1) % made.size, 4, MPI.ANY_SOURCE, 4);
  t.equal(token, members[(made.rank + made.size - 1) % made.size], `${what}: a message inside the part`);
  made.Free();
}
MPI.Finalize();
t.finish(rank);
