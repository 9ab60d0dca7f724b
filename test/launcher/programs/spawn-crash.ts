/**
 * A spawned job and its parent where one side dies mid-conversation: `child` (child rank 1
 * exits with status 3 right after MPI.Init while the parent waits for its message) or `parent`
 * (the parent exits with status 4 while its children wait for its message). Prints each job's
 * id so the test can look for segments left behind.
 */
import { fileURLToPath } from 'node:url';
import { MPI } from '../../../src/index.js';

const who = process.argv[2];
process.stdout.write(`process ${process.pid}: job ${process.env.TSMPI_JOBID}\n`);
MPI.Init();
const parent = MPI.Comm.Get_parent();
if (parent === MPI.COMM_NULL) {
  const children = MPI.COMM_SELF.Spawn(process.execPath, [fileURLToPath(import.meta.url), who!], 2);
  if (who === 'parent') process.exit(4);
  const got = new Int32Array(1);
  children.Recv(got, 1, 0);
  process.stdout.write('parent: the dead child answered\n');
} else {
  if (who === 'child' && MPI.COMM_WORLD.rank === 1) process.exit(3);
  const got = new Int32Array(1);
  parent.Recv(got, 0, 0);
  process.stdout.write('child: the dead parent answered\n');
}
MPI.Finalize();
