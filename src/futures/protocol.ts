/**
 * The messages between the master (the rank that runs the script and owns the executors) and
 * its workers, all object-form point-to-point on the pool's own communicator (a Dup of the
 * job's COMM_WORLD, or in spawn mode the intercommunicator Spawn made, so no message of the program can match one of these):
 *
 *   master → worker   TAG_TASK    TaskMessage: one task (a submit) or one chunk of a map
 *   worker → master   TAG_RESULT  ResultMessage: the values of every call of the task, or its error
 *   master → worker   TAG_STOP    null: finish, MPI.Finalize and exit
 *   master → worker   TAG_SYNC    spawn mode only, first: the workers' env and wdir (spawn.ts)
 *
 * Before the pool's communicator exists, the master opens or releases the waiting workers with
 * one control message each on COMM_WORLD (TAG_CONTROL), see job.ts. A worker holds at most one
 * task: the master sends the next one only when the result of the last one came back, which is
 * how load balances (a worker that finishes early gets the next task early).
 */
import type { TaskSpec } from './task.js';

/** Tags on the pool's communicator. */
export const TAG_TASK = 1;
export const TAG_RESULT = 2;
export const TAG_STOP = 3;
/** Spawn mode: the parent's first message to each spawned worker (spawn.ts's SyncMessage: env, wdir). */
export const TAG_SYNC = 4;

/**
 * The tag of the control message on COMM_WORLD that opens (`'open'`) or releases (`'stop'`) the
 * workers waiting after start-up: within the 32767 every MPI guarantees, and far from the small
 * tags programs use.
 */
export const TAG_CONTROL = 32_001;
export type ControlMessage = 'open' | 'stop';

/** One task: `fn` applied to each argument list of `calls` (one list for submit, chunksize for map). */
export interface TaskMessage {
  readonly id: number;
  readonly fn: TaskSpec;
  readonly calls: readonly (readonly unknown[])[];
}

/** What a task threw, as text: Errors do not survive the trip as objects of their class. */
export interface RemoteError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

/** A task's outcome, sent by the worker of pool rank `worker`. */
export type ResultMessage =
  | { readonly id: number; readonly worker: number; readonly ok: true; readonly values: readonly unknown[] }
  | { readonly id: number; readonly worker: number; readonly ok: false; readonly error: RemoteError };

/** A thrown value as RemoteError (a non-Error is described by its string form). */
export function describeThrown(e: unknown): RemoteError {
  if (e instanceof Error) {
    return { name: e.name, message: e.message, stack: e.stack ?? `${e.name}: ${e.message}` };
  }
  const text = typeof e === 'string' ? e : safeString(e);
  return { name: 'Error', message: text, stack: `Error: ${text}` };
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
