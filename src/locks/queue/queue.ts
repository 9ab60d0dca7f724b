import type { LockContext } from '../context.js';
import type { LockParams } from '../lock.js';

/**
 * A distributed FIFO queue of numbers shared by the ranks of a LockContext (research 002 and
 * its lock-based baselines). Construction and free() are collective; enqueue and dequeue are
 * called by any rank at any time.
 *
 * Research ids cited here: see docs/references.md.
 */
export interface DistQueue {
  readonly name: string;
  /** Appends `value` (a safe integer); false when the queue is full (no free element), never an exception. */
  enqueue(value: number): boolean;
  /** Removes the head; null when the queue is empty. */
  dequeue(): number | null;
  /** Collective. */
  free(): void;
}

export interface QueueSpec {
  readonly name: string;
  readonly description: string;
  /** Parameters (pool size per rank, ...) with their defaults. */
  readonly defaults: LockParams;
  make(ctx: LockContext, params?: LockParams): DistQueue;
}
