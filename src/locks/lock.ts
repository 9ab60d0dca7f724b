/**
 * The contract of tsmpi's RMA lock library (issue 7). Every lock is built only on the public
 * API (windows, Fetch_and_op, Compare_and_swap, Put/Get, Flush, point-to-point), as mpi4py's
 * util/sync is: nothing here reaches into mpir or mpid, so a program can use these locks and
 * the runtime's own MPI.Win passive locks side by side, even on one window.
 *
 * Construction is collective over the communicator of the LockContext; acquire/release are
 * called by any member, in any order, any number of times; free() is collective again.
 */

/**
 * Contention instrumentation, counted inside the lock (the thesis' §4.1 metrics): an
 * acquisition is "immediate" when the first attempt got the lock without waiting for a
 * predecessor, "delayed" otherwise. Hierarchical locks also count their global and local
 * levels apart and their hand-overs (a local release passes the lock inside the node).
 */
export class LockStats {
  immediate = 0;
  delayed = 0;
  /** Hierarchical locks: the global level's own counts (0 for flat locks). */
  globalImmediate = 0;
  globalDelayed = 0;
  /** Hierarchical locks: the local level's own counts. */
  localImmediate = 0;
  localDelayed = 0;
  /** Releases that handed the lock to a waiter of the same node / that released the global level. */
  localReleases = 0;
  globalReleases = 0;

  /** delayed / (immediate + delayed), 0 without acquisitions. */
  get contention(): number {
    const all = this.immediate + this.delayed;
    return all === 0 ? 0 : this.delayed / all;
  }

  /** localReleases / (localReleases + globalReleases), 0 when the lock never released. */
  get localHandoverShare(): number {
    const all = this.localReleases + this.globalReleases;
    return all === 0 ? 0 : this.localReleases / all;
  }

  reset(): void {
    this.immediate = this.delayed = 0;
    this.globalImmediate = this.globalDelayed = this.localImmediate = this.localDelayed = 0;
    this.localReleases = this.globalReleases = 0;
  }

  /** The counters as a Float64Array of STAT_FIELDS order (for reductions across ranks). */
  toArray(): Float64Array {
    return Float64Array.of(this.immediate, this.delayed, this.globalImmediate, this.globalDelayed,
      this.localImmediate, this.localDelayed, this.localReleases, this.globalReleases);
  }

  static fromArray(a: Float64Array): LockStats {
    const s = new LockStats();
    [s.immediate, s.delayed, s.globalImmediate, s.globalDelayed, s.localImmediate, s.localDelayed, s.localReleases,
      s.globalReleases] = Array.from(a);
    return s;
  }
}
export const STAT_FIELDS = 8;

/** A mutual-exclusion lock. */
export interface Lock {
  /** The registry name, e.g. 'dmcs-opt' or 'cohort-mcs-mcs'. */
  readonly name: string;
  readonly stats: LockStats;
  /** Blocks (driving MPI progress, sleeping when it waits long) until this rank holds the lock. */
  acquire(): void;
  /** Only by the holder. */
  release(): void;
  /**
   * One attempt without waiting: true when this rank now holds the lock. Present only where
   * the algorithm allows it (queue locks that enqueue before they know cannot back out).
   */
  tryAcquire?(): boolean;
  /** Collective over the lock's communicator; no rank may hold or wait for the lock. */
  free(): void;
}

/** A reader-writer lock: acquire/release are the writer's (exclusive) side. */
export interface RWLock extends Lock {
  acquireShared(): void;
  releaseShared(): void;
  tryAcquireShared?(): boolean;
}

export function isRWLock(lock: Lock): lock is RWLock {
  return typeof (lock as Partial<RWLock>).acquireShared === 'function';
}

/** Numeric parameters of a lock (thresholds, backoff bounds, fairness factors), by name. */
export type LockParams = Readonly<Record<string, number>>;

/** How the registry describes and makes a lock. */
export interface LockSpec {
  readonly name: string;
  /** 'baseline' | 'paper' | 'spin' | 'queue' | 'cohort' | 'numa' | ...: groups rows of the report. */
  readonly family: string;
  /** One line: what it is and where it comes from (digest section). */
  readonly description: string;
  readonly rw: boolean;
  readonly tryable: boolean;
  /** Whether it uses the node split (hierarchical / NUMA-aware). */
  readonly hierarchical: boolean;
  /** The parameters it reads, with their defaults. */
  readonly defaults: LockParams;
  /** Collective over ctx.comm. */
  make(ctx: import('./context.js').LockContext, params?: LockParams): Lock;
}
