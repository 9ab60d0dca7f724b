import type { LockSpec } from '../lock.js';
import { DASH, DASH_OPT } from './dash.js';
import { DMCS_OPT } from './dmcs-opt.js';
import { DMCS } from './dmcs.js';

/** The paper family of the lock library (see src/locks/index.ts). */
export const PAPER_LOCKS: readonly LockSpec[] = [DMCS, DMCS_OPT, DASH, DASH_OPT];
