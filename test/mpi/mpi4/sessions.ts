/**
 * MPI-4 Sessions without MPI.Init: two sessions at once, their process sets, groups and
 * communicators made from groups (the whole job, a subgroup, one's self); traffic on them with
 * wildcards and collectives with every rank as root; errors through the session's handler.
 * MPI.Is_initialized stays false (Sessions are not the World Model). The last Finalize ends
 * MPI, and MPI cannot start again.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
const a = MPI.Session.Init();
const b = MPI.Session.Init(MPI.INFO_NULL, MPI.ERRORS_RETURN);
t.equal(MPI.Is_initialized(), false, 'a session is not MPI.Init');
t.equal(a.Get_num_psets(), 2, 'two process sets');
const names = [a.Get_nth_pset(0), a.Get_nth_pset(1)];
t.equal(names.join(' '), 'mpi://WORLD mpi://SELF', 'their names');
const worldGroup = a.Create_group('mpi://WORLD');
const size = worldGroup.Get_size();
const rank = worldGroup.Get_rank();
t.equal(a.Get_pset_info('mpi://WORLD').Get('mpi_size'), String(size), 'mpi_size of WORLD');
t.equal(a.Get_pset_info('mpi://SELF').Get('mpi_size'), '1', 'mpi_size of SELF');
t.equal(a.Get_info().Get('thread_level'), 'MPI_THREAD_FUNNELED', 'thread_level of the session');

const comm = MPI.Intracomm.Create_from_group(worldGroup, 'org.tsmpi.test.world');
t.equal(comm.Get_size(), size, 'communicator of WORLD: size');
t.equal(comm.Get_rank(), rank, 'communicator of WORLD: rank');
comm.Set_errhandler(MPI.ERRORS_RETURN);
for (let root = 0; root < size; root++) {
  const data = new Float64Array(7);
  if (rank === root) for (let i = 0; i < 7; i++) data[i] = root * 10 + i + 0.5;
  comm.Bcast(data, root);
  t.check(data.every((v, i) => v === root * 10 + i + 0.5), `Bcast from root ${root}`);
  const sum = new Int32Array(3);
  comm.Reduce(Int32Array.of(rank, 1, -rank), sum, MPI.SUM, root);
  if (rank === root) t.equal(sum.join(), `${(size * (size - 1)) / 2},${size},${-(size * (size - 1)) / 2}`, `Reduce to root ${root}`);
}
// Every rank sends to rank 0 with its rank as the tag; rank 0 takes them with wildcards.
if (rank === 0) {
  const from = new Set<number>();
  for (let i = 1; i < size; i++) {
    const got = new Int32Array(1);
    const status = new MPI.Status();
    comm.Recv(got, MPI.ANY_SOURCE, MPI.ANY_TAG, status);
    t.equal(status.Get_tag(), got[0], 'tag is the sender');
    t.equal(status.Get_source(), got[0], 'source is the sender');
    from.add(got[0]!);
  }
  t.equal(from.size, size - 1, 'one message from every other rank');
} else {
  comm.Send(Int32Array.of(rank), 0, rank);
}

// A subgroup: the odd ranks only (their own collective), from the second session's group.
const odd = b.Create_group('mpi://WORLD').Incl(Array.from({ length: size }, (_, i) => i).filter((r) => r % 2 === 1));
if (rank % 2 === 1) {
  const oddComm = MPI.Intracomm.Create_from_group(odd, 'org.tsmpi.test.odd', MPI.INFO_NULL, MPI.ERRORS_RETURN);
  t.equal(oddComm.Get_size(), Math.floor(size / 2), 'odd communicator size');
  const all = new Int32Array(oddComm.Get_size());
  oddComm.Allgather(Int32Array.of(rank), all);
  t.equal(all.join(), Array.from(all.keys(), (i) => 2 * i + 1).join(), 'Allgather among the odd ranks');
  oddComm.Free();
} else {
  t.throws(() => MPI.Intracomm.Create_from_group(odd), MPI.ERR_GROUP, /is not a member of group/, 'non-member');
}
const self = MPI.Intracomm.Create_from_group(b.Create_group('mpi://SELF'));
t.equal(self.Get_size(), 1, 'SELF communicator');
const echo = new Int16Array(3);
self.Sendrecv(Int16Array.of(1, 2, 3), 0, 9, echo, 0, 9);
t.equal(echo.join(), '1,2,3', 'Sendrecv to itself on the SELF communicator');

// Errors through the session's handler: b returns them, a user handler sees them first.
t.throws(() => b.Create_group('mpi://NOWHERE'), MPI.ERR_ARG, /pset_name string mpi:\/\/NOWHERE is no process set/, 'unknown pset');
t.throws(() => b.Get_nth_pset(2), MPI.ERR_ARG, /n number 2 is not a process set index/, 'pset index');
const seen: number[] = [];
b.Set_errhandler(MPI.Session.Create_errhandler((s, code) => { t.equal(s, b, 'handler gets the session'); seen.push(code); }));
t.throws(() => b.Get_pset_info('nope'), MPI.ERR_ARG, /no process set/, 'error under a user handler');
t.equal(seen.join(), String(MPI.ERR_ARG), 'session handler called');
t.throws(() => MPI.Session.Init(MPI.INFO_NULL, MPI.Comm.Create_errhandler(() => {})), MPI.ERR_ARG,
  /made for a communicator and cannot be set on a session/, 'a communicator handler for a session');

self.Free();
comm.Barrier();
comm.Free();
b.Finalize();
t.throws(() => b.Get_num_psets(), MPI.ERR_SESSION, /the session has been finalized/, 'a finalized session');
a.Finalize();
t.throws(() => MPI.Session.Init(), MPI.ERR_OTHER, /cannot be initialized again/, 'no second start');
t.equal(MPI.Is_finalized(), false, 'MPI.Finalize was never called');
t.finish(rank);
