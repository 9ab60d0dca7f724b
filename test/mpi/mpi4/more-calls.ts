/**
 * The smaller calls of mpi4py's surface, with traffic: the object forms bsend/ibsend/issend and
 * mprobe/improbe with message.recv/irecv; Request's lower-case list calls and Get_status_any /
 * all / some (which complete nothing); Intercomm.Create_from_groups between the even and the
 * odd ranks; Info's mapping methods and Info.Create_env; Aint_add/Aint_diff, Pcontrol,
 * Remove_error_class/code/string, Flush_buffer, Comm.Get_parent.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
world.Set_errhandler(MPI.ERRORS_RETURN);
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;

// Object forms round the ring: buffered, synchronous, and a matched probe received as a value.
MPI.Attach_buffer(new Uint8Array(1 << 16));
world.bsend({ kind: 'b', from: rank }, right, 1);
const ss = world.issend(['s', rank, 'x'.repeat(rank * 1000)], right, 2);
const ib = world.ibsend(new Map([[rank, 'ib']]), right, 3);
const msg = world.mprobe(left, 1);
t.equal(msg.recv<{ kind: string; from: number }>().from, left, 'mprobe + message.recv');
let m2 = world.improbe(left, 2);
while (m2 === null) m2 = world.improbe(left, 2);
const got2 = m2.irecv<[string, number, string]>().wait();
t.equal(`${got2[0]}${got2[1]}:${got2[2].length}`, `s${left}:${left * 1000}`, 'improbe + message.irecv');
const m3 = MPI.Message.probe(world, left, 3);
t.equal(m3.recv<Map<number, string>>().get(left), 'ib', 'Message.probe + recv of a Map');
ss.Wait();
ib.Wait();
MPI.Flush_buffer();
MPI.Detach_buffer();

// Lower-case list calls and the non-destructive Get_status forms.
const reqs = [world.irecv<number>(left, 10), world.irecv<number>(left, 11), world.irecv<number>(left, 12)];
const [noneIndex, noneFlag] = MPI.Request.Get_status_any(reqs);
t.check(noneIndex === MPI.UNDEFINED || noneFlag, 'Get_status_any before anything was sent');
world.isend(100 + rank, right, 11).Wait();
let any = MPI.Request.Get_status_any(reqs);
while (!any[1]) any = MPI.Request.Get_status_any(reqs);
t.equal(any[0], 1, 'Get_status_any finds the one that arrived');
t.equal(MPI.Request.Get_status_all(reqs), false, 'Get_status_all: not all');
t.equal(reqs[1]!.get_status(), true, 'get_status leaves it complete and active');
const [index, value] = MPI.Request.waitany(reqs);
t.equal(index, 1, 'waitany index');
t.equal(value, 100 + left, 'waitany yields the value');
// Nobody sends the other two before every rank has checked the first.
world.Barrier();
world.send(200 + rank, right, 10);
world.send(300 + rank, right, 12);
const values: number[] = [];
for (let spins = 0; values.length < 2 && spins < 10_000_000; spins++) {
  const [done, yielded] = MPI.Request.testsome(reqs);
  if (done === null) break;
  values.push(...(yielded ?? []));
}
t.equal(JSON.stringify(values.sort()), JSON.stringify([200 + left, 300 + left]), 'testsome yields both values');
t.equal(JSON.stringify(MPI.Request.waitsome(reqs)), '[null,null]', 'waitsome with none active');
t.equal(MPI.Request.Get_status_some(reqs), null, 'Get_status_some with none active');
const cancelled = world.Irecv(new Uint8Array(4), MPI.ANY_SOURCE, 99);
cancelled.cancel();
const cs = new MPI.Status();
cancelled.Wait(cs);
t.equal(cs.Is_cancelled(), true, 'cancel()');

// An intercommunicator of the even and the odd ranks, made from groups.
if (size >= 2) {
  const all = Array.from({ length: size }, (_, i) => i);
  const session = MPI.Session.Init();
  const worldGroup = session.Create_group('mpi://WORLD');
  const even = worldGroup.Incl(all.filter((r) => r % 2 === 0));
  const odd = worldGroup.Incl(all.filter((r) => r % 2 === 1));
  const mine = rank % 2 === 0 ? even : odd;
  const theirs = rank % 2 === 0 ? odd : even;
  // Each group's leader is its last member; each side names the other's.
const inter = MPI.Intercomm.Create_from_groups(mine, mine.Get_size() - 1, theirs, theirs.Get_size() - 1, 'org.tsmpi.test.inter');
  t.equal(inter.Get_remote_size(), theirs.Get_size(), 'Create_from_groups: remote size');
  t.equal(inter.Get_size(), mine.Get_size(), 'Create_from_groups: local size');
  const sum = new Int32Array(1);
  inter.Allreduce(Int32Array.of(rank), sum, MPI.SUM);
  const remoteSum = all.filter((r) => r % 2 !== rank % 2).reduce((a, b) => a + b, 0);
  t.equal(sum[0], remoteSum, 'Allreduce over the intercommunicator gives the other group\'s sum');
  inter.Free();
  t.throws(() => MPI.Intercomm.Create_from_groups(mine, 0, theirs, 99), MPI.ERR_RANK, /remote_leader number 99 is out of range/, 'remote_leader');
  session.Finalize();
}

// Info as a mapping, and Create_env.
const info = MPI.Info.Create();
info.update({ a: '1', b: '2' });
info.update([['c', '3']]);
t.equal(info.keys().join(), 'a,b,c', 'keys');
t.equal(info.values().join(), '1,2,3', 'values');
t.equal(info.get('zz', 'none'), 'none', 'get with a fallback');
t.equal(info.pop('b'), '2', 'pop');
t.equal(JSON.stringify(info.popitem()), '["c","3"]', 'popitem');
const copy = info.copy();
info.clear();
t.equal(info.Get_nkeys(), 0, 'clear');
t.equal(copy.get('a'), '1', 'copy is separate');
t.throws(() => info.pop('nope'), MPI.ERR_INFO_NOKEY, /key "nope" is not set/, 'pop of a missing key');
const env = MPI.Info.Create_env();
t.equal(env.Get('maxprocs'), String(size), 'Create_env maxprocs');
t.equal(env.Get('thread_level'), 'MPI_THREAD_FUNNELED', 'Create_env thread_level');
t.check((env.Get('command') ?? '').endsWith('more-calls.js'), `Create_env command: ${env.Get('command')}`);

// Addresses, Pcontrol, removing added errors, Get_parent.
t.equal(MPI.Aint_add(2 ** 40, 24), 2 ** 40 + 24, 'Aint_add past 2^32');
t.equal(MPI.Aint_diff(2 ** 33, 2 ** 33 + 8), -8, 'Aint_diff');
t.throws(() => MPI.Aint_add(1.5, 0), MPI.ERR_ARG, /base must be an integer address/, 'Aint_add of a fraction');
MPI.Pcontrol(1);
const cls = MPI.Add_error_class();
const code = MPI.Add_error_code(cls);
MPI.Add_error_string(code, 'gone soon');
t.throws(() => MPI.Remove_error_class(cls), MPI.ERR_ARG, /still has code/, 'a class with codes stays');
MPI.Remove_error_string(code);
t.equal(MPI.Get_error_string(code), '', 'string removed');
MPI.Remove_error_code(code);
MPI.Remove_error_class(cls);
t.throws(() => MPI.Get_error_class(code), MPI.ERR_ARG, /is no error code/, 'a removed code is gone');
t.throws(() => MPI.Remove_error_class(MPI.ERR_RANK), MPI.ERR_ARG, /is no class or code of MPI\.Add_error_class/, 'predefined classes stay');
t.equal(MPI.Comm.Get_parent(), MPI.COMM_NULL, 'no parent');

const check = new Int32Array(1);
world.Allreduce(Int32Array.of(1), check, MPI.SUM);
t.equal(check[0], size, 'communicates afterwards');
MPI.Finalize();
t.finish(rank);
