import { onMainThread } from '../mpid/main-thread.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';

export const THREAD_SINGLE = 0;
export const THREAD_FUNNELED = 1;
export const THREAD_SERIALIZED = 2;
export const THREAD_MULTIPLE = 3;

/**
 * The thread support tsmpi provides: THREAD_FUNNELED. A rank is a process whose MPI state (the
 * engine's queues, the devices' rings, request objects) lives in its main thread's JavaScript
 * heap; a worker_threads Worker has a heap of its own and would load a second, separate tsmpi
 * that bootstraps again over the process manager's one connection. So MPI is called from the
 * main thread only, and MPI.Init (or Session.Init) in a Worker raises MPI.Exception. Workers
 * can still compute on shared memory (a SharedArrayBuffer the main thread sends and receives).
 */
export const THREAD_PROVIDED = THREAD_FUNNELED;

const NAMES = ['MPI_THREAD_SINGLE', 'MPI_THREAD_FUNNELED', 'MPI_THREAD_SERIALIZED', 'MPI_THREAD_MULTIPLE'];

/** The standard's name of a level, as the info key `thread_level` carries it. */
export function threadLevelName(level: number): string {
  return NAMES[level] ?? `level ${level}`;
}

export function isThreadLevel(level: unknown): level is number {
  return level === THREAD_SINGLE || level === THREAD_FUNNELED || level === THREAD_SERIALIZED || level === THREAD_MULTIPLE;
}

/** Why MPI cannot start in this thread, as an MPI.Exception; nothing in the main thread. */
export function refuseWorkerThread(call: string): void {
  if (onMainThread()) return;
  throw new MPIException(ErrorClass.ERR_OTHER, `${call}: called in a worker_threads Worker. tsmpi provides ` +
    'MPI.THREAD_FUNNELED: MPI runs in the main thread of each rank only. Post the data to the main thread ' +
    '(or share a SharedArrayBuffer with it) and call MPI there');
}

/** MPI.Is_thread_main: whether this is the thread that may call MPI. */
export function isThreadMain(): boolean {
  return onMainThread();
}
