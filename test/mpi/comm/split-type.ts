/** Split_type(MPI.COMM_TYPE_SHARED): the ranks of one node (here every rank); MPI.UNDEFINED opts out. */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const node = world.Split_type(MPI.COMM_TYPE_SHARED, size - rank);
t.equal(node.size, size, 'every rank of this job shares the node');
t.equal(node.rank, size - 1 - rank, 'ranked by key');
t.equal(node.Compare(world), size === 1 ? MPI.CONGRUENT : MPI.SIMILAR, 'Compare(node, world)');
const got = new Int32Array(1);
node.Sendrecv(Int32Array.of(rank), (node.rank + 1) % size, 0, got, MPI.ANY_SOURCE, 0);
t.equal(got[0], (rank + 1) % size, 'ring on the node communicator (reversed order)');
const keep = world.Split_type(rank === 0 ? MPI.UNDEFINED : MPI.COMM_TYPE_SHARED);
if (rank === 0) t.check(keep === MPI.COMM_NULL, 'MPI.UNDEFINED gives MPI.COMM_NULL');
else {
  t.equal(keep.size, size - 1, 'without rank 0: size');
  t.equal(keep.rank, rank - 1, 'without rank 0: rank');
  keep.Free();
}
node.Free();
MPI.Finalize();
t.finish(rank);
