// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import {
  hasFlags, MEM_CPU_ATOMICS, MEM_EXPORTED, MEM_LOAD_STORE, type MemoryCapabilities,
} from '../mpid/memory.js';

/**
 * The access method of each target, chosen from the capabilities of the memory through which
 * this rank reaches the target's part (003b §3.2's methods; Open MPI's osc/rdma picks its path
 * from the btl's PUT/GET/ATOMIC flags the same way):
 *
 *   reach of the part                              Put/Get   accumulates, atomics
 *   load/store with CPU atomics (ch_shmem, self)   direct    CPU atomics (cpu mode of the hybrid lock)
 *   exported, no remote atomics (ch_sci)           direct    loads/stores under the part's mutex
 *                                                            (lock policy cpu: the target's agent)
 *   a network device's put/get/atomics, no        device    device atomics (4/8-byte words: UCX's ops,
 *     mapping (ch_ucx: ranks of other hosts)                 else a compare-and-swap loop), larger runs
 *                                                            and other elements: the agent (device-rma.ts)
 *   not mapped (process memory, dynamic windows)   agent     agent
 *
 * TSMPI_RMA_METHOD overrides it for comparison: emulated sends everything to the agent,
 * gather does too but gathers small Puts and Accumulates per target (gathered.ts).
 *
 * The reach of a part is the node memory's capabilities for a node segment; for exported
 * memory, those of the device that reaches the owner when that device shares memory with us
 * (the exported segment then lies on our node), else the exporting device's (exportedReach).
 */

export const ACCESS_DIRECT = 0;
export const ACCESS_AGENT = 1;
export const ACCESS_GATHERED = 2;

export const UPDATES_CPU = 0;
export const UPDATES_MUTEX = 1;
export const UPDATES_AGENT = 2;

export const LOCK_CPU = 0;
export const LOCK_MUTEX = 1;
export const LOCK_AGENT = 2;
/** A network device's atomics on the lock words (ranks of other hosts, lock-area.ts). */
export const LOCK_DEVICE = 3;

/** Put/Get by a network device's put/get, complete at flush (device-rma.ts). */
export const ACCESS_DEVICE = 3;
/** Accumulates and atomics by the device's atomics where width and op allow, else the agent (device-rma.ts). */
export const UPDATES_DEVICE = 3;

export type MethodSetting = 'auto' | 'emulated' | 'gather';
/** TSMPI_RMA_LOCK_POLICY: research 004's migration between cpu and device mode, or one mode for good. */
export type LockPolicy = 'migrate' | 'cpu' | 'device';

export interface TargetMethod {
  /** How Put and Get reach the target (ACCESS_*). */
  readonly access: number;
  /** How accumulates and atomics do (UPDATES_*). */
  readonly updates: number;
}

/** Whether memory reached this way takes CPU atomics that are atomic with its owner's. */
export function cpuAtomics(reach: MemoryCapabilities | null): boolean {
  return reach !== null && hasFlags(reach, MEM_LOAD_STORE | MEM_CPU_ATOMICS);
}

/**
 * How we reach a target's exported memory: a target whose device shares memory with us lies
 * on our node, so its exported segment is our memory too (loads, stores, CPU atomics); other
 * targets we reach as the exporting device offers (`exportCaps`).
 */
export function exportedReach(deviceCaps: MemoryCapabilities, exportCaps: MemoryCapabilities): MemoryCapabilities {
  return cpuAtomics(deviceCaps) ? deviceCaps : exportCaps;
}

/** The method for a target whose part we reach through `reach` (null: not mapped). */
export function selectMethod(reach: MemoryCapabilities | null, method: MethodSetting, lockPolicy: LockPolicy): TargetMethod {
  if (method === 'emulated') return AGENT;
  if (method === 'gather') return GATHERED;
  if (reach === null || (reach.flags & (MEM_LOAD_STORE | MEM_EXPORTED)) === 0) return AGENT;
  if (cpuAtomics(reach)) return DIRECT_CPU;
  return lockPolicy === 'cpu' ? DIRECT_AGENT_UPDATES : DIRECT_MUTEX;
}

/** How this rank takes a target's window lock, whose lock area it reaches through `reach`. */
export function selectLock(reach: MemoryCapabilities, lockPolicy: LockPolicy): number {
  if (cpuAtomics(reach)) return LOCK_CPU;
  return lockPolicy === 'cpu' ? LOCK_AGENT : LOCK_MUTEX;
}

/** The method for a target reached by a network device's operations (device-window.ts decides that). */
export const DEVICE: TargetMethod = { access: ACCESS_DEVICE, updates: UPDATES_DEVICE };
/** Put/Get by the device, updates by the agent (the target's memory takes no CPU atomics from its owner). */
export const DEVICE_AGENT_UPDATES: TargetMethod = { access: ACCESS_DEVICE, updates: UPDATES_AGENT };

const AGENT: TargetMethod = { access: ACCESS_AGENT, updates: UPDATES_AGENT };
const GATHERED: TargetMethod = { access: ACCESS_GATHERED, updates: UPDATES_AGENT };
const DIRECT_CPU: TargetMethod = { access: ACCESS_DIRECT, updates: UPDATES_CPU };
const DIRECT_MUTEX: TargetMethod = { access: ACCESS_DIRECT, updates: UPDATES_MUTEX };
const DIRECT_AGENT_UPDATES: TargetMethod = { access: ACCESS_DIRECT, updates: UPDATES_AGENT };
