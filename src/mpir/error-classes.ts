/**
 * MPI error classes, numbered as MPICH numbers them so that codes printed by tsmpi and by a C
 * program mean the same thing. The strings are what Get_error_string returns.
 */
export const ErrorClass = {
  SUCCESS: 0,
  ERR_BUFFER: 1,
  ERR_COUNT: 2,
  ERR_TYPE: 3,
  ERR_TAG: 4,
  ERR_COMM: 5,
  ERR_RANK: 6,
  ERR_ROOT: 7,
  ERR_GROUP: 8,
  ERR_OP: 9,
  ERR_TOPOLOGY: 10,
  ERR_DIMS: 11,
  ERR_ARG: 12,
  ERR_UNKNOWN: 13,
  ERR_TRUNCATE: 14,
  ERR_OTHER: 15,
  ERR_INTERN: 16,
  ERR_IN_STATUS: 17,
  ERR_PENDING: 18,
  ERR_REQUEST: 19,
  // The I/O classes (MPI-4 §14.7), numbered as MPICH's mpi.h numbers them.
  ERR_ACCESS: 20,
  ERR_AMODE: 21,
  ERR_BAD_FILE: 22,
  ERR_CONVERSION: 23,
  ERR_DUP_DATAREP: 24,
  ERR_FILE_EXISTS: 25,
  ERR_FILE_IN_USE: 26,
  ERR_FILE: 27,
  ERR_INFO: 28,
  ERR_INFO_KEY: 29,
  ERR_INFO_VALUE: 30,
  ERR_INFO_NOKEY: 31,
  ERR_IO: 32,
  ERR_NAME: 33,
  ERR_NO_MEM: 34,
  ERR_NOT_SAME: 35,
  ERR_NO_SPACE: 36,
  ERR_NO_SUCH_FILE: 37,
  ERR_PORT: 38,
  ERR_QUOTA: 39,
  ERR_READ_ONLY: 40,
  ERR_SERVICE: 41,
  ERR_SPAWN: 42,
  ERR_UNSUPPORTED_DATAREP: 43,
  ERR_UNSUPPORTED_OPERATION: 44,
  ERR_WIN: 45,
  ERR_BASE: 46,
  ERR_LOCKTYPE: 47,
  ERR_KEYVAL: 48,
  ERR_RMA_CONFLICT: 49,
  ERR_RMA_SYNC: 50,
  ERR_SIZE: 51,
  ERR_DISP: 52,
  ERR_ASSERT: 53,
  ERR_RMA_RANGE: 55,
  ERR_RMA_ATTACH: 56,
  ERR_RMA_SHARED: 57,
  ERR_RMA_FLAVOR: 58,
  // The tools interface's classes (MPI_T_ERR_*), numbered as MPICH numbers them.
  ERR_T_MEMORY: 59,
  ERR_T_NOT_INITIALIZED: 60,
  ERR_T_CANNOT_INIT: 61,
  ERR_T_INVALID_INDEX: 62,
  ERR_T_INVALID_ITEM: 63,
  ERR_T_INVALID_HANDLE: 64,
  ERR_T_OUT_OF_HANDLES: 65,
  ERR_T_OUT_OF_SESSIONS: 66,
  ERR_T_INVALID_SESSION: 67,
  ERR_T_CVAR_SET_NOT_NOW: 68,
  ERR_T_CVAR_SET_NEVER: 69,
  ERR_T_PVAR_NO_STARTSTOP: 70,
  ERR_T_PVAR_NO_WRITE: 71,
  ERR_T_PVAR_NO_ATOMIC: 72,
  ERR_T_INVALID_NAME: 73,
  ERR_T_INVALID: 74,
  ERR_SESSION: 75,
  ERR_PROC_ABORTED: 76,
  ERR_VALUE_TOO_LARGE: 77,
  ERR_T_NOT_SUPPORTED: 78,
  ERR_LASTCODE: 0x3fffffff,
} as const;

export type ErrorClassName = keyof typeof ErrorClass;

const STRINGS: Record<number, string> = {
  0: 'No MPI error',
  1: 'Invalid buffer pointer',
  2: 'Invalid count',
  3: 'Invalid datatype',
  4: 'Invalid tag',
  5: 'Invalid communicator',
  6: 'Invalid rank',
  7: 'Invalid root',
  8: 'Invalid group',
  9: 'Invalid MPI_Op',
  10: 'Invalid topology',
  11: 'Invalid dimension argument',
  12: 'Invalid argument',
  13: 'Unknown error',
  14: 'Message truncated',
  15: 'Other MPI error',
  16: 'Internal MPI error',
  17: 'Error code is in status',
  18: 'Pending request',
  19: 'Invalid MPI_Request',
  20: 'Permission denied',
  21: 'Invalid amode value in MPI_File_open',
  22: 'Invalid file name',
  23: 'An error occurred in a user-supplied data conversion function',
  24: 'Conversion functions could not be registered because a data representation identifier was already defined',
  25: 'File exists',
  26: 'File in use by some process',
  27: 'Invalid MPI_File',
  32: 'Other I/O error',
  28: 'Invalid info object',
  29: 'Invalid info key',
  30: 'Invalid info value',
  31: 'Requested key not found in info',
  33: 'Invalid service name (no port is published under it)',
  34: 'Out of memory',
  35: 'Collective argument not identical on all processes',
  36: 'Not enough space for file',
  37: 'File does not exist',
  38: 'Invalid port name',
  39: 'Quota exceeded for files',
  40: 'Read-only file or filesystem name',
  41: 'The service name could not be published or unpublished',
  42: 'Error in spawning processes',
  43: 'Unsupported datarep passed to MPI_File_set_view',
  44: 'Operation not supported',
  45: 'Invalid MPI window object',
  46: 'Invalid base address',
  47: 'Invalid lock type',
  48: 'Invalid keyval',
  49: 'Conflicting accesses to window',
  50: 'Wrong synchronization of RMA calls',
  51: 'Invalid size argument',
  52: 'Invalid displacement argument',
  53: 'Invalid assert argument',
  55: 'Target memory is not part of the window',
  56: 'Memory cannot be attached',
  57: 'Memory cannot be shared',
  58: 'Passed window has the wrong flavor for the called function',
  59: 'Out of memory (MPI_T)',
  60: 'The MPI tool information interface is not initialized',
  61: 'The MPI tool information interface cannot be initialized',
  62: 'Invalid index of a control variable, performance variable or category',
  63: 'Invalid item index of an enumeration',
  64: 'Invalid handle of a control or performance variable',
  65: 'No more handles available',
  66: 'No more performance-variable sessions available',
  67: 'Invalid performance-variable session',
  68: 'The control variable cannot be set at this moment',
  69: 'The control variable can never be set',
  70: 'The performance variable cannot be started or stopped',
  71: 'The performance variable cannot be written or reset',
  72: 'The performance variable cannot be read and written atomically',
  73: 'Invalid name of a variable or category',
  74: 'Invalid use of the MPI tool information interface',
  75: 'Invalid session handle',
  76: 'A process in the communicator has aborted',
  77: 'Value is too large to store',
  78: 'The requested MPI_T functionality is not supported',
};

/**
 * Error classes and codes a program adds (MPI.Add_error_class, MPI.Add_error_code). They are
 * numbered above ERR_LASTCODE, as MPICH numbers its dynamic codes, so they never meet a
 * predefined one; classes and codes share one sequence, so a number is one or the other.
 */
let lastUsedCode: number = ErrorClass.ERR_LASTCODE;
/** Each added number: its class (a class is its own). */
const dynamicClassOf = new Map<number, number>();
const dynamicStrings = new Map<number, string>();

/** MPI.Add_error_class: a new class; its string is empty until Add_error_string. */
export function addErrorClass(): number {
  const errorClass = ++lastUsedCode;
  dynamicClassOf.set(errorClass, errorClass);
  return errorClass;
}

/** MPI.Add_error_code: a new code in `errorClass` (a predefined or an added class), or null when it is none. */
export function addErrorCode(errorClass: number): number | null {
  if (!isErrorClass(errorClass)) return null;
  const code = ++lastUsedCode;
  dynamicClassOf.set(code, errorClass);
  return code;
}

/** MPI.Add_error_string: false when `code` is not an added class or code (predefined strings are fixed). */
export function addErrorString(code: number, text: string): boolean {
  if (!dynamicClassOf.has(code)) return false;
  dynamicStrings.set(code, text);
  return true;
}

export function isErrorClass(value: unknown): value is number {
  return typeof value === 'number' && (STRINGS[value] !== undefined || dynamicClassOf.get(value) === value);
}

/**
 * MPI.Remove_error_class / code / string (MPI-4.1): why `code` cannot be removed, or null once it
 * is. Only added numbers go; a class only once no added code is left in it.
 */
export function removeError(code: unknown, kind: 'class' | 'code' | 'string'): string | null {
  const errorClass = typeof code === 'number' ? dynamicClassOf.get(code) : undefined;
  if (errorClass === undefined) return 'is no class or code of MPI.Add_error_class / MPI.Add_error_code';
  const isClass = errorClass === code;
  if (kind === 'string') {
    if (!dynamicStrings.delete(code as number)) return 'has no string of MPI.Add_error_string';
    return null;
  }
  if (kind === 'class' && !isClass) return 'is an error code, not a class (use MPI.Remove_error_code)';
  if (kind === 'code' && isClass) return 'is an error class, not a code (use MPI.Remove_error_class)';
  if (kind === 'class') {
    for (const [other, itsClass] of dynamicClassOf) {
      if (itsClass === code && other !== code) return `still has code ${other} (remove its codes first)`;
    }
  }
  dynamicClassOf.delete(code as number);
  dynamicStrings.delete(code as number);
  return null;
}

/** The class of an error code (a predefined code is its own class), or null for a number that is no code. */
export function errorClassOf(code: unknown): number | null {
  if (typeof code !== 'number') return null;
  if (STRINGS[code] !== undefined) return code;
  return dynamicClassOf.get(code) ?? null;
}

/** The value of COMM_WORLD's attribute MPI.LASTUSEDCODE: the largest class or code in use. */
export function lastUsedErrorCode(): number {
  return lastUsedCode;
}

export function errorString(code: number): string {
  const added = dynamicClassOf.has(code) ? dynamicStrings.get(code) ?? '' : undefined;
  return added ?? STRINGS[code] ?? `Unknown error class ${code}`;
}
