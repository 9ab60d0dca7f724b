/**
 * Communicator attributes: keyvals with and without copy and delete functions; Dup copies through
 * copy_fn (undefined/null/false skip); Delete_attr, replacing a value and Free call delete_fn;
 * the predefined attributes are still there; wrong keys raise MPI.ERR_KEYVAL. Info arguments.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;

t.equal(world.Get_attr(MPI.TAG_UB), 2147483647, 'TAG_UB');
t.equal(world.Get_attr(MPI.IO), rank, 'IO');
t.equal(world.Get_attr(MPI.WTIME_IS_GLOBAL), false, 'WTIME_IS_GLOBAL');
t.equal(world.Get_attr(MPI.APPNUM), 0, 'APPNUM');
t.equal(world.Get_attr(MPI.UNIVERSE_SIZE), size, 'UNIVERSE_SIZE');
t.equal(world.Get_attr(MPI.HOST), MPI.PROC_NULL, 'HOST');

const deleted: Array<[string, unknown]> = [];
const copies: unknown[] = [];
const copiedFrom: unknown[] = [];
const copied = MPI.Comm.Create_keyval((old, k, v) => { copies.push(v); copiedFrom.push(old); void k; return (v as number) + 1; },
  (c, k, v) => { void c; void k; deleted.push(['copied', v]); });
const skipped = MPI.Comm.Create_keyval(() => null, (_c, _k, v) => deleted.push(['skipped', v]));
const plain = MPI.Comm.Create_keyval();
const asIs = MPI.Comm.Create_keyval(true);
t.check(new Set([copied, skipped, plain, asIs]).size === 4, 'keyvals are distinct');

t.equal(world.Get_attr(copied), null, 'unset attribute is null');
world.Set_attr(copied, 10);
world.Set_attr(skipped, 'x');
world.Set_attr(plain, { a: 1 });
const shared = { shared: true };
world.Set_attr(asIs, shared);
t.equal(world.Get_attr(copied), 10, 'Get_attr after Set_attr');
t.equal(world.Get_attr(MPI.TAG_UB), 2147483647, 'TAG_UB still there with user attributes');

const dup = world.Dup();
t.equal(JSON.stringify(copies), JSON.stringify([10]), 'copy_fn called once');
t.equal(copiedFrom[0], world, 'copy_fn gets the old communicator');
t.equal(dup.Get_attr(copied), 11, 'Dup copies through copy_fn');
t.equal(dup.Get_attr(skipped), null, 'copy_fn returning null skips');
t.equal(dup.Get_attr(plain), null, 'no copy_fn: not copied');
t.equal(dup.Get_attr(asIs), shared, 'copy_fn true: copied as is');
t.equal(dup.Get_attr(MPI.IO), rank, 'predefined attributes on the dup');

// Replacing a value deletes the old one; Delete_attr deletes.
world.Set_attr(copied, 20);
t.equal(JSON.stringify(deleted), JSON.stringify([['copied', 10]]), 'replacing calls delete_fn with the old value');
world.Delete_attr(copied);
t.equal(JSON.stringify(deleted.at(-1)), JSON.stringify(['copied', 20]), 'Delete_attr calls delete_fn');
t.equal(world.Get_attr(copied), null, 'deleted attribute is null');

// Free calls delete_fn for each attribute of the dup.
deleted.length = 0;
dup.Free();
t.equal(JSON.stringify(deleted), JSON.stringify([['copied', 11]]), 'Free calls delete_fn');

// Topology communicators copy attributes on Dup too.
const cart = world.Create_cart([size]);
cart.Set_attr(copied, 100);
const cartDup = cart.Dup();
t.equal(cartDup.Get_attr(copied), 101, 'Cartcomm.Dup copies attributes');
cartDup.Free();
cart.Free();

// Errors.
world.Set_errhandler(MPI.ERRORS_RETURN);
t.throws(() => world.Set_attr(MPI.TAG_UB, 1), MPI.ERR_KEYVAL, /read-only/, 'setting a predefined attribute');
t.throws(() => world.Get_attr(123456789), MPI.ERR_KEYVAL, /neither predefined/, 'an unknown keyval');
t.throws(() => world.Delete_attr(copied), MPI.ERR_KEYVAL, /not set/, 'deleting an unset attribute');
t.equal(MPI.Comm.Free_keyval(skipped), MPI.KEYVAL_INVALID, 'Free_keyval returns KEYVAL_INVALID');
t.equal(world.Get_attr(skipped), 'x', 'an attribute outlives its freed keyval');
t.throws(() => world.Set_attr(skipped, 1), MPI.ERR_KEYVAL, /freed/, 'Set_attr with a freed keyval');
world.Delete_attr(skipped);
t.equal(JSON.stringify(deleted.at(-1)), JSON.stringify(['skipped', 'x']), 'delete_fn of a freed keyval still runs');
world.Delete_attr(plain);
world.Delete_attr(asIs);

// Info arguments: MPI.INFO_NULL and Info objects are accepted, anything else is MPI.ERR_INFO.
const info = MPI.Info.Create();
info.Set('no_locks', 'true');
const shared1 = world.Split_type(MPI.COMM_TYPE_SHARED, rank, MPI.INFO_NULL);
const shared2 = world.Split_type(MPI.COMM_TYPE_SHARED, rank, info);
t.equal(shared1.Compare(shared2), MPI.CONGRUENT, 'Split_type with INFO_NULL and with an Info');
t.throws(() => world.Split_type(MPI.COMM_TYPE_SHARED, rank, { no_locks: 'true' } as never), MPI.ERR_INFO, /must be an MPI.Info/,
  'a plain object as info');
// Hints: Set_info / Get_info; Dup keeps them, Dup(info) and Dup_with_info replace them.
const hinted = world.Dup();
hinted.Set_info(info);
t.equal(hinted.Get_info().Get('no_locks'), 'true', 'Get_info after Set_info');
t.equal(world.Get_info().Get_nkeys(), 0, 'no hints on COMM_WORLD');
const keeps = hinted.Dup();
t.equal(keeps.Get_info().Get('no_locks'), 'true', 'Dup keeps the hints');
const other = MPI.Info.Create();
other.Set('mode', 'fast');
const replaced = hinted.Dup(other);
t.equal(replaced.Get_info().Get('no_locks'), null, 'Dup(info) replaces the hints');
t.equal(replaced.Get_info().Get('mode'), 'fast', 'Dup(info) takes the given hints');
const cleared = hinted.Dup_with_info(MPI.INFO_NULL);
t.equal(cleared.Get_info().Get_nkeys(), 0, 'Dup_with_info(INFO_NULL) has no hints');
t.throws(() => hinted.Dup(42 as never), MPI.ERR_INFO, /must be an MPI.Info/, 'Dup with a number as info');
for (const c of [hinted, keeps, replaced, cleared]) c.Free();
other.Free();
info.Free();
t.throws(() => world.Split_type(MPI.COMM_TYPE_SHARED, rank, info), MPI.ERR_INFO, /freed/, 'a freed Info');
shared1.Free();
shared2.Free();
world.Set_errhandler(MPI.ERRORS_ARE_FATAL);

// Finalize deletes the attributes of COMM_SELF first, the last set first, while MPI still runs.
const atExit: string[] = [];
const hook = MPI.Comm.Create_keyval(null, (_c, _k, v) => { atExit.push(`${v as string}:${MPI.Is_finalized()}`); });
const hook2 = MPI.Comm.Create_keyval(null, (_c, _k, v) => { atExit.push(`${v as string}:${MPI.Is_finalized()}`); });
MPI.COMM_SELF.Set_attr(hook, 'first');
MPI.COMM_SELF.Set_attr(hook2, 'second');

MPI.Finalize();
t.equal(JSON.stringify(atExit), JSON.stringify(['second:false', 'first:false']), 'COMM_SELF attributes deleted at Finalize');
t.finish(rank);
