import { describe } from './buffer.js';
import type { Comm } from './comm.js';
import { APPNUM, HOST, IO, TAG_UB, UNIVERSE_SIZE, WTIME_IS_GLOBAL } from './constants.js';
import { ErrorClass } from './error-classes.js';

/**
 * Communicator attributes, mpi4py-style: MPI.Comm.Create_keyval(copy_fn, delete_fn) makes a key;
 * comm.Set_attr / Get_attr / Delete_attr store, read and remove a value under it. Attributes are
 * local to one process (no call communicates). comm.Dup passes each attribute through its key's
 * copy_fn (a value of undefined, null or false means "do not copy"); comm.Free and Delete_attr
 * call the key's delete_fn. The values live in a WeakMap keyed by the communicator object, so a
 * communicator without attributes costs nothing and a dropped one takes its values with it.
 */

/** copy_fn(oldcomm, keyval, value) → the value of the new communicator, or undefined/null/false to skip. */
export type CopyFn = (oldcomm: Comm, keyval: number, value: unknown) => unknown;
/** delete_fn(comm, keyval, value): called when the attribute is deleted or its communicator freed. */
export type DeleteFn = (comm: Comm, keyval: number, value: unknown) => void;

/** What MPI.Comm.Free_keyval returns (MPICH's value of MPI_KEYVAL_INVALID). */
export const KEYVAL_INVALID = 0x24000000;

interface Keyval {
  /** undefined: never copied (MPI_COMM_NULL_COPY_FN); true: copied as is (MPI_COMM_DUP_FN). */
  readonly copy: CopyFn | true | undefined;
  readonly remove: DeleteFn | undefined;
  /** Free_keyval was called: no new Set_attr, but attributes already set keep working. */
  freed: boolean;
}

const PREDEFINED = new Set([TAG_UB, HOST, IO, WTIME_IS_GLOBAL, APPNUM, UNIVERSE_SIZE]);
/** User keyvals count up from here, clear of the predefined keys (0x644000xx) and KEYVAL_INVALID. */
const FIRST_KEYVAL = 0x100;
let nextKeyval = FIRST_KEYVAL;
const keyvals = new Map<number, Keyval>();
const stores = new WeakMap<Comm, Map<number, unknown>>();

type Fail = (call: string, errorClass: number, message: string) => never;

/** MPI.Comm.Create_keyval: a new key for Set_attr. */
export function createKeyval(fail: Fail, copyFn?: CopyFn | boolean | null, deleteFn?: DeleteFn | null): number {
  if (!(copyFn === undefined || copyFn === null || typeof copyFn === 'boolean' || typeof copyFn === 'function')) {
    fail('Create_keyval', ErrorClass.ERR_ARG, `copy_fn must be a function, true, false or null, got ${describe(copyFn)}`);
  }
  if (!(deleteFn === undefined || deleteFn === null || typeof deleteFn === 'function')) {
    fail('Create_keyval', ErrorClass.ERR_ARG, `delete_fn must be a function or null, got ${describe(deleteFn)}`);
  }
  const keyval = nextKeyval++;
  keyvals.set(keyval, {
    copy: copyFn === true ? true : typeof copyFn === 'function' ? copyFn : undefined,
    remove: deleteFn ?? undefined,
    freed: false,
  });
  return keyval;
}

/** MPI.Comm.Free_keyval: returns MPI.KEYVAL_INVALID. */
export function freeKeyval(fail: Fail, keyval: number): number {
  const k = userKeyval(fail, 'Free_keyval', keyval);
  k.freed = true;
  return KEYVAL_INVALID;
}

function userKeyval(fail: Fail, call: string, keyval: unknown): Keyval {
  const k = keyvals.get(keyval as number);
  if (k === undefined) {
    fail(call, ErrorClass.ERR_KEYVAL, `keyval ${typeof keyval === 'number' ? keyval : describe(keyval)} is not a ` +
      `key made by MPI.Comm.Create_keyval${PREDEFINED.has(keyval as number) ? ' (predefined keys are read-only)' : ''}`);
  }
  return k;
}

/** comm.Set_attr: stores value under keyval, deleting the value it replaces. */
export function setAttr(comm: Comm, keyval: number, value: unknown): void {
  const fail = comm.fail.bind(comm);
  const k = userKeyval(fail, 'Set_attr', keyval);
  if (k.freed) fail('Set_attr', ErrorClass.ERR_KEYVAL, `keyval ${keyval} has been freed`);
  let store = stores.get(comm);
  if (store === undefined) stores.set(comm, store = new Map());
  if (store.has(keyval)) k.remove?.(comm, keyval, store.get(keyval));
  store.set(keyval, value);
}

/** comm.Get_attr for a user key: the value, or null when it is not set on comm. */
export function getAttr(comm: Comm, keyval: number): unknown {
  const store = stores.get(comm);
  if (store !== undefined && store.has(keyval)) return store.get(keyval);
  if (!keyvals.has(keyval)) {
    comm.fail('Get_attr', ErrorClass.ERR_KEYVAL, `keyval ${typeof keyval === 'number' ? keyval : describe(keyval)} ` +
      'is neither predefined nor made by MPI.Comm.Create_keyval');
  }
  return null;
}

/** comm.Delete_attr: calls delete_fn and removes the attribute (ERR_KEYVAL if it is not set). */
export function deleteAttr(comm: Comm, keyval: number): void {
  const fail = comm.fail.bind(comm);
  const k = userKeyval(fail, 'Delete_attr', keyval);
  const store = stores.get(comm);
  if (store === undefined || !store.has(keyval)) {
    return fail('Delete_attr', ErrorClass.ERR_KEYVAL, `keyval ${keyval} is not set on this communicator`);
  }
  const value = store.get(keyval);
  store.delete(keyval);
  k.remove?.(comm, keyval, value);
}

/** comm.Dup: each attribute of `from` that its copy_fn keeps, onto `to`. */
export function copyAttrs(from: Comm, to: Comm): void {
  const store = stores.get(from);
  if (store === undefined) return;
  for (const [keyval, value] of store) {
    const k = keyvals.get(keyval)!;
    if (k.copy === undefined) continue;
    const copied = k.copy === true ? value : k.copy(from, keyval, value);
    if (copied === undefined || copied === null || copied === false) continue;
    let target = stores.get(to);
    if (target === undefined) stores.set(to, target = new Map());
    target.set(keyval, copied);
  }
}

/** MPI.Finalize: calls delete_fn for every attribute of COMM_SELF, the last set first. */
export function deleteAttrsAtFinalize(comm: Comm): void {
  const store = stores.get(comm);
  if (store === undefined) return;
  stores.delete(comm);
  for (const [keyval, value] of [...store].reverse()) keyvals.get(keyval)!.remove?.(comm, keyval, value);
}

/** comm.Free: calls delete_fn for every attribute of comm, in the order they were set. */
export function deleteAllAttrs(comm: Comm): void {
  const store = stores.get(comm);
  if (store === undefined) return;
  stores.delete(comm);
  for (const [keyval, value] of store) keyvals.get(keyval)!.remove?.(comm, keyval, value);
}
