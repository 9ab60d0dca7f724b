/**
 * The two levels of a cohort lock (research 000 §2.9, §6.2 "cohort framework"): what the
 * framework in ./cohort.ts asks of a global lock and of a local lock.
 *
 * Status byte (Opt. 3, the inline counter; Fig. 5.3): the local lock hands a small integer
 * from releaser to successor. ACQUIRE_GLOBAL (0) = the lock was released globally, the new
 * holder must take the global lock; WAIT (255) = a hand-over slot is empty / still waiting;
 * 1..254 = released locally, the value counting the consecutive local passes. The thesis keeps
 * it in a uint8_t; here it sits in an Int32 word of node-shared memory (JS Atomics work on
 * Int32Array), with the same three ranges.
 *
 * Deviation: none in the interface. The thesis' acquire_cd()/release_cd(status)/alone() are
 * acquire()/release(status)/alone() here; `immediate` reports whether the last acquire waited
 * for nobody (for LockStats).
 *
 * Research ids cited here: see docs/references.md.
 */

/** The status byte's values. */
export const ACQUIRE_GLOBAL = 0;
export const WAIT = 255;
/** Largest pass count a status can carry (1..254). */
export const MAX_STATUS = 254;

/**
 * A global lock of a cohort: across all ranks, over RMA. It must be thread-oblivious in the
 * thesis' weak sense: acquired by one rank, released by any rank of the same node (Opt. 4's
 * argument: at most one rank per node competes for it, because it holds the local lock first).
 */
export interface GlobalLevel {
  readonly kind: string;
  /** Blocks until this rank's node holds the lock; true when it was free at the first attempt. */
  acquire(): boolean;
  release(): void;
  free(): void;
}

/** A local lock of a cohort: the ranks of one node, node-shared memory and JS Atomics only. */
export interface LocalLevel {
  readonly kind: string;
  /** Blocks until held; returns the status handed over by the previous holder. */
  acquire(): number;
  /** Whether the last acquire() got the lock at its first attempt. */
  readonly immediate: boolean;
  /** Hands the lock over with `status` (ACQUIRE_GLOBAL or a pass count 1..254). */
  release(status: number): void;
  /** Cohort detection: true when no rank of the node is known to wait (the holder only). */
  alone(): boolean;
  free(): void;
}

/** Int32 index of a byte offset of a WindowLayout field. */
export function word(byteOffset: number): number {
  return byteOffset >> 2;
}
