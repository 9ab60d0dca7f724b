/**
 * MPI-4 and MPI-3.1 calls without traffic: Get_version and Get_library_version; Reduce_local
 * (MPI's and op's) for every predefined op on its types, user ops, odd counts, and its errors;
 * Op.Is_commutative; names, attributes and info of datatypes and windows; Split_type with
 * COMM_TYPE_HW_GUIDED / HW_UNGUIDED on one host.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
world.Set_errhandler(MPI.ERRORS_RETURN);

t.equal(MPI.Get_version().join('.'), '4.0', 'Get_version');
t.equal(`${MPI.VERSION}.${MPI.SUBVERSION}`, '4.0', 'VERSION.SUBVERSION');
t.check(/^tsmpi \d+\.\d+\.\d+ \(MPI 4\.0 .*\) on Node\.js v\d+/.test(MPI.Get_library_version()), `Get_library_version: ${MPI.Get_library_version()}`);
t.equal(MPI.Query_thread(), MPI.THREAD_SINGLE, 'MPI.Init gives THREAD_SINGLE');

// Reduce_local: inoutbuf = inbuf op inoutbuf, on odd counts that cross the native kernels' threshold.
for (const n of [1, 7, 1001]) {
  const a = Float64Array.from({ length: n }, (_, i) => i * 0.5 - 3);
  const b = Float64Array.from({ length: n }, (_, i) => (i % 5) - 2);
  const want = (op: (x: number, y: number) => number) => Array.from(a, (x, i) => op(x, b[i]!)).join();
  const cases: Array<[unknown, (x: number, y: number) => number]> = [
    [MPI.SUM, (x, y) => x + y], [MPI.PROD, (x, y) => x * y], [MPI.MAX, Math.max], [MPI.MIN, Math.min],
  ];
  for (const [op, f] of cases) {
    const inout = b.slice();
    MPI.Reduce_local(a, inout, op as never);
    t.equal(inout.join(), want(f), `Reduce_local ${String((op as { name: string }).name)} n=${n}`);
  }
  const bits = Int32Array.from({ length: n }, (_, i) => i * 37);
  const acc = Int32Array.from({ length: n }, (_, i) => 0x5555 ^ i);
  const expect = Array.from(bits, (x, i) => x ^ acc[i]!).join();
  MPI.BXOR.Reduce_local(bits, acc);
  t.equal(acc.join(), expect, `Op.Reduce_local BXOR n=${n}`);
}
const user = MPI.Op.Create((inv: Float64Array, inoutv: Float64Array) => { for (let i = 0; i < inv.length; i++) inoutv[i] = inv[i]! - inoutv[i]!; }, false);
const io = Float64Array.of(1, 1, 1);
user.Reduce_local(Float64Array.of(5, 6, 7), io);
t.equal(io.join(), '4,5,6', 'user op: in - inout');
t.equal(user.Is_commutative(), false, 'user op not commutative');
t.equal(MPI.SUM.Is_commutative(), true, 'SUM commutative');
t.throws(() => MPI.Reduce_local(new Float64Array(3), new Float64Array(4)), MPI.ERR_COUNT, /inbuf has 3 elements but inoutbuf has 4/, 'counts differ');
t.throws(() => MPI.Reduce_local(new Float64Array(3), new Int32Array(3)), MPI.ERR_TYPE, /inbuf is MPI_DOUBLE but inoutbuf is MPI_INT/, 'types differ');
t.throws(() => MPI.BAND.Reduce_local(new Float64Array(2), new Float64Array(2)), MPI.ERR_OP, /MPI\.BAND is not defined on MPI_DOUBLE/, 'op not on type');
t.throws(() => MPI.Reduce_local(new Int8Array(2), new Int8Array(2), 'sum' as never), MPI.ERR_OP, /op must be an MPI\.Op/, 'not an op');
t.throws(() => MPI.Reduce_local(42 as never, new Int8Array(2)), MPI.ERR_BUFFER, /Reduce_local: inbuf/, 'not a buffer');

// Datatype names and attributes: Dup copies through copy_fn, Free calls delete_fn.
const vec = MPI.INT.Create_vector(3, 2, 5).Commit();
t.check(vec.Get_name().length > 0, 'derived type has a name');
vec.Set_name('halo column');
t.equal(vec.Get_name(), 'halo column', 'Datatype.Set_name');
const deleted: unknown[] = [];
const key = MPI.Datatype.Create_keyval((old, k, v) => { void old; void k; return `${String(v)}+copy`; }, (dt, k, v) => { void dt; void k; deleted.push(v); });
t.equal(vec.Get_attr(key), null, 'unset datatype attribute');
vec.Set_attr(key, 'layout');
t.equal(vec.Get_attr(key), 'layout', 'datatype attribute');
const vdup = vec.Dup();
t.equal(vdup.Get_attr(key), 'layout+copy', 'Dup copies datatype attributes');
vdup.Free();
vec.Free();
t.equal(deleted.join(), 'layout+copy,layout', 'Free calls delete_fn');
const commKey = MPI.Comm.Create_keyval();
t.throws(() => MPI.DOUBLE.Set_attr(commKey, 1), MPI.ERR_KEYVAL, /made by MPI\.Comm\.Create_keyval/, 'a comm key on a datatype');
t.equal(MPI.Datatype.Free_keyval(key), MPI.KEYVAL_INVALID, 'Datatype.Free_keyval');

// Window names, attributes, info.
const info = MPI.Info.Create();
info.Set('no_locks', 'true');
const win = MPI.Win.Allocate(24, 8, info, world);
t.equal(win.Get_info().Get('no_locks'), 'true', 'window info from Allocate');
win.Set_info(MPI.INFO_NULL);
t.equal(win.Get_info().Get_nkeys(), 0, 'Set_info(INFO_NULL) clears');
win.Set_name('field');
t.equal(win.Get_name(), 'field', 'Win.Set_name');
const wkey = MPI.Win.Create_keyval(null, (w, k, v) => { void k; deleted.push([w === win, v]); });
win.Set_attr(wkey, 7);
t.equal(win.Get_attr(wkey), 7, 'window attribute');
t.equal(win.Get_attr(MPI.WIN_DISP_UNIT), 8, 'predefined window attribute still there');
win.Free();
t.equal(JSON.stringify(deleted.at(-1)), '[true,7]', 'Win.Free calls delete_fn');

// Split_type by hardware: one host, so shared memory holds everyone and nothing is smaller.
const hw = MPI.Info.Create();
hw.Set('mpi_hw_resource_type', 'mpi_shared_memory');
const guided = world.Split_type(MPI.COMM_TYPE_HW_GUIDED, rank, hw);
t.equal(guided.Get_size(), size, 'HW_GUIDED mpi_shared_memory: the whole node');
t.equal(guided.Get_info().Get('mpi_hw_resource_type'), 'mpi_shared_memory', 'the new communicator names its resource');
guided.Free();
const other = MPI.Info.Create();
other.Set('mpi_hw_resource_type', 'quantum_socket');
t.equal(world.Split_type(MPI.COMM_TYPE_HW_GUIDED, 0, other), MPI.COMM_NULL, 'unknown resource: COMM_NULL');
t.equal(world.Split_type(MPI.COMM_TYPE_HW_UNGUIDED, 0), MPI.COMM_NULL, 'one host: nothing smaller, COMM_NULL');
t.throws(() => world.Split_type(MPI.COMM_TYPE_HW_GUIDED, 0), MPI.ERR_INFO_KEY, /needs info key mpi_hw_resource_type/, 'HW_GUIDED without the key');
t.throws(() => world.Split_type(77, 0), MPI.ERR_ARG, /split_type 77 is not supported/, 'unknown split type');

const check = new Int32Array(1);
world.Allreduce(Int32Array.of(1), check, MPI.SUM);
t.equal(check[0], size, 'communicates afterwards');
MPI.Finalize();
t.finish(rank);
