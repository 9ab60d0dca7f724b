import os from 'node:os';
import { describe } from './validate.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { runtime } from './runtime.js';

/** Longest key and value of an Info object, in characters (MPICH's values). */
export const MAX_INFO_KEY = 255;
export const MAX_INFO_VAL = 1024;

/**
 * MPI.Info: an ordered set of (key, value) string pairs, mpi4py-style. Info is local: no call
 * communicates. tsmpi reads no hints yet, so an Info passed to a call is checked and ignored.
 * Errors are always thrown (an Info has no error handler).
 */
export class Info {
  /** null once freed; insertion order is the order of Get_nthkey. */
  private entries: Map<string, string> | null;

  private constructor(entries: Map<string, string> | null, private readonly isNull = false) {
    this.entries = entries;
  }

  /** A new, empty Info object. */
  static Create(): Info {
    return new Info(new Map());
  }

  /** @internal MPI.INFO_NULL */
  static makeNull(): Info {
    return new Info(null, true);
  }

  private live(call: string): Map<string, string> {
    if (this.entries === null) {
      throw new MPIException(ErrorClass.ERR_INFO, this.isNull
        ? `MPI.Info.${call}: MPI.INFO_NULL is the null Info object and has no entries`
        : `MPI.Info.${call}: the Info object has been freed`);
    }
    return this.entries;
  }

  private static checkKey(call: string, key: unknown): string {
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_INFO_KEY) {
      throw new MPIException(ErrorClass.ERR_INFO_KEY, `MPI.Info.${call}: key ${typeof key === 'string' ?
        `of length ${key.length}` : describe(key)} is invalid (expected a string of 1..${MAX_INFO_KEY} characters)`);
    }
    return key;
  }

  /** Sets key to value (replacing an earlier value). */
  Set(key: string, value: string): void {
    const entries = this.live('Set');
    Info.checkKey('Set', key);
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_INFO_VAL) {
      throw new MPIException(ErrorClass.ERR_INFO_VALUE, `MPI.Info.Set: value for key ${JSON.stringify(key)} ` +
        `${typeof value === 'string' ? `of length ${value.length}` : describe(value)} is invalid ` +
        `(expected a string of 1..${MAX_INFO_VAL} characters)`);
    }
    entries.set(key, value);
  }

  /** The value of key, or null when key is not set. */
  Get(key: string): string | null {
    const entries = this.live('Get');
    return entries.get(Info.checkKey('Get', key)) ?? null;
  }

  /** Removes key; MPI.ERR_INFO_NOKEY if it is not set. */
  Delete(key: string): void {
    const entries = this.live('Delete');
    if (!entries.delete(Info.checkKey('Delete', key))) {
      throw new MPIException(ErrorClass.ERR_INFO_NOKEY, `MPI.Info.Delete: key ${JSON.stringify(key)} is not set`);
    }
  }

  /** The number of keys set. */
  Get_nkeys(): number {
    return this.live('Get_nkeys').size;
  }

  /** The n-th key (0-based, in the order the keys were first set). */
  Get_nthkey(n: number): string {
    const entries = this.live('Get_nthkey');
    if (!(Number.isInteger(n) && n >= 0 && n < entries.size)) {
      throw new MPIException(ErrorClass.ERR_ARG, `MPI.Info.Get_nthkey: n ${String(n)} is out of range ` +
        `(expected 0..${entries.size - 1})`);
    }
    let i = 0;
    for (const key of entries.keys()) if (i++ === n) return key;
    throw new MPIException(ErrorClass.ERR_INTERN, 'MPI.Info.Get_nthkey: key not found');
  }

  /** A new Info object with the same entries. */
  Dup(): Info {
    return new Info(new Map(this.live('Dup')));
  }

  /** @internal Whether Free was called (INFO_NULL is not freed). */
  isFreed(): boolean {
    return this.entries === null && !this.isNull;
  }

  /** Frees the object: later calls raise MPI.ERR_INFO. MPI.INFO_NULL cannot be freed. */
  Free(): void {
    this.live('Free');
    this.entries = null;
  }

  /** The entries as [key, value] pairs, in key order (mpi4py's Info.items()). */
  items(): Array<[string, string]> {
    return [...this.live('items')];
  }

  // mpi4py's mapping methods, over the same entries.

  /** The value of key, or `fallback` when it is not set. */
  get(key: string, fallback: string | null = null): string | null {
    return this.live('get').get(Info.checkKey('get', key)) ?? fallback;
  }

  keys(): string[] {
    return [...this.live('keys').keys()];
  }

  values(): string[] {
    return [...this.live('values').values()];
  }

  /** Sets every entry of `other` (an Info, a Map, [key, value] pairs or a plain object). */
  update(other: Info | Map<string, string> | Iterable<[string, string]> | Record<string, string>): void {
    this.live('update');
    const pairs: unknown[] | null = other instanceof Info ? other.items()
      : other instanceof Map || Array.isArray(other) ? [...other]
        : typeof other === 'object' && other !== null && Object.getPrototypeOf(other) === Object.prototype ? Object.entries(other) : null;
    if (pairs === null || !pairs.every((p) => Array.isArray(p) && p.length === 2)) {
      throw new MPIException(ErrorClass.ERR_ARG, 'MPI.Info.update: other must be an Info, a Map, [key, value] pairs or a plain ' +
        `object, got ${describe(other)}`);
    }
    for (const [k, v] of pairs as Array<[string, string]>) this.Set(k, v);
  }

  /** Removes key and returns its value; `fallback` (or MPI.ERR_INFO_NOKEY) when it is not set. */
  pop(key: string, fallback?: string | null): string | null {
    const entries = this.live('pop');
    const value = entries.get(Info.checkKey('pop', key));
    if (value === undefined) {
      if (fallback !== undefined) return fallback;
      throw new MPIException(ErrorClass.ERR_INFO_NOKEY, `MPI.Info.pop: key ${JSON.stringify(key)} is not set`);
    }
    entries.delete(key);
    return value;
  }

  /** Removes and returns the last entry set (MPI.ERR_INFO_NOKEY when empty). */
  popitem(): [string, string] {
    const entries = this.live('popitem');
    const last = [...entries].at(-1);
    if (last === undefined) throw new MPIException(ErrorClass.ERR_INFO_NOKEY, 'MPI.Info.popitem: the Info object is empty');
    entries.delete(last[0]);
    return last;
  }

  copy(): Info {
    this.live('copy');
    return this.Dup();
  }

  clear(): void {
    this.live('clear').clear();
  }

  /**
   * MPI-4's MPI_INFO_ENV: how this process was started: `command` and `argv` (its script and
   * arguments), `maxprocs` (the size of the job when MPI runs), `host`, `wdir` and `thread_level`.
   */
  static Create_env(args: readonly string[] | null = null): Info {
    if (!(args === null || args === undefined || (Array.isArray(args) && args.every((a) => typeof a === 'string')))) {
      throw new MPIException(ErrorClass.ERR_ARG, `MPI.Info.Create_env: args must be an array of strings or null, got ${describe(args)}`);
    }
    const info = Info.Create();
    const argv = args ?? process.argv.slice(2);
    info.Set('command', process.argv[1] ?? process.execPath);
    if (argv.length > 0) info.Set('argv', argv.join(' ').slice(0, MAX_INFO_VAL));
    if (runtime.phase === 'running') info.Set('maxprocs', String(runtime.requireRunning('MPI.Info.Create_env').size));
    info.Set('host', os.hostname());
    info.Set('wdir', process.cwd().slice(0, MAX_INFO_VAL));
    info.Set('thread_level', 'MPI_THREAD_FUNNELED');
    return info;
  }
}

/** Hints set on an object with Set_info or given at its creation (tsmpi reads none of them yet). */
const hints = new WeakMap<object, Map<string, string>>();

/** obj.Set_info: remembers a copy of info's entries (MPI.INFO_NULL: none). */
export function setHints(obj: object, info: unknown): void {
  if (info instanceof Info && info !== INFO_NULL) hints.set(obj, new Map(info.items()));
  else hints.delete(obj);
}

/** obj.Get_info: a new Info with the hints of obj. */
export function getHints(obj: object): Info {
  const info = Info.Create();
  for (const [k, v] of hints.get(obj) ?? []) info.Set(k, v);
  return info;
}

/** A duplicate's hints: info when one is given, else those of the original. */
export function copyHints(from: object, to: object, info: unknown): void {
  if (info !== undefined) setHints(to, info);
  else if (hints.has(from)) hints.set(to, new Map(hints.get(from)!));
}

/** MPI.INFO_NULL: accepted wherever an info argument is; has no entries. */
export const INFO_NULL: Info = Info.makeNull();

/**
 * What is wrong with an info argument (for the caller to report as MPI.ERR_INFO through its
 * error handler), or null when it is undefined, MPI.INFO_NULL or a live Info.
 */
export function checkInfo(info: unknown): string | null {
  if (info === undefined || info === null || info === INFO_NULL) return null;
  if (!(info instanceof Info)) return `info must be an MPI.Info or MPI.INFO_NULL, got ${describe(info)}`;
  if (info.isFreed()) return 'info has been freed';
  return null;
}
