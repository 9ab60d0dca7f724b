import { Datatypes, type Datatype } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { categoryList } from './categories.js';
import { type Cvar, cvarList } from './cvar-registry.js';
import { type Pvar, pvarList } from './pvar-registry.js';
import { PVAR_ALL_HANDLES, PvarHandle, PvarSession } from './session.js';
import type { PvarClass } from '../../mpid/pvars.js';

// Constants numbered as MPICH numbers them (mpi.h), so a value printed here means the same there.
const VERBOSITY_USER_BASIC = 221;
const VERBOSITY_USER_DETAIL = 222;
const VERBOSITY_USER_ALL = 223;
const VERBOSITY_TUNER_BASIC = 224;
const VERBOSITY_TUNER_DETAIL = 225;
const VERBOSITY_TUNER_ALL = 226;
const VERBOSITY_MPIDEV_BASIC = 227;
const VERBOSITY_MPIDEV_DETAIL = 228;
const VERBOSITY_MPIDEV_ALL = 229;
const BIND_NO_OBJECT = 9700;
const SCOPE_CONSTANT = 60438;
const SCOPE_READONLY = 60439;
const SCOPE_LOCAL = 60440;
const PVAR_CLASS_STATE = 240;
const PVAR_CLASS_LEVEL = 241;
const PVAR_CLASS_SIZE = 242;
const PVAR_CLASS_PERCENTAGE = 243;
const PVAR_CLASS_HIGHWATERMARK = 244;
const PVAR_CLASS_LOWWATERMARK = 245;
const PVAR_CLASS_COUNTER = 246;
const PVAR_CLASS_AGGREGATE = 247;
const PVAR_CLASS_TIMER = 248;
const PVAR_CLASS_GENERIC = 249;

const CLASS_CODE: Record<PvarClass, number> = {
  counter: PVAR_CLASS_COUNTER, level: PVAR_CLASS_LEVEL, highwatermark: PVAR_CLASS_HIGHWATERMARK,
};

/** What MPI.T.cvar_get_info tells of a control variable (MPI_T_cvar_get_info, plus tsmpi's default, range and source). */
export interface CvarInfo {
  readonly name: string;
  readonly verbosity: number;
  /** MPI.INT (integers and booleans, read as 0 or 1) or MPI.CHAR (a word or a string). */
  readonly datatype: Datatype;
  readonly enumtype: null;
  readonly description: string;
  readonly bind: number;
  /** MPI.T.SCOPE_READONLY: tsmpi's variables are read when their layer loads and cannot be written. */
  readonly scope: number;
  /** The layer that declares it (its category). */
  readonly category: string;
  readonly default: string;
  /** The accepted values, in words. */
  readonly range: string;
  /** Where the value comes from now: 'environment' (set, and valid) or 'default'. */
  readonly source: 'default' | 'environment';
}

/** What MPI.T.pvar_get_info tells of a performance variable (MPI_T_pvar_get_info, plus tsmpi's unit and category). */
export interface PvarInfo {
  readonly name: string;
  readonly verbosity: number;
  /** MPI.T.PVAR_CLASS_COUNTER, _LEVEL or _HIGHWATERMARK. */
  readonly varClass: number;
  /** MPI.UNSIGNED_LONG_LONG: read as a JS number. */
  readonly datatype: Datatype;
  readonly enumtype: null;
  readonly description: string;
  readonly bind: number;
  /** Levels and high-water marks: they cannot be reset or written. */
  readonly readonly: boolean;
  /** Levels and high-water marks: always active, they cannot be started or stopped. */
  readonly continuous: boolean;
  readonly atomic: boolean;
  readonly unit: string;
  readonly category: string;
}

export interface CategoryInfo {
  readonly name: string;
  readonly description: string;
  readonly numCvars: number;
  readonly numPvars: number;
  readonly numCategories: number;
}

/** A handle on one control variable (MPI_T_cvar_handle). */
export class CvarHandle {
  readonly count = 1;
  /** @internal */
  freed = false;
  /** @internal */
  readonly cvar: Cvar;
  /** @internal Made by MPI.T.cvar_handle_alloc. */
  constructor(cvar: Cvar) {
    this.cvar = cvar;
  }
  get index(): number {
    return this.cvar.index;
  }
}

let initCount = 0;
const sessions = new Set<PvarSession>();
const cvarHandles = new Set<CvarHandle>();

function fail(errorClass: number, message: string): never {
  throw new MPIException(errorClass, message);
}

function requireInit(call: string): void {
  if (initCount === 0) fail(ErrorClass.ERR_T_NOT_INITIALIZED, `${call}: the tools interface is not initialized (call MPI.T.Init_thread() first)`);
}

function checkIndex(call: string, what: string, index: unknown, n: number): number {
  requireInit(call);
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= n) {
    fail(ErrorClass.ERR_T_INVALID_INDEX, `${call}: ${what} index ${String(index)} is not in [0, ${n - 1}]`);
  }
  return index;
}

function cvarHandle(call: string, handle: unknown): CvarHandle {
  requireInit(call);
  if (!(handle instanceof CvarHandle)) fail(ErrorClass.ERR_T_INVALID_HANDLE, `${call}: handle is not a control-variable handle (MPI.T.cvar_handle_alloc)`);
  if (handle.freed) fail(ErrorClass.ERR_T_INVALID_HANDLE, `${call}: handle of ${handle.cvar.name} was freed`);
  return handle;
}

function session(call: string, s: unknown): PvarSession {
  requireInit(call);
  return PvarSession.check(call, s);
}

/**
 * Initializes the tools interface (MPI_T_init_thread); it may be called before MPI.Init and
 * after MPI.Finalize, and several times (each call needs its Finalize). Returns the thread
 * level provided: MPI.THREAD_FUNNELED at most, as MPI's own.
 */
function Init_thread(required = 3): number {
  if (![0, 1, 2, 3].includes(required)) {
    fail(ErrorClass.ERR_ARG, `MPI.T.Init_thread: required level ${required} is not one of MPI.THREAD_SINGLE .. MPI.THREAD_MULTIPLE`);
  }
  // Builds the registries now, so a wrong declaration shows here and not in a later call.
  categoryList();
  initCount++;
  return Math.min(required, 1);
}

/** Ends one Init_thread; the last one frees every session and handle still open. */
function Finalize(): void {
  requireInit('MPI.T.Finalize');
  if (--initCount > 0) return;
  for (const s of sessions) freeSession(s);
  sessions.clear();
  for (const h of cvarHandles) h.freed = true;
  cvarHandles.clear();
}

function cvarInfo(c: Cvar): CvarInfo {
  return {
    name: c.name, verbosity: VERBOSITY_TUNER_BASIC,
    datatype: c.kind === 'int' || c.kind === 'bool' ? Datatypes.INT : Datatypes.CHAR,
    enumtype: null, description: c.description, bind: BIND_NO_OBJECT, scope: SCOPE_READONLY, category: c.category,
    default: c.defaultText, range: c.rangeText, source: c.source(),
  };
}

function pvarInfo(p: Pvar): PvarInfo {
  return {
    name: p.name, verbosity: p.category === 'mpid' ? VERBOSITY_USER_BASIC : VERBOSITY_TUNER_DETAIL, varClass: CLASS_CODE[p.varClass],
    datatype: Datatypes.UNSIGNED_LONG_LONG, enumtype: null, description: p.description, bind: BIND_NO_OBJECT,
    readonly: p.readonly, continuous: p.continuous, atomic: false, unit: p.unit, category: p.category,
  };
}

function freeSession(s: PvarSession): void {
  for (const h of s.handles) h.freed = true;
  s.handles.clear();
  s.freed = true;
}

function readCvar(call: string, c: Cvar): number | string {
  try {
    return c.read();
  } catch (e) {
    throw new MPIException(ErrorClass.ERR_ARG, `${call}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The MPI tool information interface (MPI_T), with the standard's names: control variables
 * are the TSMPI_* variables (read-only), performance variables the counters of the engine,
 * the devices, the one-sided layer and the collectives. docs/tools.md lists them.
 */
export const T = {
  Init_thread,
  Finalize,

  // ------------------------------------------------------------ control variables
  /** Number of control variables. */
  cvar_get_num(): number {
    requireInit('MPI.T.cvar_get_num');
    return cvarList().length;
  },
  cvar_get_info(index: number): CvarInfo {
    return cvarInfo(cvarList()[checkIndex('MPI.T.cvar_get_info', 'control variable', index, cvarList().length)]!);
  },
  /** The index of the control variable called `name` (e.g. 'TSMPI_EAGER_MAX'). */
  cvar_get_index(name: string): number {
    requireInit('MPI.T.cvar_get_index');
    const c = cvarList().find((x) => x.name === name);
    if (c === undefined) fail(ErrorClass.ERR_T_INVALID_NAME, `MPI.T.cvar_get_index: no control variable is called ${JSON.stringify(name)}`);
    return c.index;
  },
  /** A handle on control variable `index`; `obj` is ignored (every variable binds to no object). */
  cvar_handle_alloc(index: number, obj: unknown = null): CvarHandle {
    void obj;
    const h = new CvarHandle(cvarList()[checkIndex('MPI.T.cvar_handle_alloc', 'control variable', index, cvarList().length)]!);
    cvarHandles.add(h);
    return h;
  },
  cvar_handle_free(handle: CvarHandle): void {
    const h = cvarHandle('MPI.T.cvar_handle_free', handle);
    h.freed = true;
    cvarHandles.delete(h);
  },
  /** The value in effect: a number (integers; booleans as 0 or 1) or a string. */
  cvar_read(handle: CvarHandle): number | string {
    return readCvar('MPI.T.cvar_read', cvarHandle('MPI.T.cvar_read', handle).cvar);
  },
  /** Always fails with MPI.ERR_T_CVAR_SET_NEVER: tsmpi reads its variables from the environment when a layer loads. */
  cvar_write(handle: CvarHandle, value: number | string): void {
    const h = cvarHandle('MPI.T.cvar_write', handle);
    fail(ErrorClass.ERR_T_CVAR_SET_NEVER, `MPI.T.cvar_write: ${h.cvar.name} cannot be set at run time (to ${String(value)}); ` +
      'set it in the environment of the job (tsmpiexec -x VAR=value)');
  },

  // -------------------------------------------------------- performance variables
  pvar_get_num(): number {
    requireInit('MPI.T.pvar_get_num');
    return pvarList().length;
  },
  pvar_get_info(index: number): PvarInfo {
    return pvarInfo(pvarList()[checkIndex('MPI.T.pvar_get_info', 'performance variable', index, pvarList().length)]!);
  },
  /** The index of performance variable `name` of class `varClass` (MPI.T.PVAR_CLASS_*). */
  pvar_get_index(name: string, varClass: number): number {
    requireInit('MPI.T.pvar_get_index');
    const p = pvarList().find((x) => x.name === name && CLASS_CODE[x.varClass] === varClass);
    if (p === undefined) {
      fail(ErrorClass.ERR_T_INVALID_NAME, `MPI.T.pvar_get_index: no performance variable ${JSON.stringify(name)} of class ${varClass}`);
    }
    return p.index;
  },
  pvar_session_create(): PvarSession {
    requireInit('MPI.T.pvar_session_create');
    const s = new PvarSession();
    sessions.add(s);
    return s;
  },
  /** Frees the session and every handle in it. */
  pvar_session_free(s: PvarSession): void {
    const checked = session('MPI.T.pvar_session_free', s);
    freeSession(checked);
    sessions.delete(checked);
  },
  /** A handle on variable `index` in session `s`; a counter's handle starts stopped, at 0. */
  pvar_handle_alloc(s: PvarSession, index: number, obj: unknown = null): PvarHandle {
    void obj;
    const checked = session('MPI.T.pvar_handle_alloc', s);
    const h = new PvarHandle(checked, pvarList()[checkIndex('MPI.T.pvar_handle_alloc', 'performance variable', index, pvarList().length)]!);
    checked.handles.add(h);
    return h;
  },
  pvar_handle_free(s: PvarSession, handle: PvarHandle): void {
    const h = session('MPI.T.pvar_handle_free', s).handle('MPI.T.pvar_handle_free', handle);
    h.freed = true;
    s.handles.delete(h);
  },
  /** Starts counting (a handle, or every handle of the session that can start: MPI.T.PVAR_ALL_HANDLES). */
  pvar_start(s: PvarSession, handle: PvarHandle | typeof PVAR_ALL_HANDLES): void {
    for (const h of session('MPI.T.pvar_start', s).targets('MPI.T.pvar_start', handle, (x) => !x.pvar.continuous)) h.start('MPI.T.pvar_start');
  },
  /** Stops counting: reads give the same value until the next start. */
  pvar_stop(s: PvarSession, handle: PvarHandle | typeof PVAR_ALL_HANDLES): void {
    for (const h of session('MPI.T.pvar_stop', s).targets('MPI.T.pvar_stop', handle, (x) => !x.pvar.continuous)) h.stop('MPI.T.pvar_stop');
  },
  pvar_read(s: PvarSession, handle: PvarHandle): number {
    return session('MPI.T.pvar_read', s).handle('MPI.T.pvar_read', handle).read();
  },
  /** Sets a counter's handle to `value` (the counter itself is untouched); levels cannot be written. */
  pvar_write(s: PvarSession, handle: PvarHandle, value: number): void {
    const h = session('MPI.T.pvar_write', s).handle('MPI.T.pvar_write', handle);
    if (typeof value !== 'number' || !Number.isFinite(value)) fail(ErrorClass.ERR_ARG, `MPI.T.pvar_write: value ${String(value)} is not a number`);
    h.write('MPI.T.pvar_write', value);
  },
  /** Sets a counter's handle (or every writable handle: MPI.T.PVAR_ALL_HANDLES) back to 0. */
  pvar_reset(s: PvarSession, handle: PvarHandle | typeof PVAR_ALL_HANDLES): void {
    for (const h of session('MPI.T.pvar_reset', s).targets('MPI.T.pvar_reset', handle, (x) => !x.pvar.readonly)) h.write('MPI.T.pvar_reset', 0);
  },
  /** Reads and resets in one step. */
  pvar_readreset(s: PvarSession, handle: PvarHandle): number {
    const h = session('MPI.T.pvar_readreset', s).handle('MPI.T.pvar_readreset', handle);
    const value = h.read();
    h.write('MPI.T.pvar_readreset', 0); // a level's handle refuses: nothing was reset
    return value;
  },

  // ------------------------------------------------------------------ categories
  category_get_num(): number {
    requireInit('MPI.T.category_get_num');
    return categoryList().length;
  },
  category_get_info(index: number): CategoryInfo {
    const c = categoryList()[checkIndex('MPI.T.category_get_info', 'category', index, categoryList().length)]!;
    return { name: c.name, description: c.description, numCvars: c.cvars.length, numPvars: c.pvars.length, numCategories: 0 };
  },
  category_get_index(name: string): number {
    requireInit('MPI.T.category_get_index');
    const c = categoryList().find((x) => x.name === name);
    if (c === undefined) fail(ErrorClass.ERR_T_INVALID_NAME, `MPI.T.category_get_index: no category is called ${JSON.stringify(name)}`);
    return c.index;
  },
  /** Indices of the category's control variables. */
  category_get_cvars(index: number): number[] {
    return [...categoryList()[checkIndex('MPI.T.category_get_cvars', 'category', index, categoryList().length)]!.cvars];
  },
  category_get_pvars(index: number): number[] {
    return [...categoryList()[checkIndex('MPI.T.category_get_pvars', 'category', index, categoryList().length)]!.pvars];
  },
  /** Categories have no subcategories here: always empty. */
  category_get_categories(index: number): number[] {
    checkIndex('MPI.T.category_get_categories', 'category', index, categoryList().length);
    return [];
  },
  /** A stamp that changes when variables or categories are added; tsmpi's set is fixed. */
  category_changed(): number {
    requireInit('MPI.T.category_changed');
    return 0;
  },

  PVAR_ALL_HANDLES,
  PvarSession,
  PvarHandle,
  CvarHandle,
  VERBOSITY_USER_BASIC, VERBOSITY_USER_DETAIL, VERBOSITY_USER_ALL,
  VERBOSITY_TUNER_BASIC, VERBOSITY_TUNER_DETAIL, VERBOSITY_TUNER_ALL,
  VERBOSITY_MPIDEV_BASIC, VERBOSITY_MPIDEV_DETAIL, VERBOSITY_MPIDEV_ALL,
  BIND_NO_OBJECT,
  SCOPE_CONSTANT, SCOPE_READONLY, SCOPE_LOCAL,
  PVAR_CLASS_STATE, PVAR_CLASS_LEVEL, PVAR_CLASS_SIZE, PVAR_CLASS_PERCENTAGE, PVAR_CLASS_HIGHWATERMARK,
  PVAR_CLASS_LOWWATERMARK, PVAR_CLASS_COUNTER, PVAR_CLASS_AGGREGATE, PVAR_CLASS_TIMER, PVAR_CLASS_GENERIC,
} as const;
