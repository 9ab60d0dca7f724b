// Sessions (MPI-4): MPI without MPI.Init, as a library would use it, and an error handler of
// the program's own.
//   npx tsmpiexec -n 4 node examples/sessions.js
// A session names its process sets; the set of all processes becomes a group, the group a
// communicator. A library can do this without knowing whether the program called MPI.Init.
import { MPI } from 'tsmpi';

const session = MPI.Session.Init();
const psets = Array.from({ length: session.Get_num_psets() }, (_, i) => session.Get_nth_pset(i));
const group = session.Create_group('mpi://WORLD');
const comm = MPI.Intracomm.Create_from_group(group, 'org.example.sessions');
const { rank, size } = comm;

// An error handler of our own: it sees the communicator and the code, then the call throws.
const log = [];
comm.Set_errhandler(MPI.Comm.Create_errhandler((c, code) => log.push(MPI.Get_error_string(code))));
try {
  comm.Send(new Int32Array(1), size); // there is no rank `size`
} catch (e) {
  if (rank === 0) console.log(`the handler saw "${log[0]}", then the call threw ${e instanceof MPI.Exception ? 'MPI.Exception' : e}`);
}

const sum = new Int32Array(1);
comm.Allreduce(Int32Array.of(rank + 1), sum, MPI.SUM);
if (rank === 0) {
  console.log(`process sets: ${psets.join(', ')}; MPI.Init called: ${MPI.Is_initialized()}`);
  console.log(`sum of 1..${size} over a communicator made from a group: ${sum[0]}`);
}
comm.Free();
session.Finalize();
