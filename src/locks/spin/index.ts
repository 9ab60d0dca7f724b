import type { LockSpec } from '../lock.js';
import { CLH_LOCK, CLH_NUMA_LOCK } from './clh.js';
import { RH_LOCK } from './rh.js';
import { SHFL_LOCK, SHFL_TAS_LOCK } from './shfl.js';
import { TAS_LOCK, TTS_LOCK } from './tas.js';
import { TICKET_LOCK } from './ticket.js';

/** The spin family of the lock library (see src/locks/index.ts and docs/locks-spin.md). */
export const SPIN_LOCKS: readonly LockSpec[] = [TAS_LOCK, TTS_LOCK, TICKET_LOCK, CLH_LOCK, CLH_NUMA_LOCK, RH_LOCK, SHFL_LOCK, SHFL_TAS_LOCK];
