import type { LockSpec } from '../lock.js';

/** The spin family of the lock library (see src/locks/index.ts). */
export const SPIN_LOCKS: readonly LockSpec[] = [];
