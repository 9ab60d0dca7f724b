/**
 * Intercommunicators: COMM_WORLD split into two halves (low ranks, high ranks) joined by
 * Create_intercomm; messages across in both directions, remote size and group, Dup, Barrier,
 * Merge with either group first, Free, and the errors of calls not defined there. Needs 2+ ranks.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
if (size < 2) {
  if (rank === 0) process.stdout.write('intercomm: needs at least 2 processes\n');
} else {
  const half = Math.floor(size / 2);
  const low = rank < half;
  const localGroup = low ? Array.from({ length: half }, (_, i) => i) : Array.from({ length: size - half }, (_, i) => half + i);
  const remoteGroup = low ? Array.from({ length: size - half }, (_, i) => half + i) : Array.from({ length: half }, (_, i) => i);
  const local = world.Split(low ? 0 : 1, rank);
  t.equal(world.Is_inter(), false, 'COMM_WORLD is not an intercommunicator');
  const inter = local.Create_intercomm(0, world, low ? half : 0, 77);
  t.equal(inter.Is_inter(), true, 'Is_inter');
  t.equal(inter.Is_intra(), false, 'Is_intra');
  t.equal(inter.size, localGroup.length, 'size is the local group');
  t.equal(inter.rank, localGroup.indexOf(rank), 'rank in the local group');
  t.equal(inter.Get_remote_size(), remoteGroup.length, 'Get_remote_size');
  t.equal(JSON.stringify(inter.Get_remote_group().Translate_ranks(null, world.Get_group())), JSON.stringify(remoteGroup),
    'Get_remote_group');
  t.equal(JSON.stringify(inter.Get_group().Translate_ranks(null, world.Get_group())), JSON.stringify(localGroup), 'Get_group');

  // Every process sends its world rank to each remote rank and receives one from each.
  const me = inter.rank;
  const sends = [];
  for (let r = 0; r < inter.Get_remote_size(); r++) sends.push(inter.Isend(Int32Array.of(rank, me), r, 5));
  for (let r = 0; r < inter.Get_remote_size(); r++) {
    const got = new Int32Array(2);
    const st = new MPI.Status();
    inter.Recv(got, r, 5, st);
    t.equal(got[0], remoteGroup[r], `message from remote rank ${r}: world rank`);
    t.equal(got[1], r, `message from remote rank ${r}: its local rank`);
    t.equal(st.Get_source(), r, `status source is the remote rank ${r}`);
  }
  MPI.Request.Waitall(sends);
  // Object messages and ANY_SOURCE: remote rank 0 hears from everyone of the other group.
  inter.send({ from: rank }, 0, 6);
  if (me === 0) {
    const from = new Set<number>();
    for (let i = 0; i < inter.Get_remote_size(); i++) from.add((inter.recv(MPI.ANY_SOURCE, 6) as { from: number }).from);
    t.equal(JSON.stringify([...from].sort((a, b) => a - b)), JSON.stringify(remoteGroup), 'objects from every remote rank');
  }

  // Probe, Mprobe and Sendrecv address the remote group too.
  const peer = me % inter.Get_remote_size();
  const pending = inter.Isend(Int32Array.of(rank), peer, 8);
  const senders = [];
  for (let r = 0; r < inter.Get_remote_size(); r++) if (r % inter.size === me) senders.push(r);
  for (const r of senders) {
    const st = new MPI.Status();
    inter.Probe(r, 8, st);
    t.equal(st.Get_source(), r, `Probe source ${r}`);
    const msg = inter.Mprobe(r, 8);
    const x = new Int32Array(1);
    msg.Recv(x);
    t.equal(x[0], remoteGroup[r], `Mprobe + Recv from remote rank ${r}`);
  }
  pending.Wait();
  const back = new Int32Array(1);
  if (inter.Get_remote_size() === inter.size) {
    inter.Sendrecv(Int32Array.of(rank), me, 4, back, me, 4);
    t.equal(back[0], remoteGroup[me], 'Sendrecv with the remote rank of the same index');
  }

  inter.Barrier();
  const dup = inter.Dup();
  t.check(dup instanceof MPI.Intercomm, 'Dup of an intercommunicator is an Intercomm');
  t.equal(dup.Compare(inter), MPI.CONGRUENT, 'Compare(dup, inter)');
  // Same tag on the dup and the original: each message stays on its communicator.
  const a = dup.Isend(Int32Array.of(1), 0, 9);
  const b = inter.Isend(Int32Array.of(2), 0, 9);
  if (me === 0) {
    for (let r = 0; r < inter.Get_remote_size(); r++) {
      const x = new Int32Array(1);
      inter.Recv(x, r, 9);
      t.equal(x[0], 2, 'the original receives its own message');
      dup.Recv(x, r, 9);
      t.equal(x[0], 1, 'the dup receives its own message');
    }
  }
  MPI.Request.Waitall([a, b]);

  // Merge: high = false first; low group passes the flag, the high group its negation.
  for (const lowHigh of [false, true]) {
    const merged = inter.Merge(low ? lowHigh : !lowHigh);
    t.equal(merged.Is_inter(), false, 'Merge gives an intracommunicator');
    t.equal(merged.size, size, 'merged size');
    const lowRanks = Array.from({ length: half }, (_, i) => i);
    const highRanks = Array.from({ length: size - half }, (_, i) => half + i);
    const order = lowHigh ? [...highRanks, ...lowRanks] : [...lowRanks, ...highRanks];
    const expectOrder = low ? (lowHigh ? [...remoteGroup, ...localGroup] : [...localGroup, ...remoteGroup])
      : (lowHigh ? [...localGroup, ...remoteGroup] : [...remoteGroup, ...localGroup]);
    t.equal(JSON.stringify(order), JSON.stringify(expectOrder), 'reference order');
    t.equal(JSON.stringify(merged.Get_group().Translate_ranks(null, world.Get_group())), JSON.stringify(order),
      `Merge(${lowHigh ? 'low group high' : 'low group low'}) order`);
    t.equal(merged.rank, order.indexOf(rank), 'merged rank');
    const x = new Int32Array(1);
    merged.Sendrecv(Int32Array.of(rank), (merged.rank + 1) % size, 3, x, (merged.rank - 1 + size) % size, 3);
    t.equal(x[0], order[(merged.rank - 1 + size) % size], 'message on the merged communicator');
    merged.Barrier();
    merged.Free();
  }
  // Same flag in both groups: one group first, the same on every process.
  const same = inter.Merge(false);
  const firstGroup = same.Get_group().Translate_ranks([0], world.Get_group())[0]!;
  const all = same.Get_group().Translate_ranks(null, world.Get_group());
  t.check(firstGroup === 0 || firstGroup === half, `Merge(false) everywhere starts a group (${all})`);
  same.Free();

  inter.Set_errhandler(MPI.ERRORS_RETURN);
  t.throws(() => inter.Split(0, 0), MPI.ERR_UNSUPPORTED_OPERATION, /intercommunicator/, 'Split on an intercommunicator');
  t.throws(() => inter.Scan(new Int32Array(1), new Int32Array(1)), MPI.ERR_COMM, /not defined on an intercommunicator/,
    'Scan on an intercommunicator');
  t.throws(() => inter.Bcast(new Int32Array(1), 99), MPI.ERR_ROOT, /MPI.ROOT at the root/, 'a root beyond the remote group');
  t.throws(() => inter.Allreduce(MPI.IN_PLACE, new Int32Array(1)), MPI.ERR_BUFFER, /IN_PLACE is not allowed/,
    'IN_PLACE on an intercommunicator');
  t.throws(() => inter.scan(1), MPI.ERR_COMM, /scan: is not defined on an intercommunicator/, 'object scan on an intercommunicator');
  t.throws(() => inter.bcast(1, 99), MPI.ERR_ROOT, /bcast: root 99 is neither MPI\.ROOT, MPI\.PROC_NULL nor a rank of the remote group/,
    'object bcast to a root beyond the remote group');
  t.throws(() => inter.Send(new Int32Array(1), inter.Get_remote_size()), MPI.ERR_RANK, /out of range/, 'a rank beyond the remote group');
  dup.Free();
  inter.Free();
  t.throws(() => inter.Send(new Int32Array(1), 0), MPI.ERR_COMM, /freed/, 'a freed intercommunicator');
  local.Free();
}

MPI.Finalize();
t.finish(rank);
