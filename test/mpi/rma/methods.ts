/**
 * The access method the window layer chooses per target (src/osc/select.ts), seen through the
 * window: from the memory capabilities of the device that reaches each target. Win.Allocate
 * and Allocate_shared on one node: direct with CPU atomics for everyone; Win.Allocate across
 * SCI nodes: direct with CPU atomics for the ranks of our node (ch_shmem), direct with the
 * part's mutex for the others (ch_sci has no remote atomics), or their agent for updates under
 * TSMPI_RMA_LOCK_POLICY=cpu; Win.Create on process memory: the agent. TSMPI_RMA_METHOD=emulated
 * and gather override it. Then every rank accumulates into every other rank's Allocate window
 * by its method and the sums are checked, so a wrong choice that still ran would show too.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

// src/osc/select.ts's codes.
const DIRECT = 0;
const AGENT = 1;
const GATHERED = 2;
const CPU = 0;
const MUTEX = 1;
const BY_AGENT = 2;

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const method = process.env.TSMPI_RMA_METHOD ?? 'auto';
const policy = process.env.TSMPI_RMA_LOCK_POLICY ?? 'migrate';
const forcedSci = process.env.TSMPI_DEVICE === 'sci';
const node = comm.Split_type(MPI.COMM_TYPE_SHARED);
// Which world ranks share our node: our node communicator's members, by world rank.
const mine = new Set(node.allgather(rank) as number[]);
type Method = { readonly access: number; readonly updates: number };
type Win = ReturnType<typeof MPI.Win.Allocate>;
const methodOf = (w: Win, r: number): Method => (w as unknown as { methodOf(r: number): Method }).methodOf(r);

function expected(kind: 'allocate' | 'create' | 'shared', r: number): Method {
  if (method === 'emulated') return { access: AGENT, updates: BY_AGENT };
  if (method === 'gather') return { access: GATHERED, updates: BY_AGENT };
  if (kind === 'create') return { access: AGENT, updates: BY_AGENT };
  // A node segment, or exported memory of a rank of our node (when messages to it use shared memory).
  if (kind === 'shared' || mine.size === size || (mine.has(r) && !forcedSci)) return { access: DIRECT, updates: CPU };
  return { access: DIRECT, updates: policy === 'cpu' ? BY_AGENT : MUTEX };
}

const allocate = MPI.Win.Allocate(8 * size, 8, MPI.INFO_NULL, comm);
const create = MPI.Win.Create(new Float64Array(size), 8, MPI.INFO_NULL, comm);
const shared = MPI.Win.Allocate_shared(8, 8, MPI.INFO_NULL, node);
for (let r = 0; r < size; r++) {
  for (const [kind, w] of [['allocate', allocate], ['create', create]] as const) {
    const got = methodOf(w, r);
    const want = expected(kind, r);
    t.equal(got.access, want.access, `${kind} window, target ${r}: access method`);
    t.equal(got.updates, want.updates, `${kind} window, target ${r}: updates`);
  }
}
for (let r = 0; r < node.size; r++) {
  t.equal(methodOf(shared, r).access, expected('shared', r).access, `shared window, target ${r}: access method`);
  t.equal(methodOf(shared, r).updates, expected('shared', r).updates, `shared window, target ${r}: updates`);
}

// Every rank adds rank + 1 to word `rank` of every window part, 5 times, under Lock_all.
const one = new BigInt64Array(1);
allocate.Lock_all();
for (let k = 0; k < 5; k++) {
  for (let r = 0; r < size; r++) {
    one[0] = BigInt(rank + 1);
    allocate.Accumulate(one, r, [rank, 1, MPI.INT64_T], MPI.SUM);
  }
}
allocate.Unlock_all();
comm.Barrier();
const memory = allocate.tomemory() as Uint8Array;
const part = new BigInt64Array(memory.buffer, memory.byteOffset, size);
allocate.Lock(rank, MPI.LOCK_SHARED);
for (let r = 0; r < size; r++) t.equal(Atomics.load(part, r), BigInt(5 * (r + 1)), `word ${r} of our part`);
allocate.Unlock(rank);

shared.Free();
create.Free();
allocate.Free();
node.Free();
MPI.Finalize();
t.finish(rank);
