/**
 * Free and MPI.COMM_NULL: a freed communicator raises MPI.ERR_COMM (under ERRORS_RETURN) on
 * every later call; predefined communicators cannot be freed; every call on MPI.COMM_NULL
 * raises MPI.ERR_COMM. Bad arguments of the management calls give their error classes.
 */
import { MPI, type Comm, type Group } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
world.Set_errhandler(MPI.ERRORS_RETURN);
MPI.COMM_SELF.Set_errhandler(MPI.ERRORS_RETURN);

const dup = world.Dup();
t.equal(dup.Get_errhandler(), MPI.ERRORS_RETURN, 'the dup inherits ERRORS_RETURN');
dup.Free();
const b = new Int32Array(1);
const freed = /comm#\d+\.\w+: the communicator has been freed/;
t.throws(() => dup.rank, MPI.ERR_COMM, freed, 'rank after Free');
t.throws(() => dup.Get_size(), MPI.ERR_COMM, freed, 'Get_size after Free');
t.throws(() => dup.Send(b, 0), MPI.ERR_COMM, freed, 'Send after Free');
t.throws(() => dup.Recv(b, 0), MPI.ERR_COMM, freed, 'Recv after Free');
t.throws(() => dup.Barrier(), MPI.ERR_COMM, freed, 'Barrier after Free');
t.throws(() => dup.Dup(), MPI.ERR_COMM, freed, 'Dup after Free');
t.throws(() => dup.Get_group(), MPI.ERR_COMM, freed, 'Get_group after Free');
t.throws(() => dup.Free(), MPI.ERR_COMM, freed, 'Free twice');
t.throws(() => world.Compare(dup), MPI.ERR_COMM, /Compare: the communicator has been freed/, 'Compare with a freed communicator');

t.throws(() => world.Free(), MPI.ERR_COMM, /MPI_COMM_WORLD\.Free: MPI_COMM_WORLD is predefined and cannot be freed/, 'Free(COMM_WORLD)');
t.throws(() => MPI.COMM_SELF.Free(), MPI.ERR_COMM, /MPI_COMM_SELF is predefined/, 'Free(COMM_SELF)');
t.equal(world.size, size, 'COMM_WORLD still works after a refused Free');

const isNull = /MPI_COMM_NULL\.\w+: MPI\.COMM_NULL is the null communicator/;
const cnull: Comm = MPI.COMM_NULL;
t.throws(() => cnull.rank, MPI.ERR_COMM, isNull, 'COMM_NULL.rank');
t.throws(() => cnull.Get_size(), MPI.ERR_COMM, isNull, 'COMM_NULL.Get_size');
t.throws(() => cnull.Send(b, 0), MPI.ERR_COMM, isNull, 'COMM_NULL.Send');
t.throws(() => cnull.Barrier(), MPI.ERR_COMM, isNull, 'COMM_NULL.Barrier');
t.throws(() => cnull.Dup(), MPI.ERR_COMM, isNull, 'COMM_NULL.Dup');
t.throws(() => cnull.Split(0, 0), MPI.ERR_COMM, isNull, 'COMM_NULL.Split');
t.throws(() => cnull.Free(), MPI.ERR_COMM, isNull, 'COMM_NULL.Free');
t.throws(() => cnull.Get_group(), MPI.ERR_COMM, isNull, 'COMM_NULL.Get_group');
t.throws(() => cnull.Get_name(), MPI.ERR_COMM, isNull, 'COMM_NULL.Get_name');
t.throws(() => cnull.Set_errhandler(MPI.ERRORS_RETURN), MPI.ERR_COMM, isNull, 'COMM_NULL.Set_errhandler');
t.throws(() => world.Compare(cnull), MPI.ERR_COMM, isNull, 'Compare(world, COMM_NULL)');

// Bad arguments.
t.throws(() => world.Split(-5, 0), MPI.ERR_ARG, /Split: color -5 is invalid \(expected an integer 0\.\.2147483647 or MPI\.UNDEFINED\)/, 'negative color');
t.throws(() => world.Split(0, 1.5), MPI.ERR_ARG, /Split: key 1\.5 is invalid/, 'fractional key');
t.throws(() => world.Split_type(77, 0), MPI.ERR_ARG, /Split_type: split_type 77 is not supported/, 'unknown split type');
t.throws(() => world.Create([0] as unknown as Group), MPI.ERR_GROUP, /Create: group must be an MPI\.Group, got Array/, 'Create with an array');
const freedGroup = world.Get_group().Incl([0]);
freedGroup.Free();
t.throws(() => world.Create(freedGroup), MPI.ERR_GROUP, /Create: group has been freed/, 'Create with a freed group');
t.throws(() => world.Create_group(world.Get_group(), -3), MPI.ERR_TAG, /Create_group: tag -3 is invalid/, 'Create_group with a bad tag');
t.throws(() => world.Compare('x' as unknown as Comm), MPI.ERR_COMM, /Compare: comm must be an MPI\.Comm, got string x/, 'Compare with a string');
if (size > 1) {
  const alone = world.Split(rank, 0);
  alone.Set_errhandler(MPI.ERRORS_RETURN);
  t.throws(() => alone.Create(world.Get_group()), MPI.ERR_GROUP, /Create: group is not a subgroup of the communicator: its rank \d \(world rank \d\) is not a member/, 'Create with a group larger than the communicator');
  alone.Free();
}

// Still usable after all of that.
const x = new Int32Array(1);
const again = world.Dup();
again.Sendrecv(Int32Array.of(rank), (rank + 1) % size, 0, x, (rank - 1 + size) % size, 0);
t.equal(x[0], (rank - 1 + size) % size, 'a new Dup works after the errors');
again.Free();
MPI.Finalize();
t.finish(rank);
