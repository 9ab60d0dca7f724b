import type { LockSpec } from '../lock.js';

/** The paper family of the lock library (see src/locks/index.ts). */
export const PAPER_LOCKS: readonly LockSpec[] = [];
