import { describe } from '../buffer.js';
import type { Comm, Intracomm } from '../comm.js';
import { ErrorClass } from '../error-classes.js';
import { derived } from '../lineage.js';

/**
 * What the topology modules share: reading integer-list arguments, and the error handler a new
 * topology communicator takes from the one it was made from.
 */

export { show } from '../validate.js';
import { show } from '../validate.js';

/** An array (or typed array) of integers as a number[]; `errorClass` when it is not one. */
export function intArray(comm: Comm, call: string, what: string, x: unknown, errorClass: number = ErrorClass.ERR_ARG): number[] {
  if (!(Array.isArray(x) || ArrayBuffer.isView(x))) comm.fail(call, errorClass, `${what} must be an array of integers, got ${describe(x)}`);
  const out = Array.from(x as ArrayLike<number>);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isInteger(out[i])) comm.fail(call, errorClass, `${what}[${i}] is ${show(out[i])}, not an integer`);
  }
  return out;
}

/** A topology communicator made from `parent` takes its error handler. */
export function adopt<T extends Intracomm>(parent: Comm, made: T): T {
  made.Set_errhandler(parent.Get_errhandler());
  return derived(made, parent);
}
