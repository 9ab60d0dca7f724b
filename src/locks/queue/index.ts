import type { QueueSpec } from './queue.js';

export type { DistQueue, QueueSpec } from './queue.js';

/** The lock-free queue of research 002 and its two lock-based baselines. */
export const QUEUES: readonly QueueSpec[] = [];
