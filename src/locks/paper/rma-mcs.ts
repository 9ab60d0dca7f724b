/**
 * RMA-MCS (research 001 §3.8, §3.1 "DT on its own, with no DC and no readers, is RMA-MCS";
 * research 000 §2.5): the two-level distributed tree of D-MCS queues of hier.ts, a node-level
 * queue per node (ctx.node, the node split) and a machine-level queue over the nodes, with the
 * locality threshold T_L (default 50, the thesis' HMCS_THRESHOLD): a holder passes the lock to
 * a waiter of its own node at most T_L - 1 times in a row, then releases the machine level and
 * tells its node successor to acquire it (ACQUIRE_PARENT). T_L,1 does not apply (001 §3.8): the
 * machine level always hands over with status 1.
 *
 * Layout and operations: see hier.ts. Per acquire without contention: 1 Fetch_and_op (local tail)
 * + 2 Puts (reset of the node's queue node) + 1 Fetch_and_op (global tail), each flushed;
 * with a local predecessor: 1 Fetch_and_op + 1 Put and local polling only.
 *
 * Deviations: int32 fields instead of the paper's int64 (ranks and counts fit; no BigInt on the
 * hot path); the level-1 queue node is owned by the node (hier.ts); the thesis' port computes the
 * local tail's rank assuming block placement, here the node split gives it (node rank 0);
 * no tryAcquire (a hierarchical attempt would have to back out of the node level).
 *
 * Research ids cited here: see docs/references.md.
 */
import type { LockContext } from '../context.js';
import type { Lock, LockParams, LockSpec } from '../lock.js';
import { HierLock } from './hier.js';

export class RmaMcs extends HierLock implements Lock {
  readonly name = 'rma-mcs';

  constructor(ctx: LockContext, tL: number) {
    super(ctx, tL);
  }

  protected globalAcquired(): number {
    return 1;
  }

  protected globalHandover(): number {
    return 1;
  }
}

const DEFAULTS = { T_L: 50 };

export const RMA_MCS: LockSpec = {
  name: 'rma-mcs',
  family: 'paper',
  description: 'RMA-MCS: 2-level hierarchical D-MCS (node, machine) with locality threshold T_L (001 §3.8, 000 §2.5)',
  rw: false,
  tryable: false,
  hierarchical: true,
  defaults: DEFAULTS,
  make: (ctx: LockContext, params?: LockParams) => new RmaMcs(ctx, params?.T_L ?? DEFAULTS.T_L),
};
