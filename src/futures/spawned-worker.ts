/**
 * The program of a spawned worker (spawn mode, spawn.ts): `node [node_args] spawned-worker.js`,
 * started by the parent's MPI.COMM_SELF.Spawn. It lives inside the package and reaches tsmpi by
 * relative paths (the bundle's copy through the same core as the entry points), so it finds the
 * same runtime as the parent whatever directory it runs in and whatever the script's
 * node_modules hold. spawned-main.ts is what it does.
 */
import { runSpawnedWorker } from './spawned-main.js';

await runSpawnedWorker();
