/**
 * The lock types of Win.Lock (MPICH's values), apart from lock-area.ts so that the public
 * declarations of MPI.LOCK_EXCLUSIVE and MPI.LOCK_SHARED do not reach the lock machinery.
 */
export const LOCK_EXCLUSIVE = 234;
export const LOCK_SHARED = 235;
