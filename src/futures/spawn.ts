/**
 * Spawn mode, after mpi4py.futures' SpawnPool: an MPIPoolExecutor made where the job has no
 * workers for it (a script started as `tsmpiexec -n 1 node script.js`, or any process not in
 * running-job mode) starts `max_workers` workers of its own with MPI.COMM_SELF.Spawn and talks
 * to them over the intercommunicator, with the protocol of the other modes (worker.ts's serve
 * on the workers' side, pool.ts's WorkerPool on ours):
 *
 *   parent                                         each spawned worker (spawned-worker.ts)
 *   COMM_SELF.Spawn(node, [spawned-worker.js], n)  MPI.Init: connects to the parent
 *   { env, wdir } to each (TAG_SYNC)               parent.recv(0, TAG_SYNC); applies them
 *   tasks, results, stop (protocol.ts)             serve(parent, 0)
 *   inter.Disconnect()                             parent.Disconnect(); MPI.Finalize(); exit
 *
 * MPI: Spawn is a call of the World Model, so the pool calls MPI.Init_thread when the program
 * has not called MPI.Init itself, and then also MPI.Finalize when the process ends (the event
 * loop is empty, or process.exit(0)). Pools still running then are stopped first; one still
 * running when the program calls MPI.Finalize itself is stopped by Finalize's first step (a
 * COMM_SELF attribute's delete callback), since Finalize would otherwise wait in Disconnect
 * for workers that wait for tasks.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MPI, type Intercomm } from '../index.js';
import { WorkerPool } from './pool.js';
import { TAG_SYNC } from './protocol.js';
import { describeValue } from './task.js';

/** The options of spawn mode (MPIPoolExecutor's, after mpi4py's). */
export interface SpawnOptions {
  /** Workers to spawn (default: $TSMPI_FUTURES_MAX_WORKERS, else MPI.UNIVERSE_SIZE minus the world size, at least 1). */
  max_workers?: number | null;
  /** Environment variables the workers set before their first task. */
  env?: Readonly<Record<string, string>> | null;
  /** The directory the workers change to before their first task (relative: to ours). */
  wdir?: string | null;
  /** The program that runs the workers (default: process.execPath, this node). */
  node_exe?: string | null;
  /** Node options for the workers, before the worker script (default: none), e.g. ['--max-old-space-size=4096']. */
  node_args?: readonly string[] | null;
  /** More info keys for Spawn (host, ...), as strings. */
  mpi_info?: Readonly<Record<string, string>> | null;
}

/** What the parent tells its workers after Spawn, before any task. */
export interface SyncMessage {
  readonly env: Readonly<Record<string, string>> | null;
  readonly wdir: string | null;
}

/** The worker entry script, beside this module's entry (futures/index sets it: see workerScript). */
let entryScript: string | null = null;

/**
 * @internal Called by futures/index with the URL of spawned-worker.js beside it: index is an
 * entry point of the bundle, so its import.meta.url is the futures directory (this module's
 * may be a shared chunk's).
 */
export function setWorkerScript(url: URL): void {
  entryScript = fileURLToPath(url);
}

function workerScript(): string {
  const beside = fileURLToPath(new URL('./spawned-worker.js', import.meta.url));
  const script = entryScript ?? beside;
  if (!existsSync(script)) {
    throw new MPI.Exception(MPI.ERR_SPAWN, `MPIPoolExecutor: the worker script ${script} is missing (build the package: npm run build)`);
  }
  return script;
}

/** Pools of this process whose workers run; stopped at the end of the process or at MPI.Finalize. */
const live = new Set<() => void>();
/** Whether the pool called MPI.Init_thread (then it finalizes MPI at the end of the process too). */
let initializedHere = false;
let hooked = false;

/** mpi4py's get_max_workers: the environment's count, else what the universe has room for beside this job. */
export function defaultMaxWorkers(): number {
  const fromEnv = process.env.TSMPI_FUTURES_MAX_WORKERS;
  if (fromEnv !== undefined && fromEnv !== '') {
    const n = Number(fromEnv);
    if (!(Number.isInteger(n) && n > 0)) {
      throw new MPI.Exception(MPI.ERR_ARG, `MPIPoolExecutor: TSMPI_FUTURES_MAX_WORKERS must be a positive integer, got ${JSON.stringify(fromEnv)}`);
    }
    return n;
  }
  const universe = MPI.COMM_WORLD.Get_attr(MPI.UNIVERSE_SIZE);
  return typeof universe === 'number' ? Math.max(universe - MPI.COMM_WORLD.size, 1) : 1;
}

/**
 * Spawns the workers (blocking until they have connected) and returns their pool, with the
 * release that stops them and disconnects. Raises MPI.ERR_SPAWN when they cannot be started.
 */
export function spawnPool(options: SpawnOptions): { pool: WorkerPool; release: () => void } {
  const sync: SyncMessage = { env: checkEnv(options.env), wdir: checkString('wdir', options.wdir) };
  const exe = checkString('node_exe', options.node_exe) ?? process.execPath;
  const nodeArgs = checkStrings('node_args', options.node_args);
  const extra = checkEnv(options.mpi_info, 'mpi_info');
  const script = workerScript();
  startMPI();
  const n = options.max_workers ?? defaultMaxWorkers();
  const info = MPI.Info.Create();
  for (const [k, v] of Object.entries(extra ?? {})) info.Set(k, v);
  const self = MPI.COMM_SELF;
  // COMM_SELF's handler is ERRORS_ARE_FATAL unless the program changed it: a spawn that fails
  // must reach the caller as an exception, not end the process.
  const handler = self.Get_errhandler();
  self.Set_errhandler(MPI.ERRORS_RETURN);
  let inter: Intercomm;
  try {
    inter = self.Spawn(exe, [...nodeArgs, script], n, info, 0);
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    throw new MPI.Exception(MPI.ERR_SPAWN, `MPIPoolExecutor: could not spawn ${n} worker${n === 1 ? '' : 's'} (${text})` +
      (/without a launcher/.test(text) ? '; a script that spawns workers must run under a launcher: ' +
        '`tsmpiexec -n 1 node script.js` (or `mpiexec -n 1 ...`), or use running-job mode: ' +
        '`tsmpiexec -n N node --import tsmpi/futures script.js`' : ''));
  } finally {
    self.Set_errhandler(handler);
    info.Free();
  }
  // Point-to-point, not bcast: an intercommunicator has the buffer collectives only.
  const workers = Array.from({ length: inter.Get_remote_size() }, (_, i) => i);
  for (const w of workers) inter.send(sync, w, TAG_SYNC);
  const pool = new WorkerPool(inter, workers);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    live.delete(release);
    pool.stop();
    inter.Disconnect();
  };
  live.add(release);
  return { pool, release };
}

/** MPI.Init_thread unless MPI runs (the program's own Init); hooks the end of the process and of MPI once. */
function startMPI(): void {
  if (MPI.Is_finalized()) {
    throw new MPI.Exception(MPI.ERR_OTHER, 'MPIPoolExecutor: cannot spawn workers after MPI.Finalize');
  }
  if (!MPI.Is_initialized()) {
    MPI.Init_thread(MPI.THREAD_FUNNELED);
    initializedHere = true;
  }
  if (hooked) return;
  hooked = true;
  // Finalize deletes COMM_SELF's attributes before anything else: the workers are told to stop
  // there, so the program's own MPI.Finalize does not wait for them forever.
  const keyval = MPI.Comm.Create_keyval(null, () => stopAll());
  MPI.COMM_SELF.Set_attr(keyval, true);
  const end = (): void => {
    stopAll();
    if (initializedHere && MPI.Is_initialized() && !MPI.Is_finalized()) MPI.Finalize();
  };
  process.once('beforeExit', end);
  // process.exit() skips beforeExit; 'exit' still lets synchronous MPI calls run. A process that
  // failed ends at once, and the launcher ends its workers.
  process.once('exit', (code) => {
    if (code === 0) end();
  });
}

function stopAll(): void {
  for (const release of [...live]) release();
}

function checkString(name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') throw argError(`${name} must be a non-empty string or null, got ${describeValue(value)}`);
  return value;
}

function checkStrings(name: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw argError(`${name} must be an array of strings or null, got ${describeValue(value)}`);
  }
  return [...value];
}

function checkEnv(value: unknown, name = 'env'): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value) ||
      !Object.values(value).every((v) => typeof v === 'string')) {
    throw argError(`${name} must be an object of string values or null, got ${describeValue(value)}`);
  }
  return { ...(value as Record<string, string>) };
}

function argError(text: string): InstanceType<typeof MPI.Exception> {
  return new MPI.Exception(MPI.ERR_ARG, `MPIPoolExecutor: ${text}`);
}

/** @internal Checks the spawn options without spawning (the constructor's argument checks). */
export function checkSpawnOptions(options: SpawnOptions): void {
  checkEnv(options.env);
  checkString('wdir', options.wdir);
  checkString('node_exe', options.node_exe);
  checkStrings('node_args', options.node_args);
  checkEnv(options.mpi_info, 'mpi_info');
}
