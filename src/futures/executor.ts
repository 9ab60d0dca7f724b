/**
 * MPIPoolExecutor, after mpi4py.futures.MPIPoolExecutor: submit(fn, ...args) → Future,
 * map(fn, ...iterables, { chunksize, unordered, timeout }) → results in order, shutdown(wait,
 * cancel_futures). Its workers come in one of mpi4py's three ways:
 *
 * - running-job mode (job.ts): the other ranks of a job started with `--import tsmpi/futures`,
 *   shared by every executor of the script; `max_workers` bounds how many of them one executor
 *   keeps busy at once (its other tasks wait here, in order);
 * - MPICommExecutor (comm-executor.ts): the other ranks of a communicator;
 * - spawn mode (spawn.ts), everywhere else: the executor spawns `max_workers` workers of its own
 *   with MPI.COMM_SELF.Spawn, and its shutdown stops them and disconnects.
 */
import { serializer } from './serializer.js';
import { MPI } from '../index.js';
import { Future } from './future.js';
import { runningJobPool } from './job.js';
import { MapResults } from './map-results.js';
import type { PoolTask, WorkerPool } from './pool.js';
import { checkSpawnOptions, spawnPool, type SpawnOptions } from './spawn.js';
import type { TaskMessage } from './protocol.js';
import { describeValue, taskSpec, type TaskFunction, type TaskSpec } from './task.js';

export interface MPIPoolExecutorOptions extends SpawnOptions {
  /**
   * Running-job mode: at most this many tasks of this executor run at once (default: every
   * worker of the job). Spawn mode: the number of workers to spawn (default:
   * $TSMPI_FUTURES_MAX_WORKERS, else MPI.UNIVERSE_SIZE minus the world size, at least 1).
   * The other options (env, wdir, node_exe, node_args, mpi_info) are spawn mode's, spawn.ts.
   */
  max_workers?: number | null;
}

const OPTION_NAMES = ['max_workers', 'env', 'wdir', 'node_exe', 'node_args', 'mpi_info'];

export interface MapOptions {
  /** Arguments per task (default 1): bigger chunks mean fewer messages for short calls. */
  chunksize?: number;
  /** Yield results as their chunks complete instead of in the order of the arguments. */
  unordered?: boolean;
  /** Seconds from the map call after which a result not yet there raises TimeoutError (default: none). */
  timeout?: number | null;
}

type AnyFunction = (...args: any[]) => unknown;

/**
 * @internal The option (under a symbol, so Object.keys and the types do not show it) that gives
 * an executor workers of its own instead of the job's: MPICommExecutor's.
 */
export const OWN_POOL = Symbol('tsmpi.futures.ownPool');
interface OwnPoolOption {
  [OWN_POOL]?: { pool: WorkerPool; release: () => void };
}

export class MPIPoolExecutor {
  private readonly pool: WorkerPool;
  private readonly maxWorkers: number;
  /** Tasks waiting for one of this executor's max_workers places (FIFO from backlogHead). */
  private readonly backlog: PoolTask[] = [];
  private backlogHead = 0;
  /** Tasks of this executor handed to the pool and not settled yet. */
  private inPool = 0;
  /** Futures not done yet (shutdown waits for them). */
  private readonly pending = new Set<Future<unknown>>();
  private shut = false;
  /** For an executor with workers of its own (MPICommExecutor, spawn mode): stops them once its tasks are done. */
  private readonly release: (() => void) | null;

  /**
   * `new MPIPoolExecutor()`, `new MPIPoolExecutor({ max_workers: 4 })` (or just 4). In
   * running-job mode (with other ranks than this one) it uses the job's workers; elsewhere it
   * spawns its workers here, and waits until they have started. A process started without a
   * launcher cannot spawn: MPI.ERR_SPAWN, saying to start it with `tsmpiexec -n 1`.
   */
  constructor(options: MPIPoolExecutorOptions | number | null = {}) {
    const max = maxWorkersOf(options);
    const object = typeof options === 'object' && options !== null ? options : {};
    const own = (object as OwnPoolOption)[OWN_POOL];
    const job = own === undefined ? runningJobPool() : null;
    let pool: WorkerPool;
    let release: (() => void) | null = own?.release ?? null;
    if (own !== undefined) pool = own.pool;
    else if (job !== null && job.size > 0) pool = job;
    else {
      // mpi4py's SpawnPool: workers of this executor alone, as many as max_workers.
      const spawned = spawnPool({ ...object, max_workers: max });
      pool = spawned.pool;
      release = spawned.release;
    }
    if (pool.isStopped) throw new MPI.Exception(MPI.ERR_OTHER, 'MPIPoolExecutor: the workers of this job have been stopped');
    this.pool = pool;
    this.maxWorkers = max ?? pool.size;
    this.release = release;
  }

  /** How many tasks of this executor run at once: max_workers, at most the number of workers. */
  get num_workers(): number {
    return Math.min(this.maxWorkers, this.pool.size);
  }

  /** Schedules fn(...args) on a worker: a self-contained function or a '<module>#<export>' string. */
  submit<F extends AnyFunction>(fn: F, ...args: Parameters<F>): Future<Awaited<ReturnType<F>>>;
  submit<T = unknown>(fn: string | URL, ...args: unknown[]): Future<T>;
  submit(fn: TaskFunction, ...args: unknown[]): Future<unknown> {
    this.checkOpen('submit');
    const spec = this.spec('submit', fn);
    const future = new Future<unknown>();
    this.schedule(this.task('submit', spec, [args], future, true));
    return future;
  }

  /**
   * fn applied to the items of the iterables taken together (fn(a[0], b[0]), fn(a[1], b[1]),
   * ... up to the shortest), every call scheduled now; an options object may come last.
   */
  map<F extends AnyFunction>(fn: F, ...iterables: (Iterable<unknown> | MapOptions)[]): MapResults<Awaited<ReturnType<F>>>;
  map<T = unknown>(fn: string | URL, ...iterables: (Iterable<unknown> | MapOptions)[]): MapResults<T>;
  map(fn: TaskFunction, ...rest: (Iterable<unknown> | MapOptions)[]): MapResults<unknown> {
    this.checkOpen('map');
    const spec = this.spec('map', fn);
    const last = rest[rest.length - 1];
    const options = last !== undefined && !isIterable(last) ? checkMapOptions(rest.pop() as MapOptions) : {};
    if (rest.length === 0) throw argError('map', 'needs at least one iterable of arguments');
    const iterators = rest.map((it, i) => {
      if (!isIterable(it)) throw argError('map', `iterables[${i}] must be iterable, got ${describeValue(it)}`);
      return it[Symbol.iterator]();
    });
    return this.scheduleCalls('map', spec, zipped(iterators), options);
  }

  /**
   * fn(...args) for each `args` of `iterable` (each an iterable of arguments), as map does it;
   * mpi4py's starmap. An options object may come last.
   */
  starmap<F extends AnyFunction>(fn: F, iterable: Iterable<Parameters<F>>, options?: MapOptions): MapResults<Awaited<ReturnType<F>>>;
  starmap<T = unknown>(fn: string | URL, iterable: Iterable<Iterable<unknown>>, options?: MapOptions): MapResults<T>;
  starmap(fn: TaskFunction, iterable: Iterable<Iterable<unknown>>, options: MapOptions = {}): MapResults<unknown> {
    this.checkOpen('starmap');
    const spec = this.spec('starmap', fn);
    checkMapOptions(options, 'starmap');
    if (!isIterable(iterable)) throw argError('starmap', `iterable must be iterable, got ${describeValue(iterable)}`);
    let i = 0;
    const calls = (function* argumentLists(): Generator<unknown[]> {
      for (const args of iterable) {
        if (!isIterable(args)) throw argError('starmap', `iterable[${i}] must be an iterable of arguments, got ${describeValue(args)}`);
        i++;
        yield Array.from(args);
      }
    })();
    return this.scheduleCalls('starmap', spec, calls, options);
  }

  /** mpi4py's bootup: the workers are up already (the job's ranks, or spawned by the constructor), so it only returns the executor. */
  bootup(): this {
    this.checkOpen('bootup');
    return this;
  }

  /** Schedules the calls in tasks of `chunksize` (each all or none: a bad argument raises before any goes). */
  private scheduleCalls(call: string, spec: TaskSpec, argLists: Iterable<unknown[]>, options: MapOptions): MapResults<unknown> {
    const chunksize = options.chunksize ?? 1;
    const timeout = options.timeout ?? null;
    const chunks: Future<unknown[]>[] = [];
    const tasks: PoolTask[] = [];
    let calls: unknown[][] = [];
    for (const args of argLists) {
      calls.push(args);
      if (calls.length === chunksize) {
        tasks.push(this.chunk(call, spec, calls, chunks));
        calls = [];
      }
    }
    if (calls.length > 0) tasks.push(this.chunk(call, spec, calls, chunks));
    for (const t of tasks) this.schedule(t);
    return new MapResults(chunks, options.unordered === true, timeout === null ? null : Date.now() + timeout * 1000);
  }

  /**
   * Takes no more tasks; with `cancel_futures`, cancels those no worker has started; with
   * `wait` (the default), resolves when every task of this executor is done. In running-job
   * mode the workers stay for other executors and stop when the script ends; an executor of
   * MPICommExecutor, or one that spawned its workers, stops them once its tasks are done (a
   * spawned executor also disconnects from them: its workers exit).
   */
  async shutdown(wait = true, cancel_futures = false): Promise<void> {
    if (typeof wait !== 'boolean') throw argError('shutdown', `wait must be a boolean, got ${describeValue(wait)}`);
    if (typeof cancel_futures !== 'boolean') {
      throw argError('shutdown', `cancel_futures must be a boolean, got ${describeValue(cancel_futures)}`);
    }
    const first = !this.shut;
    this.shut = true;
    if (cancel_futures) for (const f of [...this.pending]) f.cancel();
    const drained = Promise.all([...this.pending].map((f) => new Promise((done) => f.add_done_callback(done))));
    const released = first && this.release !== null ? drained.then(this.release) : drained;
    if (wait) await released;
  }

  private chunk(call: string, spec: TaskSpec, calls: unknown[][], chunks: Future<unknown[]>[]): PoolTask {
    const future = new Future<unknown[]>();
    chunks.push(future);
    return this.task(call, spec, calls, future, false);
  }

  private task(call: string, fn: TaskSpec, calls: unknown[][], future: Future<any>, single: boolean): PoolTask {
    const id = this.pool.nextId();
    let bytes: Uint8Array;
    try {
      bytes = serializer().serialize({ id, fn, calls } satisfies TaskMessage);
    } catch (e) {
      throw argError(call, `the arguments cannot be sent to a worker (node:v8 serializer: ${(e as Error).message}); ` +
        'arguments must be structured-cloneable');
    }
    return { id, bytes, future, single, onSettled: () => this.settled() };
  }

  private schedule(task: PoolTask): void {
    this.pending.add(task.future);
    task.future.add_done_callback((f) => this.pending.delete(f));
    this.backlog.push(task);
    this.forward();
  }

  /** Hands waiting tasks to the pool while fewer than max_workers of ours are there. */
  private forward(): void {
    while (this.inPool < this.maxWorkers && this.backlogHead < this.backlog.length) {
      const task = this.backlog[this.backlogHead]!;
      this.backlog[this.backlogHead++] = undefined as unknown as PoolTask;
      if (task.future.cancelled()) continue;
      this.inPool++;
      this.pool.add(task);
    }
    if (this.backlogHead === this.backlog.length) {
      this.backlog.length = 0;
      this.backlogHead = 0;
    }
  }

  private settled(): void {
    this.inPool--;
    this.forward();
  }

  private spec(call: string, fn: unknown): TaskSpec {
    const spec = taskSpec(fn, 'fn');
    if (typeof spec === 'string') throw argError(call, spec);
    return spec;
  }

  private checkOpen(call: string): void {
    if (this.shut) throw new MPI.Exception(MPI.ERR_OTHER, `MPIPoolExecutor.${call}: cannot schedule new tasks after shutdown`);
    if (this.pool.isStopped) throw new MPI.Exception(MPI.ERR_OTHER, `MPIPoolExecutor.${call}: the workers of this job have been stopped`);
  }
}

function argError(call: string, text: string): InstanceType<typeof MPI.Exception> {
  return new MPI.Exception(MPI.ERR_ARG, `MPIPoolExecutor${call === 'constructor' ? '' : `.${call}`}: ${text}`);
}

/** The argument lists of map: one item of each iterator, until the shortest ends. */
function* zipped(iterators: Iterator<unknown>[]): Generator<unknown[]> {
  for (;;) {
    const args: unknown[] = [];
    for (const it of iterators) {
      const step = it.next();
      if (step.done === true) return;
      args.push(step.value);
    }
    yield args;
  }
}

function isIterable(v: unknown): v is Iterable<unknown> {
  return v !== null && v !== undefined && typeof (v as Iterable<unknown>)[Symbol.iterator] === 'function';
}

/** @internal The max_workers of the constructor's argument (checked: MPI.ERR_ARG naming what is wrong). */
export function maxWorkersOf(options: unknown): number | null | undefined {
  const max = typeof options === 'number' || options === null ? options : checkOptions(options).max_workers;
  if (max !== undefined && max !== null && !(Number.isInteger(max) && max > 0)) {
    throw argError('constructor', `max_workers must be a positive integer or null, got ${describeValue(max)}`);
  }
  return max;
}

function checkOptions(options: unknown): MPIPoolExecutorOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw argError('constructor', `options must be an object ({ max_workers, ... }), a number or null, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) throw argError('constructor', `unknown option ${JSON.stringify(key)} (known: ${OPTION_NAMES.join(', ')})`);
  }
  checkSpawnOptions(options as SpawnOptions);
  return options as MPIPoolExecutorOptions;
}

function checkMapOptions(options: MapOptions, call = 'map'): MapOptions {
  if (typeof options !== 'object' || options === null) {
    throw argError(call, `the last argument must be an iterable or the options, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!['chunksize', 'unordered', 'timeout'].includes(key)) {
      throw argError(call, `unknown option ${JSON.stringify(key)} (known: chunksize, unordered, timeout)`);
    }
  }
  const { chunksize, unordered, timeout } = options;
  if (chunksize !== undefined && !(Number.isInteger(chunksize) && chunksize >= 1)) {
    throw argError(call, `chunksize must be an integer of at least 1, got ${describeValue(chunksize)}`);
  }
  if (unordered !== undefined && typeof unordered !== 'boolean') {
    throw argError(call, `unordered must be a boolean, got ${describeValue(unordered)}`);
  }
  if (timeout !== undefined && timeout !== null && !(typeof timeout === 'number' && timeout >= 0 && Number.isFinite(timeout))) {
    throw argError(call, `timeout must be a number of seconds (0 or more) or null, got ${describeValue(timeout)}`);
  }
  return options;
}
