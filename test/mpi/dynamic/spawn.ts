/**
 * Comm.Spawn and Spawn_multiple (MPI-4.1 §11.8), parent and children in one program: a process
 * whose Get_parent is MPI.COMM_NULL is a parent. The parents (the job's ranks, any number) spawn
 * 3 children of this program with arguments, from a root that is not rank 0 when there are
 * several, then 1 + 2 children of two commands (Spawn_multiple; the children tell their command
 * by MPI.APPNUM and their arguments). On each intercommunicator: errcodes, sizes, a message from
 * every parent to every child and back (one of them by rendezvous), a Bcast from the parents'
 * root, an Allreduce across the jobs, Merge with the parents first, and Disconnect. Children check
 * their own COMM_WORLD (size, a collective in it alone) and that Get_parent is COMM_NULL after
 * Disconnect. Bad input of Spawn (a missing program, maxprocs 0, root out of range) raises
 * MPI.ERR_SPAWN, MPI.ERR_ARG and MPI.ERR_ROOT under ERRORS_RETURN, and the job goes on.
 * With the argument `hydra` (MPICH's hydra starts the job): hydra ignores the `env` info key and
 * answers a spawn of a missing program with success (it then ends the run), so neither is tried.
 */
import { fileURLToPath } from 'node:url';
import { MPI, type Intercomm } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
const self = fileURLToPath(import.meta.url);
MPI.Init();
const world = MPI.COMM_WORLD;
const parent = MPI.Comm.Get_parent();
const rank = world.rank;
const BIG = 100_000;

/** Both sides of one spawned intercommunicator; `parents` says which side we are. */
function exercise(inter: Intercomm, parents: boolean, what: string): void {
  inter.Set_errhandler(MPI.ERRORS_RETURN);
  const nRemote = inter.Get_remote_size();
  const me = inter.rank;
  const sends = [];
  for (let r = 0; r < nRemote; r++) sends.push(inter.Isend(Int32Array.of(parents ? 1 : 2, me, r), r, 9));
  for (let r = 0; r < nRemote; r++) {
    const got = new Int32Array(3);
    inter.Recv(got, r, 9);
    t.check(got[0] === (parents ? 2 : 1) && got[1] === r && got[2] === me, `${what}: message from remote rank ${r}: ${got}`);
  }
  MPI.Request.Waitall(sends);
  // A rendezvous message between the two rank 0s.
  if (me === 0) {
    const out = Float64Array.from({ length: BIG }, (_, i) => (parents ? i : -i));
    const back = new Float64Array(BIG);
    inter.Sendrecv(out, 0, 10, back, 0, 10);
    t.check(back[BIG - 1] === (parents ? -(BIG - 1) : BIG - 1), `${what}: rendezvous message, last element ${back[BIG - 1]}`);
  }
  const word = Int32Array.of(parents && me === 0 ? 777 : -1);
  inter.Bcast(word, parents ? (me === 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
  if (!parents) t.equal(word[0], 777, `${what}: Bcast from the parents' root`);
  const sum = new Int32Array(1);
  inter.Allreduce(Int32Array.of(parents ? 1000 : 1), sum, MPI.SUM);
  // An intercommunicator's Allreduce gives each group the reduction of the other group's data.
  t.equal(sum[0], parents ? nRemote : 1000 * nRemote, `${what}: Allreduce`);
  const merged = inter.Merge(!parents);
  t.equal(merged.rank, parents ? me : nRemote + me, `${what}: rank in Merge (parents first)`);
  const total = new Int32Array(1);
  merged.Allreduce(Int32Array.of(1), total, MPI.SUM);
  t.equal(total[0], merged.size, `${what}: Allreduce over the merged jobs`);
  merged.Free();
  inter.Disconnect();
}

if (parent === MPI.COMM_NULL) {
  const hydra = process.argv.includes('hydra');
  const root = world.size - 1;
  const info = MPI.Info.Create();
  info.Set('env', 'SPAWN_TEST_COLOR=blue');
  const errcodes: number[] = [];
  const a = world.Spawn(process.execPath, [self, 'child', 'single', hydra ? 'no-env' : 'env'], 3, info, root, errcodes);
  t.equal(JSON.stringify(errcodes), '[0,0,0]', 'Spawn: errcodes');
  t.equal(a.Get_remote_size(), 3, 'Spawn: remote size');
  t.equal(a.size, world.size, 'Spawn: local size');
  exercise(a, true, 'Spawn');

  const b = world.Spawn_multiple([process.execPath, process.execPath], [[self, 'child', 'first'], [self, 'child', 'second']],
    [1, 2], [MPI.INFO_NULL, MPI.INFO_NULL], 0);
  t.equal(b.Get_remote_size(), 3, 'Spawn_multiple: remote size');
  exercise(b, true, 'Spawn_multiple');

  world.Set_errhandler(MPI.ERRORS_RETURN);
  if (!hydra) {
    t.throws(() => world.Spawn('/nonexistent/program', null, 1), MPI.ERR_SPAWN, /could not start|not found|no such/i, 'Spawn of a missing program');
  }
  t.throws(() => world.Spawn(process.execPath, [self], 0), MPI.ERR_ARG, /maxprocs/, 'Spawn with maxprocs 0');
  t.throws(() => world.Spawn(process.execPath, [self], 1, MPI.INFO_NULL, world.size), MPI.ERR_ROOT, /root/, 'Spawn with root out of range');
  const after = new Int32Array(1);
  world.Allreduce(Int32Array.of(1), after, MPI.SUM);
  t.equal(after[0], world.size, 'an Allreduce after the refused spawns');
  info.Free();
} else {
  const kind = process.argv[3];
  t.equal(process.argv[2], 'child', 'a child gets its arguments');
  const inter = parent as Intercomm;
  t.equal(inter.Is_inter(), true, 'Get_parent is an intercommunicator');
  if (kind === 'single') {
    t.equal(world.size, 3, 'the spawned job has maxprocs processes');
    if (process.argv[4] === 'env') t.equal(process.env.SPAWN_TEST_COLOR, 'blue', 'the env info key reaches the child');
    t.equal(world.Get_attr(MPI.APPNUM), 0, 'APPNUM of Spawn');
  } else {
    t.equal(world.size, 3, 'the spawned job has the processes of both commands');
    t.equal(world.Get_attr(MPI.APPNUM), kind === 'first' ? 0 : 1, `APPNUM of command ${kind}`);
    t.equal(kind === 'first', world.rank === 0, 'the first command\'s process is rank 0');
  }
  const sum = new Int32Array(1);
  world.Allreduce(Int32Array.of(world.rank), sum, MPI.SUM);
  t.equal(sum[0], 3, 'an Allreduce among the children alone');
  exercise(inter, false, `child ${kind}`);
  t.equal(MPI.Comm.Get_parent(), MPI.COMM_NULL, 'Get_parent after Disconnect');
}

MPI.Finalize();
// Rank 0 of the parents prints the verdict; a child with errors fails its job, which ends the run.
if (parent === MPI.COMM_NULL) t.finish(rank);
else if (t.errors > 0) process.exitCode = 1;
