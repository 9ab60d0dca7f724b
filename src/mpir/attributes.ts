import { describe } from './validate.js';
import { APPNUM, HOST, IO, LASTUSEDCODE, TAG_UB, UNIVERSE_SIZE, WTIME_IS_GLOBAL } from './constants.js';
import { ErrorClass } from './error-classes.js';

/**
 * Attributes of communicators, datatypes and windows, mpi4py-style: MPI.Comm.Create_keyval
 * (MPI.Datatype.Create_keyval, MPI.Win.Create_keyval) makes a key for its kind of object;
 * obj.Set_attr / Get_attr / Delete_attr store, read and remove a value under it. Attributes are
 * local to one process (no call communicates). comm.Dup and datatype.Dup pass each attribute
 * through its key's copy_fn (a value of undefined, null or false means "do not copy"); Free and
 * Delete_attr call the key's delete_fn. The values live in a WeakMap keyed by the object, so an
 * object without attributes costs nothing and a dropped one takes its values with it.
 */

/** The kinds of object that carry attributes; a key works on the kind it was made for. */
export type AttrKind = 'Comm' | 'Datatype' | 'Win';

/** copy_fn(oldobj, keyval, value) → the value of the new object, or undefined/null/false to skip. */
export type CopyFn<T = any> = (oldobj: T, keyval: number, value: unknown) => unknown;
/** delete_fn(obj, keyval, value): called when the attribute is deleted or its object freed. */
export type DeleteFn<T = any> = (obj: T, keyval: number, value: unknown) => void;

/** What Free_keyval returns (MPICH's value of MPI_KEYVAL_INVALID). */
export const KEYVAL_INVALID = 0x24000000;

interface Keyval {
  readonly kind: AttrKind;
  /** undefined: never copied (MPI_NULL_COPY_FN); true: copied as is (MPI_DUP_FN). */
  readonly copy: CopyFn | true | undefined;
  readonly remove: DeleteFn | undefined;
  /** Free_keyval was called: no new Set_attr, but attributes already set keep working. */
  freed: boolean;
}

const PREDEFINED = new Set([TAG_UB, HOST, IO, WTIME_IS_GLOBAL, APPNUM, UNIVERSE_SIZE, LASTUSEDCODE]);
/** User keyvals count up from here, clear of the predefined keys (0x644000xx) and KEYVAL_INVALID. */
const FIRST_KEYVAL = 0x100;
let nextKeyval = FIRST_KEYVAL;
const keyvals = new Map<number, Keyval>();
const stores = new WeakMap<object, Map<number, unknown>>();

type Fail = (call: string, errorClass: number, message: string) => never;

/** The object an attribute call works on: what it is, and how it reports an error. */
export interface AttrOwner {
  readonly kind: AttrKind;
  readonly obj: object;
  readonly fail: Fail;
}

/** Create_keyval of `kind`: a new key for Set_attr on objects of that kind. */
export function createKeyval(kind: AttrKind, fail: Fail, copyFn?: CopyFn | boolean | null, deleteFn?: DeleteFn | null): number {
  if (!(copyFn === undefined || copyFn === null || typeof copyFn === 'boolean' || typeof copyFn === 'function')) {
    fail('Create_keyval', ErrorClass.ERR_ARG, `copy_fn must be a function, true, false or null, got ${describe(copyFn)}`);
  }
  if (!(deleteFn === undefined || deleteFn === null || typeof deleteFn === 'function')) {
    fail('Create_keyval', ErrorClass.ERR_ARG, `delete_fn must be a function or null, got ${describe(deleteFn)}`);
  }
  const keyval = nextKeyval++;
  keyvals.set(keyval, {
    kind,
    copy: copyFn === true ? true : typeof copyFn === 'function' ? copyFn : undefined,
    remove: deleteFn ?? undefined,
    freed: false,
  });
  return keyval;
}

/** Free_keyval: returns KEYVAL_INVALID. */
export function freeKeyval(kind: AttrKind, fail: Fail, keyval: number): number {
  const k = userKeyval(kind, fail, 'Free_keyval', keyval);
  k.freed = true;
  return KEYVAL_INVALID;
}

function userKeyval(kind: AttrKind, fail: Fail, call: string, keyval: unknown): Keyval {
  const k = keyvals.get(keyval as number);
  if (k === undefined || k.kind !== kind) {
    const made = k === undefined ? '' : ` (it was made by MPI.${k.kind}.Create_keyval)`;
    fail(call, ErrorClass.ERR_KEYVAL, `keyval ${typeof keyval === 'number' ? keyval : describe(keyval)} is not a ` +
      `key made by MPI.${kind}.Create_keyval${made}${PREDEFINED.has(keyval as number) ? ' (predefined keys are read-only)' : ''}`);
  }
  return k;
}

/** Set_attr: stores value under keyval, deleting the value it replaces. */
export function setAttr(owner: AttrOwner, keyval: number, value: unknown): void {
  const k = userKeyval(owner.kind, owner.fail, 'Set_attr', keyval);
  if (k.freed) owner.fail('Set_attr', ErrorClass.ERR_KEYVAL, `keyval ${keyval} has been freed`);
  let store = stores.get(owner.obj);
  if (store === undefined) stores.set(owner.obj, store = new Map());
  if (store.has(keyval)) k.remove?.(owner.obj, keyval, store.get(keyval));
  store.set(keyval, value);
}

/** Get_attr for a user key: the value, or null when it is not set. */
export function getAttr(owner: AttrOwner, keyval: number): unknown {
  const store = stores.get(owner.obj);
  if (store !== undefined && store.has(keyval)) return store.get(keyval);
  const k = keyvals.get(keyval);
  if (k === undefined || k.kind !== owner.kind) {
    owner.fail('Get_attr', ErrorClass.ERR_KEYVAL, `keyval ${typeof keyval === 'number' ? keyval : describe(keyval)} ` +
      `is neither predefined nor made by MPI.${owner.kind}.Create_keyval`);
  }
  return null;
}

/** Delete_attr: calls delete_fn and removes the attribute (ERR_KEYVAL if it is not set). */
export function deleteAttr(owner: AttrOwner, keyval: number): void {
  const k = userKeyval(owner.kind, owner.fail, 'Delete_attr', keyval);
  const store = stores.get(owner.obj);
  if (store === undefined || !store.has(keyval)) {
    return owner.fail('Delete_attr', ErrorClass.ERR_KEYVAL, `keyval ${keyval} is not set on this object`);
  }
  const value = store.get(keyval);
  store.delete(keyval);
  k.remove?.(owner.obj, keyval, value);
}

/** Dup: each attribute of `from` that its copy_fn keeps, onto `to`. */
export function copyAttrs(from: object, to: object): void {
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
export function deleteAttrsAtFinalize(obj: object): void {
  const store = stores.get(obj);
  if (store === undefined) return;
  stores.delete(obj);
  for (const [keyval, value] of [...store].reverse()) keyvals.get(keyval)!.remove?.(obj, keyval, value);
}

/** Free: calls delete_fn for every attribute of obj, in the order they were set. */
export function deleteAllAttrs(obj: object): void {
  const store = stores.get(obj);
  if (store === undefined) return;
  stores.delete(obj);
  for (const [keyval, value] of store) keyvals.get(keyval)!.remove?.(obj, keyval, value);
}
