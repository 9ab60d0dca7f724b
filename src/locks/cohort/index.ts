import type { LockSpec } from '../lock.js';

/** The cohort family of the lock library (see src/locks/index.ts). */
export const COHORT_LOCKS: readonly LockSpec[] = [];
