// Research ids cited here: see docs/references.md.
import { CENTRAL_LOCK } from './central-lock.js';
import { ELEMENT_LOCK } from './element-lock.js';
import { LOCKFREE } from './lockfree.js';
import type { QueueSpec } from './queue.js';

export type { DistQueue, QueueSpec } from './queue.js';
export { CentralLockQueue } from './central-lock.js';
export { DecentralizedQueue, QueueCounters } from './lockfree.js';

/** The lock-free queue of research 002 and its two lock-based baselines. */
export const QUEUES: readonly QueueSpec[] = [LOCKFREE, CENTRAL_LOCK, ELEMENT_LOCK];

export function queueSpec(name: string): QueueSpec {
  const spec = QUEUES.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no queue named ${JSON.stringify(name)}; known: ${QUEUES.map((s) => s.name).join(', ')}`);
  return spec;
}
