/**
 * The worker's side: receive a task from the master, run it, send its result, until the master
 * says stop. A task that throws (or whose function cannot be found, or whose result cannot be
 * serialized) is reported as its error, and the worker goes on serving. Every wait is an awaited
 * request, so a worker with nothing to do sleeps on its doorbell and uses no CPU.
 */
import { importModule } from './module-import.js';
import { serializer } from './serializer.js';
import { MPI, type Comm } from '../index.js';
import { TAG_RESULT, describeThrown, type RemoteError, type ResultMessage, type TaskMessage } from './protocol.js';
import { compileSource, type TaskSpec } from './task.js';

type Callable = (...args: unknown[]) => unknown;

/** Imported task modules, by URL: each is imported once per worker. */
const modules = new Map<string, Promise<Record<string, unknown>>>();

/**
 * Serves tasks from `master` on `comm` until it sends stop (a null message). Returns the number
 * of tasks run. `comm` is an intracommunicator with the master in it, or a spawned worker's
 * intercommunicator to its parent (master 0 of the remote group; comm.rank, which the results
 * carry, is then the worker's rank in the remote group as the parent sees it).
 */
export async function serve(comm: Comm, master: number): Promise<number> {
  let served = 0;
  for (;;) {
    const task = await comm.irecv<TaskMessage | null>(master, MPI.ANY_TAG);
    if (task === null) return served;
    await comm.Isend(await runTask(task, comm.rank), master, TAG_RESULT);
    served++;
  }
}

/** The serialized ResultMessage of one task. */
async function runTask(task: TaskMessage, worker: number): Promise<Uint8Array> {
  let outcome: ResultMessage;
  try {
    const fn = await taskFunction(task.fn);
    const values: unknown[] = [];
    for (const args of task.calls) values.push(await fn(...args));
    outcome = { id: task.id, worker, ok: true, values };
  } catch (e) {
    return serializer().serialize(failure(task.id, worker, describeThrown(e)));
  }
  try {
    return serializer().serialize(outcome);
  } catch (e) {
    return serializer().serialize(failure(task.id, worker, {
      name: 'DataCloneError',
      message: `the task's result cannot be sent back (node:v8 serializer: ${(e as Error).message}); ` +
        'results must be structured-cloneable',
      stack: (e as Error).stack ?? '',
    }));
  }
}

function failure(id: number, worker: number, error: RemoteError): ResultMessage {
  return { id, worker, ok: false, error };
}

async function taskFunction(spec: TaskSpec): Promise<Callable> {
  if (spec.kind === 'source') return compileSource(spec.text);
  let loading = modules.get(spec.url);
  if (loading === undefined) {
    loading = importModule(spec.url);
    modules.set(spec.url, loading);
    // A module that failed to load is tried again by the next task that names it.
    loading.catch(() => modules.delete(spec.url));
  }
  const exported = (await loading)[spec.name];
  if (typeof exported !== 'function') {
    throw new TypeError(`module ${spec.url} has no function export ${JSON.stringify(spec.name)} (it is ${typeof exported})`);
  }
  return exported as Callable;
}
