/**
 * The program of a spawned worker (spawn mode, spawn.ts): `node [node_args] spawned-worker.js`,
 * started by the parent's MPI.COMM_SELF.Spawn. It lives inside the package and imports tsmpi by
 * relative paths, so it finds the same runtime as the parent whatever directory it runs in and
 * whatever the script's node_modules hold.
 *
 * MPI.Init connects to the parent; the parent's first message (TAG_SYNC) sets the environment
 * and the working directory; then the worker serves tasks until the parent says stop, and
 * disconnects and finalizes (the parent's Disconnect waits for that), and exits with status 0.
 */
import process from 'node:process';
import { MPI, type Intercomm } from '../index.js';
import { TAG_SYNC } from './protocol.js';
import type { SyncMessage } from './spawn.js';
import { serve } from './worker.js';

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
