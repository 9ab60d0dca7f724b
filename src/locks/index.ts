/**
 * tsmpi's RMA lock library (issue 7): locks built only on the public RMA API, in families
 * (baseline, paper: research 001; spin, numa: research 000 ch. 2/5; cohort: research 000 §2.9),
 * and the lock-free queue of research 002 (./queue). `lockSpec(name)` finds one by name.
 *
 * Research ids cited here: see docs/references.md.
 */
import { WIN_LOCK } from './baseline/win-lock.js';
import { COHORT_LOCKS } from './cohort/index.js';
import type { LockSpec } from './lock.js';
import { PAPER_LOCKS } from './paper/index.js';
import { SPIN_LOCKS } from './spin/index.js';

export * from './lock.js';
export { LockContext, LockWindow, NodeSharedWindow, WindowLayout } from './context.js';
export { Backoff, Waiter } from './wait.js';
export { QUEUES, type DistQueue, type QueueSpec } from './queue/index.js';

export const LOCKS: readonly LockSpec[] = [WIN_LOCK, ...PAPER_LOCKS, ...SPIN_LOCKS, ...COHORT_LOCKS];

export function lockSpec(name: string): LockSpec {
  const spec = LOCKS.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no lock named ${JSON.stringify(name)}; known: ${LOCKS.map((s) => s.name).join(', ')}`);
  return spec;
}
