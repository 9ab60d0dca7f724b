/**
 * Idup: the communicator comes at once and is refused until its request completes; then it
 * has the parent's members, class, topology, attributes and error handler on a context of its
 * own that every member agreed on. Many Idups are in flight at once, on several communicators,
 * started in a different order on different ranks, while blocking Dup and Split make
 * communicators meanwhile; ranks start from different places in Idup's id range (a different
 * number of Idups of COMM_SELF each), so the first candidate is often not free everywhere and
 * the agreement has to try again. Then every communicator made carries a message with the same
 * tag, received in the opposite order: none may match another's.
 */
import { type Cartcomm, type Comm, type Info, type Intercomm, MPI, type Request } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
world.Set_errhandler(MPI.ERRORS_RETURN);

const ctxOf = (c: Comm): number => Number(/#(-?\d+)$/.exec(c.Get_name())?.[1] ?? NaN);

// 1. Before the request completes the communicator is refused. Rank 0 starts first and the
// others only after its check, so its Idup cannot have completed.
{
  let dup: Comm;
  let req: Request;
  if (rank === 0) {
    [dup, req] = world.Idup();
    // Alone, the agreement has nobody to wait for and completes within the call.
    if (size > 1) {
      t.throws(() => dup.Get_rank(), MPI.ERR_COMM, /Idup.*usable once its request completes/, 'a pending Idup communicator');
      t.throws(() => dup.Idup(), MPI.ERR_COMM, /usable once/, 'Idup of a pending Idup communicator');
    }
    for (let r = 1; r < size; r++) world.send('go', r, 3);
  } else {
    world.recv(0, 3);
    [dup, req] = world.Idup();
  }
  req.Wait();
  t.equal(dup.rank, rank, 'rank in the Idup communicator');
  t.equal(dup.size, size, 'size of the Idup communicator');
  t.equal(dup.Compare(world), MPI.CONGRUENT, 'Compare(idup, world)');
  t.equal(dup.Get_errhandler(), MPI.ERRORS_RETURN, 'the error handler is inherited');
  const names = world.allgather(dup.Get_name());
  t.check(names.every((n) => n === names[0]), `every member has the same context id: ${names.join(', ')}`);
  t.check(ctxOf(dup) >= 2 ** 30, `the id ${ctxOf(dup)} is in Idup's range`);
  t.throws(() => req.Cancel(), MPI.ERR_REQUEST, /cannot be cancelled/, 'Cancel of an Idup request');
  dup.Free();
}

// 2. Ranks start at different places in Idup's range.
for (let i = 0; i < rank; i++) {
  const [self, req] = MPI.COMM_SELF.Idup();
  req.Wait();
  t.equal(self.size, 1, 'Idup of COMM_SELF');
  self.Free();
}

// 3. Many at once: Idups of world, of a Split half and of a Dup, in an order that depends on the
// rank (each communicator sees its Idups in the same order everywhere), with a blocking Dup and
// Split in the middle and awaited requests.
const half = world.Split(rank % 2, -rank);
const copy = world.Dup();
// Each communicator made, under a key that orders them the same on every rank.
const byKey = new Map<string, Comm>();
const reqs: Request[] = [];
const start = (key: string, c: Comm, info?: Info): void => {
  const [d, r] = info === undefined ? c.Idup() : c.Idup_with_info(info);
  byKey.set(key, d);
  reqs.push(r);
};
const info = MPI.Info.Create();
info.Set('mpi_assert_no_any_tag', 'true');
for (let round = 0; round < 6; round++) {
  const order = (rank + round) % 3;
  const parents = order === 0 ? [world, half, copy] : order === 1 ? [copy, world, half] : [half, copy, world];
  for (const p of parents) {
    const which = p === world ? 'a-world' : p === half ? 'b-half' : 'c-copy';
    start(`${round}-${which}`, p, round === 2 && p === copy ? info : undefined);
  }
  if (round === 3) {
    byKey.set('3-d-dup', world.Dup());
    byKey.set('3-e-split', world.Split(0, rank));
    reqs.push(world.Ibarrier());
  }
}
await Promise.all(reqs.slice(0, 3));
MPI.Request.Waitall(reqs);
const made = [...byKey.keys()].sort().map((k) => byKey.get(k)!);
t.equal(made.length, 20, 'communicators made');
const mine = made.map(ctxOf);
t.equal(new Set(mine).size, mine.length, `every communicator has its own context here: ${mine.join(', ')}`);
const withInfo = made.find((c) => c.Get_info().Get('mpi_assert_no_any_tag') === 'true');
t.check(withInfo !== undefined, 'Idup_with_info passes its hints on');
// Every member of each communicator agreed on its id.
for (const c of made) {
  const all: number[] = c.allgather(ctxOf(c));
  t.check(all.every((x) => x === all[0]), `members of ${c.Get_name()} agree: ${all.join(', ')}`);
}
// The same tag on every communicator, received in the opposite order, from the right neighbour.
{
  const sends = made.map((c, i) => c.Isend(Int32Array.of(i * 1000 + c.rank), (c.rank + 1) % c.size, 9));
  for (let i = made.length - 1; i >= 0; i--) {
    const c = made[i]!;
    const got = new Int32Array(1);
    c.Recv(got, MPI.ANY_SOURCE, 9);
    t.equal(got[0], i * 1000 + (c.rank - 1 + c.size) % c.size, `the message on communicator ${i}`);
  }
  MPI.Request.Waitall(sends);
}
for (const c of made) c.Free();

// 4. Many in flight on one communicator, completed out of order.
{
  const pairs = Array.from({ length: 40 }, () => world.Idup());
  for (let i = pairs.length - 1; i >= 0; i--) pairs[i]![1].Wait();
  const sums = pairs.map(([c], i) => c.allreduce(i + rank));
  t.check(sums.every((s, i) => s === i * size + (size * (size - 1)) / 2), 'an allreduce on each of 40 Idups');
  for (const [c] of pairs) c.Free();
}

// 5. The class and what comes with it: a Cartcomm keeps its grid, attributes go through copy_fn.
{
  const cart = world.Create_cart([size], [true]);
  const key = MPI.Comm.Create_keyval((_old, _k, v) => (v as number) + 1);
  cart.Set_attr(key, 41);
  const [dup, req] = cart.Idup();
  req.Wait();
  t.check(dup instanceof MPI.Cartcomm, 'Idup of a Cartcomm is a Cartcomm');
  t.equal((dup as Cartcomm).Get_topo()[0].join(), String(size), 'the grid');
  t.equal((dup as Cartcomm).Shift(0, 1).join(), cart.Shift(0, 1).join(), 'Shift on the Idup grid');
  t.equal(dup.Get_attr(key), 42, 'the attribute went through copy_fn');
  dup.Free();
  cart.Free();
  MPI.Comm.Free_keyval(key);
}

// 6. An intercommunicator: both groups agree, messages cross.
if (size >= 2) {
  const low = rank < size / 2 ? 1 : 0;
  const local = world.Split(low, rank);
  const inter = local.Create_intercomm(0, world, low ? Math.ceil(size / 2) : 0, 77);
  const [dup, req] = inter.Idup();
  await req;
  t.check(dup instanceof MPI.Intercomm, 'Idup of an Intercomm is an Intercomm');
  t.equal((dup as Intercomm).Get_remote_size(), inter.Get_remote_size(), 'remote size');
  const remote = (dup as Intercomm).Get_remote_size();
  const sent = Array.from({ length: remote }, (_, r) => dup.Isend(Int32Array.of(rank), r, 5));
  for (let i = 0; i < remote; i++) {
    const got = new Int32Array(1);
    dup.Recv(got, MPI.ANY_SOURCE, 5);
    t.check(got[0]! >= 0 && got[0]! < size && (got[0]! < size / 2 ? 1 : 0) !== low, `a message from the other group (${got[0]})`);
  }
  MPI.Request.Waitall(sent);
  const names = world.allgather(dup.Get_name());
  t.check(names.every((n) => n === names[0]), `both groups agree on the id: ${names.join(', ')}`);
  dup.Barrier();
  dup.Free();
  inter.Free();
  local.Free();
}

// 7. Bad input, under ERRORS_RETURN; then the job still communicates.
{
  const gone = world.Dup();
  gone.Free();
  t.throws(() => gone.Idup(), MPI.ERR_COMM, /freed/, 'Idup of a freed communicator');
  t.throws(() => world.Idup(42 as unknown as Info), MPI.ERR_INFO, /Idup.*info/, 'Idup with a bad info');
  t.throws(() => world.Idup_with_info('x' as unknown as Info), MPI.ERR_INFO, /Idup_with_info/, 'Idup_with_info with a bad info');
  t.throws(() => MPI.COMM_NULL.Idup(), MPI.ERR_COMM, /COMM_NULL/, 'Idup of COMM_NULL');
  t.equal(world.allreduce(1), size, 'world still works');
}

MPI.Finalize();
t.finish(rank);
