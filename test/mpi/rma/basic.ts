/**
 * One-sided communication through the window agent: fence epochs (a ring of Puts and Gets of
 * odd sizes, every rank accumulating into every other, MAX and REPLACE), a fetch-and-add counter
 * hammered by every rank under an exclusive lock (every fetched value unique), a
 * Compare_and_swap spin lock guarding a non-atomic read-modify-write, shared locks with Get,
 * Post/Start/Complete/Wait, Lock_all with Flush, and the epoch rules under MPI.ERRORS_RETURN
 * (operation outside an epoch, range, lock type, unlocking what is not locked, unsupported
 * window flavors), after which the window still works.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const rounds = Number(process.argv[2] ?? 50);

// 1. Fence: ring Put of an odd count, Get back from the other side, accumulates into everyone.
{
  const n = 37;
  const mem = new Float64Array(n + size + 2);
  const win = MPI.Win.Create(mem, 8, MPI.INFO_NULL, comm);
  t.equal(win.Get_attr(MPI.WIN_SIZE), mem.byteLength, 'WIN_SIZE');
  t.equal(win.Get_attr(MPI.WIN_DISP_UNIT), 8, 'WIN_DISP_UNIT');
  t.equal(win.Get_attr(MPI.WIN_CREATE_FLAVOR), MPI.WIN_FLAVOR_CREATE, 'WIN_CREATE_FLAVOR');
  const next = (rank + 1) % size;
  const prev = (rank + size - 1) % size;
  const out = Float64Array.from({ length: n }, (_, i) => rank * 1000 + i);
  win.Fence();
  win.Put(out, next);
  for (let r = 0; r < size; r++) win.Accumulate(Float64Array.of(rank + 1), r, [n + r, 1, MPI.DOUBLE], MPI.SUM);
  win.Accumulate(Float64Array.of(rank), 0, [n + size, 1, MPI.DOUBLE], MPI.MAX);
  win.Fence();
  for (let i = 0; i < n; i++) t.equal(mem[i], prev * 1000 + i, `put from ${prev}, element ${i}`);
  for (let r = 0; r < size; r++) {
    t.equal(mem[n + r], r === rank ? size * (size + 1) / 2 : 0, `slot ${r}: every rank accumulated into its owner's slot only`);
  }
  if (rank === 0) t.equal(mem[n + size], size - 1, 'MAX accumulate');
  const back = new Float64Array(n);
  win.Get(back, prev, [0, n, MPI.DOUBLE]);
  win.Fence();
  for (let i = 0; i < n; i++) t.equal(back[i], ((prev + size - 1) % size) * 1000 + i, `get from ${prev}, element ${i}`);
  win.Accumulate(Float64Array.of(-5), next, [n + size + 1, 1, MPI.DOUBLE], MPI.REPLACE);
  win.Fence(MPI.MODE_NOSUCCEED);
  t.equal(mem[n + size + 1], -5, 'REPLACE accumulate');
  win.Free();
}

// 2. A fetch-and-add counter at rank 0 under an exclusive lock: every value fetched once.
{
  const win = MPI.Win.Allocate(8, 8, MPI.INFO_NULL, comm);
  const memory = win.tomemory() as Uint8Array;
  const counter = new BigInt64Array(memory.buffer, memory.byteOffset, 1);
  const got = new BigInt64Array(rounds);
  const one = BigInt64Array.of(1n);
  const result = new BigInt64Array(1);
  for (let i = 0; i < rounds; i++) {
    win.Lock(0, MPI.LOCK_EXCLUSIVE);
    win.Fetch_and_op(one, result, 0, 0, MPI.SUM);
    win.Unlock(0);
    got[i] = result[0]!;
  }
  const all = new BigInt64Array(rounds * size);
  comm.Gather(got, all, 0);
  comm.Barrier();
  if (rank === 0) {
    t.equal(counter[0], BigInt(rounds * size), 'counter after every fetch-and-add');
    const seen = new Set(all);
    t.equal(seen.size, rounds * size, 'every fetched value is distinct');
  }
  win.Free();
}

// 3. A spin lock built on Compare_and_swap guarding a non-atomic increment (Get, add, Put).
{
  const mem = new Int32Array(2); // [lock word, counter]
  const win = MPI.Win.Create(mem, 4, MPI.INFO_NULL, comm);
  const target = size - 1;
  win.Lock_all();
  const result = new Int32Array(1);
  const value = new Int32Array(1);
  for (let i = 0; i < rounds; i++) {
    do {
      win.Compare_and_swap(Int32Array.of(rank + 1), Int32Array.of(0), result, target, 0);
      win.Flush(target);
    } while (result[0] !== 0);
    win.Get(value, target, [1, 1, MPI.INT]);
    win.Flush(target);
    win.Put(Int32Array.of(value[0]! + 1), target, [1, 1, MPI.INT]);
    win.Flush(target);
    win.Compare_and_swap(Int32Array.of(0), Int32Array.of(rank + 1), result, target, 0);
    win.Flush(target);
    t.equal(result[0], rank + 1, 'the lock word held our id until we released it');
  }
  win.Unlock_all();
  comm.Barrier();
  if (rank === target) t.equal(mem[1], rounds * size, 'increments under the CAS lock (none lost)');
  win.Free();
}

// 4. Shared locks for readers, Post/Start/Complete/Wait for a neighbour exchange.
{
  const mem = Int32Array.from({ length: 8 }, (_, i) => rank * 100 + i);
  const win = MPI.Win.Create(mem, 4, MPI.INFO_NULL, comm);
  const into = new Int32Array(8);
  for (let r = 0; r < size; r++) {
    win.Lock(r, MPI.LOCK_SHARED);
    win.Get(into, r);
    win.Unlock(r);
    t.equal(into[7], r * 100 + 7, `shared-lock Get from ${r}`);
  }
  comm.Barrier();
  const world = comm.Get_group();
  const next = (rank + 1) % size;
  const prev = (rank + size - 1) % size;
  const origins = world.Incl([prev]);
  const targets = world.Incl([next]);
  win.Post(origins);
  win.Start(targets);
  win.Put(Int32Array.of(1000 - rank), next, [3, 1, MPI.INT]);
  win.Complete();
  win.Wait();
  t.equal(mem[3], 1000 - prev, 'Put in a Post/Start epoch');
  win.Free();
}

// 5. The rules, under ERRORS_RETURN; the window stays usable.
{
  const mem = new Float64Array(4);
  const win = MPI.Win.Create(mem, 8, MPI.INFO_NULL, comm);
  win.Set_errhandler(MPI.ERRORS_RETURN);
  t.throws(() => win.Put(Float64Array.of(1), 0), MPI.ERR_RMA_SYNC, /no access epoch/, 'Put outside an epoch');
  t.throws(() => win.Unlock(0), MPI.ERR_RMA_SYNC, /not locked/, 'Unlock of an unlocked rank');
  t.throws(() => win.Lock(0, 99), MPI.ERR_LOCKTYPE, /lock type 99/, 'bad lock type');
  t.throws(() => win.Complete(), MPI.ERR_RMA_SYNC, /without a matching Start/, 'Complete without Start');
  win.Lock(0, MPI.LOCK_SHARED);
  t.throws(() => win.Put(Float64Array.of(1, 2), 0, [3, 2, MPI.DOUBLE]), MPI.ERR_RMA_RANGE, /outside rank 0's window/, 'range');
  t.throws(() => win.Lock(0), MPI.ERR_RMA_SYNC, /already locked/, 'nested Lock of one rank');
  win.Unlock(0);
  t.throws(() => win.Rput(Float64Array.of(1), 0), MPI.ERR_RMA_SYNC, /passive-target epoch/, 'Rput outside a lock epoch');
  t.throws(() => win.Shared_query(0), MPI.ERR_RMA_FLAVOR, /Allocate_shared/, 'Shared_query of a created window');
  win.Fence();
  win.Accumulate(Float64Array.of(1), 0, [0, 1, MPI.DOUBLE], MPI.SUM);
  win.Fence();
  if (rank === 0) t.equal(mem[0], size, 'the window works after the errors');
  win.Free();
  t.throws(() => win.Fence(), MPI.ERR_WIN, /freed/, 'a freed window');
}

// 7. Request-based operations in a Lock_all epoch, on a created (agent) and an allocated window.
for (const make of [() => MPI.Win.Create(new Int32Array(8), 4, MPI.INFO_NULL, comm),
  () => MPI.Win.Allocate(32, 4, MPI.INFO_NULL, comm)]) {
  const win = make();
  const next = (rank + 1) % size;
  win.Lock_all();
  const puts = [win.Rput(Int32Array.of(rank, rank + 10), next, [0, 2, MPI.INT]),
    win.Raccumulate(Int32Array.of(1), 0, [4, 1, MPI.INT], MPI.SUM)];
  MPI.Request.Waitall(puts);
  win.Flush_all();
  comm.Barrier();
  const got = new Int32Array(2);
  const old = new Int32Array(1);
  const gets = [win.Rget(got, next, [0, 2, MPI.INT]), win.Rget_accumulate(Int32Array.of(5), old, 0, [5, 1, MPI.INT], MPI.SUM)];
  MPI.Request.Waitall(gets);
  t.equal(got[0], next === 0 ? size - 1 : next - 1, 'Rget after Rput (first element)');
  t.equal(got[1], (next === 0 ? size - 1 : next - 1) + 10, 'Rget after Rput (second element)');
  t.check(old[0]! % 5 === 0 && old[0]! < 5 * size, `Rget_accumulate fetched a multiple of 5 (${old[0]})`);
  win.Unlock_all();
  comm.Barrier();
  win.Lock_all();
  const check = new Int32Array(2);
  win.Get(check, 0, [4, 2, MPI.INT]);
  win.Flush(0);
  t.equal(check[0], size, 'Raccumulate total at rank 0');
  t.equal(check[1], 5 * size, 'Rget_accumulate total at rank 0');
  win.Unlock_all();
  win.Free();
}

// 8. Dynamic windows: memory attached after creation, addressed by MPI.Get_address.
{
  const win = MPI.Win.Create_dynamic(MPI.INFO_NULL, comm);
  const mem = new Float64Array(4);
  win.Attach(mem);
  const addresses = new Float64Array(size);
  comm.Allgather(Float64Array.of(MPI.Get_address(mem)), addresses);
  const next = (rank + 1) % size;
  win.Fence();
  win.Put(Float64Array.of(rank + 0.5), next, [addresses[next]! + 8, 1, MPI.DOUBLE]);
  win.Accumulate(Float64Array.of(2), 0, [addresses[0]! + 24, 1, MPI.DOUBLE], MPI.SUM);
  win.Fence();
  const prev = (rank + size - 1) % size;
  t.equal(mem[1], prev + 0.5, 'Put into attached memory');
  if (rank === 0) t.equal(mem[3], 2 * size, 'Accumulate into attached memory');
  const got = new Float64Array(1);
  win.Get(got, next, [addresses[next]! + 8, 1, MPI.DOUBLE]);
  win.Fence();
  t.equal(got[0], rank + 0.5, 'Get from attached memory');
  win.Set_errhandler(MPI.ERRORS_RETURN);
  t.throws(() => win.Detach(new Float64Array(1)), MPI.ERR_RMA_ATTACH, /not attached/, 'Detach of memory never attached');
  t.throws(() => win.Attach(mem.subarray(1, 2)), MPI.ERR_RMA_ATTACH, /overlaps/, 'Attach of overlapping memory');
  win.Detach(mem);
  win.Free();
}

// 9. Non-contiguous origins: Put from every third double, Get into every other one; both
//    window kinds (agent and, on one node, direct).
for (const make of [() => MPI.Win.Create(new Float64Array(8), 8, MPI.INFO_NULL, comm),
  () => MPI.Win.Allocate(64, 8, MPI.INFO_NULL, comm)]) {
  const win = make();
  const memory = win.tomemory() as ArrayBufferView;
  const mine = new Float64Array(memory.buffer, memory.byteOffset, 8);
  const every3 = MPI.DOUBLE.Create_vector(4, 1, 3).Commit();
  const every2 = MPI.DOUBLE.Create_vector(4, 1, 2).Commit();
  const src = Float64Array.from({ length: 10 }, (_, i) => rank * 100 + i);
  const next = (rank + 1) % size;
  const prev = (rank + size - 1) % size;
  win.Fence();
  win.Put([src, 1, every3], next, [0, 4, MPI.DOUBLE]);
  win.Fence();
  for (let k = 0; k < 4; k++) t.equal(mine[k], prev * 100 + 3 * k, `Put from a strided origin, element ${k}`);
  const dst = new Float64Array(8).fill(-1);
  win.Get([dst, 1, every2], next, [0, 4, MPI.DOUBLE]);
  win.Fence();
  for (let k = 0; k < 8; k++) {
    t.equal(dst[k], k % 2 === 0 ? rank * 100 + 3 * (k / 2) : -1, `Get into a strided origin, element ${k}`);
  }
  every3.Free();
  every2.Free();
  win.Free();
}

// 6. Allocate_shared: every rank's part by plain loads and stores through Shared_query, and
//    Put/Get into it (direct unless TSMPI_RMA_METHOD=emulated); ERR_RMA_SHARED across nodes.
{
  const node = comm.Split_type(MPI.COMM_TYPE_SHARED);
  const nodeRank = node.rank;
  const nodeSize = node.size;
  const win = MPI.Win.Allocate_shared(8 * (nodeRank + 2), 8, MPI.INFO_NULL, node);
  const [mine, unit] = win.Shared_query(nodeRank);
  t.equal(unit, 8, 'Shared_query disp_unit');
  t.equal(mine.length, 8 * (nodeRank + 2), 'Shared_query size of our part');
  const own = new Float64Array(mine.buffer, mine.byteOffset, nodeRank + 2);
  own.fill(nodeRank + 0.5);
  node.Barrier();
  for (let r = 0; r < nodeSize; r++) {
    const [part] = win.Shared_query(r);
    const view = new Float64Array(part.buffer, part.byteOffset, r + 1);
    t.equal(view[r], r + 0.5, `rank ${r}'s part seen by plain loads`);
  }
  node.Barrier();
  win.Fence();
  const next = (nodeRank + 1) % nodeSize;
  win.Put(Float64Array.of(-nodeRank - 1), next, [0, 1, MPI.DOUBLE]);
  // Not the element of the Put: a put and an accumulate to one place in one epoch conflict.
  win.Accumulate(Float64Array.of(1), 0, [1, 1, MPI.DOUBLE], MPI.SUM);
  win.Fence();
  const got = new Float64Array(1);
  win.Get(got, next, [0, 1, MPI.DOUBLE]);
  win.Fence();
  const prevRank = (nodeRank + nodeSize - 1) % nodeSize;
  t.equal(own[0], -prevRank - 1, 'Put from the previous rank');
  if (nodeRank === 0) t.equal(own[1], 0.5 + nodeSize, 'accumulates from every rank');
  t.equal(got[0], -nodeRank - 1, 'Get from the next rank');
  win.Free();
  node.Free();
  if (comm.Split_type(MPI.COMM_TYPE_SHARED).size < size) {
    comm.Set_errhandler(MPI.ERRORS_RETURN);
    t.throws(() => MPI.Win.Allocate_shared(8, 8, MPI.INFO_NULL, comm), MPI.ERR_RMA_SHARED, /do not share memory/,
      'Allocate_shared across nodes');
    comm.Set_errhandler(MPI.ERRORS_ARE_FATAL);
  }
}

MPI.Finalize();
t.finish(rank);
