import type { LockSpec } from '../lock.js';
import { DASH, DASH_OPT } from './dash.js';
import { DMCS_OPT } from './dmcs-opt.js';
import { DMCS } from './dmcs.js';
import { RMA_MCS } from './rma-mcs.js';
import { RMA_RW } from './rma-rw.js';

/** The paper family of the lock library (see src/locks/index.ts). */
export const PAPER_LOCKS: readonly LockSpec[] = [DMCS, DMCS_OPT, DASH, DASH_OPT, RMA_MCS, RMA_RW];
