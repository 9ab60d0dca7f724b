// Every rank prints its pid and job id, then blocks in a Recv that no rank will match (the test
// kills the launcher and checks that the ranks end with it).
import { MPI } from '../../../src/index.js';

MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Barrier(); // every rank's segments are mapped (and their names gone) before anyone reports
console.log(`blocked rank ${comm.rank} pid ${process.pid} job ${process.env.TSMPI_JOBID ?? '?'}`);
comm.Recv(new Uint8Array(8), MPI.ANY_SOURCE, 4242);
