import { LOCK_EXCLUSIVE as OSC_LOCK_EXCLUSIVE, LOCK_SHARED as OSC_LOCK_SHARED } from '../../osc/index.js';

/** MPI's window constants: lock types, assert modes, attribute keys, flavors and memory models. */
// The window layer's values, declared here so the public declarations name no module of it.
export const LOCK_EXCLUSIVE = OSC_LOCK_EXCLUSIVE;
export const LOCK_SHARED = OSC_LOCK_SHARED;
export const MODE_NOCHECK = 1024;
export const MODE_NOSTORE = 2048;
export const MODE_NOPUT = 4096;
export const MODE_NOPRECEDE = 8192;
export const MODE_NOSUCCEED = 16384;
/** Every MODE_* flag: an assert with any other bit is an error. */
export const ALL_MODES = MODE_NOCHECK | MODE_NOSTORE | MODE_NOPUT | MODE_NOPRECEDE | MODE_NOSUCCEED;
export const WIN_BASE = 0x66000001;
export const WIN_SIZE = 0x66000003;
export const WIN_DISP_UNIT = 0x66000005;
export const WIN_CREATE_FLAVOR = 0x66000007;
export const WIN_MODEL = 0x66000009;
export const WIN_FLAVOR_CREATE = 1;
export const WIN_FLAVOR_ALLOCATE = 2;
export const WIN_FLAVOR_DYNAMIC = 3;
export const WIN_FLAVOR_SHARED = 4;
export const WIN_SEPARATE = 1;
export const WIN_UNIFIED = 2;
