import * as wildcards from '../mpid/request.js';

/**
 * Point-to-point constants, with MPICH's values. The negative ones carry their literal type
 * explicitly: TypeScript 5.9 prints a negative literal it infers for a spread property (the
 * MPI object spreads this module) from the wrong source text, e.g. `readonly ANY_SOURCE: -;`.
 * The wildcards and PROC_NULL are mpid's (matching reads them), defined there once.
 */
export const ANY_SOURCE: -2 = wildcards.ANY_SOURCE;
export const ANY_TAG: -1 = wildcards.ANY_TAG;
export const PROC_NULL: -1 = wildcards.PROC_NULL;
export const ROOT: -3 = -3;
export const UNDEFINED: -32766 = -32766;
/** Largest tag: the packet header carries a signed 32-bit tag. */
export const TAG_UB_VALUE = 0x7fffffff;
/** Bytes MPI.Bsend needs in the attached buffer on top of each message's data. */
export const BSEND_OVERHEAD = 128;

/** Predefined attribute keys, read with comm.Get_attr. */
export const TAG_UB = 0x64400001;
export const HOST = 0x64400003;
export const IO = 0x64400005;
export const WTIME_IS_GLOBAL = 0x64400007;
export const UNIVERSE_SIZE = 0x64400009;
/** COMM_WORLD's attribute: the largest error class or code in use (MPI.Add_error_class/code raise it). */
export const LASTUSEDCODE = 0x6440000b;
export const APPNUM = 0x6440000d;

/** Comparison results. */
export const IDENT = 0;
export const CONGRUENT = 1;
export const SIMILAR = 2;
export const UNEQUAL = 3;

/** Split types of comm.Split_type (MPICH's value). */
export const COMM_TYPE_SHARED = 1;
/** MPI-4: split by the hardware resource named in info key "mpi_hw_resource_type". */
export const COMM_TYPE_HW_GUIDED = 2;
/** MPI-4: split by the next smaller hardware resource that holds a strict subset of the ranks. */
export const COMM_TYPE_HW_UNGUIDED = 3;
