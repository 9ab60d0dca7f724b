/**
 * One bad call under the default handler, MPI.ERRORS_ARE_FATAL, for the launcher tests:
 *   bad-input <case> <rank>
 * Rank `rank` makes the call of `case`; the other ranks wait in a Barrier the bad rank never
 * reaches, so the job ends only if the error ends it. Cases: comm (Sendrecv with a bad
 * sendtag), status (Recv with a number for its status), win (Put to a rank outside the
 * window), request (MPI.Request.Waitall([42]): no object with a handler, so an uncaught
 * MPI.Exception), datatype (Create_vector with a negative count, likewise).
 */
import { MPI } from '../../../src/index.js';

const [which = 'comm', who = '1'] = process.argv.slice(2);
MPI.Init();
const world = MPI.COMM_WORLD;
if (world.rank === 0) console.log(`job ${process.env.TSMPI_JOBID}`);
const win = MPI.Win.Create(new Uint8Array(16), 1, MPI.INFO_NULL, world);
if (world.rank === Number(who)) {
  const buf = new Int32Array(4);
  switch (which) {
    case 'comm': world.Sendrecv(buf, MPI.PROC_NULL, -5, buf, MPI.PROC_NULL, 0); break;
    case 'status': world.Recv(buf, MPI.PROC_NULL, 0, 42 as unknown as InstanceType<typeof MPI.Status>); break;
    case 'win': win.Lock_all(); win.Put(buf, 99); break;
    case 'request': MPI.Request.Waitall([42 as unknown as InstanceType<typeof MPI.Request>]); break;
    case 'datatype': MPI.INT.Create_vector(-1, 1, 1); break;
    default: throw new Error(`unknown case ${which}`);
  }
  console.log(`rank ${world.rank}: the bad call returned`);
}
world.Barrier();
win.Free();
MPI.Finalize();
