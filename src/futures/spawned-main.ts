import process from 'node:process';
import { MPI, type Intercomm } from '../index.js';
import { TAG_SYNC } from './protocol.js';
import type { SyncMessage } from './spawn.js';
import { serve } from './worker.js';

/**
 * A spawned worker's life (spawned-worker.ts is its program; the package's bundle calls this
 * through its core). MPI.Init connects to the parent; the parent's first message (TAG_SYNC) sets
 * the environment and the working directory; then the worker serves tasks until the parent says
 * stop, and disconnects and finalizes (the parent's Disconnect waits for that), and exits with
 * status 0.
 */
export async function runSpawnedWorker(): Promise<void> {
  MPI.Init();
  const parent = MPI.Comm.Get_parent();
  if (parent === MPI.COMM_NULL) {
    // Started by hand (or by a launcher directly): there is no parent to serve.
    process.stderr.write('tsmpi/futures spawned-worker: this program is started by MPIPoolExecutor through ' +
      'MPI.COMM_SELF.Spawn, not by hand\n');
    MPI.Finalize();
    process.exit(2);
  }
  const inter = parent as Intercomm;
  const sync = inter.recv<SyncMessage>(0, TAG_SYNC);
  if (sync.env) Object.assign(process.env, sync.env);
  if (sync.wdir) process.chdir(sync.wdir);
  await serve(inter, 0);
  inter.Disconnect();
  MPI.Finalize();
}
