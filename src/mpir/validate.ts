import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';

/**
 * Argument checks shared by the public calls, for the arguments many calls take (an integer of
 * a range, a list of integers, a value for the object forms; the checks of a status and of lists
 * of statuses or requests sit beside their classes, in status.ts and request.ts). Each check returns null when the argument is fine and the text of the problem
 * otherwise ("status must be an MPI.Status or undefined, got number 3"); the caller raises it
 * with its error class through its object's error handler (Comm.fail, Win.fail), or with
 * `raise` where no object has a handler. On success nothing is allocated: the checks are
 * typeof/instanceof/range tests, cheap enough for Send, Recv and Wait.
 */

/** What a value is, for messages: its class, or its type and value. */
export function describe(x: unknown): string {
  if (x === null) return 'null';
  if (x === undefined) return 'undefined';
  if (typeof x === 'object') return (x as object).constructor?.name ?? 'object';
  return `${typeof x} ${String(x)}`;
}

/** A number as it is, anything else as describe() names it (for messages; safe for symbols). */
export function show(x: unknown): string {
  return typeof x === 'number' ? String(x) : describe(x);
}

/** Whether v is an integer that fits MPI's int (a C int: -2^31 .. 2^31-1). */
export function isInt32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff;
}

/** An integer in [min, max] (both within MPI's int). */
export function intProblem(v: unknown, name: string, min: number, max: number, expected?: string): string | null {
  if (isInt32(v) && v >= min && v <= max) return null;
  return `${name} ${show(v)} is invalid (expected ${expected ?? `an integer in ${min}..${max}`})`;
}

/**
 * A list of integers (an array or typed array), each in [min, max]; at most maxLength entries
 * (lists size arrays the call allocates). Booleans are allowed where flags are meant (periods).
 */
export function intListProblem(list: unknown, name: string, min = -0x80000000, max = 0x7fffffff,
                               options: { flags?: boolean; maxLength?: number } = {}): string | null {
  if (!Array.isArray(list) && !(ArrayBuffer.isView(list) && !(list instanceof DataView))) {
    return `${name} must be an array of integers, got ${describe(list)}`;
  }
  const items = list as ArrayLike<unknown>;
  if (options.maxLength !== undefined && items.length > options.maxLength) {
    return `${name} has ${items.length} entries (at most ${options.maxLength})`;
  }
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (options.flags === true && typeof v === 'boolean') continue;
    if (!isInt32(v) || v < min || v > max) {
      return `${name}[${i}] is ${show(v)} (expected ${options.flags ? 'a boolean or ' : ''}an integer` +
        `${min === -0x80000000 && max === 0x7fffffff ? '' : ` in ${min}..${max}`})`;
    }
  }
  return null;
}

/** A value the object forms can send: node:v8's serializer takes neither symbols nor functions. */
export function clonableProblem(value: unknown, name: string): string | null {
  const t = typeof value;
  if (t !== 'symbol' && t !== 'function') return null;
  return `${name} is a ${t}, which cannot be serialized (send a value the structured-clone algorithm accepts)`;
}

/**
 * Raises an error of a call that has no object with an error handler (a static function, a
 * status, a group): MPI.Exception with the call's name first, always thrown.
 */
export function raise(call: string, errorClass: number, message: string): never {
  throw new MPIException(errorClass, `${call}: ${message}`);
}

/** Raises `problem` when it is not null (the one-line form of a check at the top of a call). */
export function check(problem: string | null, call: string, errorClass: number = ErrorClass.ERR_ARG): void {
  if (problem !== null) raise(call, errorClass, problem);
}
