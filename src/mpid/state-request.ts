import os from 'node:os';
import { type Doorbell, DOORBELL_WORD } from '../common/doorbell.js';
import { addon } from '../native/addon.js';

/**
 * Asking a running rank what it is doing: tsmpiexec sends STATE_SIGNAL to every rank before it
 * stops a job (timeout, SIGINT, SIGTERM), and a person can do the same (`kill -USR2 <pid>`),
 * also under hydra or Slurm. The rank answers on stderr with the call it is blocked in and its
 * pending operations.
 *
 * The handler is native (see native/src/state_signal.cc): it counts the request in
 * `stateRequestFlag`, rings the rank's doorbell so a blocking sleep ends, and wakes the event
 * loop. A blocked call checks the flag where it would sleep or has slept (Progress.step), and
 * answers from inside the call, whose stack says which call it is; otherwise the event loop
 * answers. Either way the flag is taken once (exchange with 0), so a request gets one answer.
 */
export const STATE_SIGNAL = 'SIGUSR2';

/** Counted by the native handler; 0 when no request is pending. */
export const stateRequestFlag = new Int32Array(new SharedArrayBuffer(4));

/** Where the answer is given from: inside a blocking MPI call, or from the event loop. */
export type StateContext = 'blocked' | 'event-loop';

let reporter: ((context: StateContext) => void) | null = null;

/**
 * Installs the handler (the first call per process) and makes `report` the answer. A program
 * that listens for the signal itself keeps it: then nothing is installed (returns false).
 */
export function installStateRequest(report: (context: StateContext) => void): boolean {
  if (reporter === null && process.listenerCount(STATE_SIGNAL) > 0) return false;
  reporter = report;
  addon.stateSignalInstall(os.constants.signals[STATE_SIGNAL], stateRequestFlag, 0, () => answerStateRequest('event-loop'));
  return true;
}

/**
 * The rank's doorbell (its own segment, on which every blocking sleep waits, whatever the
 * device), rung by the handler; null unarms it before the segment may go.
 */
export function armStateRequestBell(bell: Doorbell | null): void {
  if (reporter === null) return;
  addon.stateSignalBell(bell === null ? null : bell.cells, DOORBELL_WORD);
}

/** Answers a pending request, if there is one. */
export function answerStateRequest(context: StateContext): void {
  if (Atomics.exchange(stateRequestFlag, 0, 0) === 0 || reporter === null) return;
  reporter(context);
}
