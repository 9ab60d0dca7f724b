// Hello world: every rank says who and where it is.
//   npx tsmpiexec -n 4 node examples/hello.js
import { MPI } from 'tsmpi';

MPI.Init();
const comm = MPI.COMM_WORLD;
console.log(`Hello from rank ${comm.rank} of ${comm.size} on ${MPI.Get_processor_name()} (pid ${process.pid})`);
MPI.Finalize();
