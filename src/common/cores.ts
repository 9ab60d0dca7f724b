import os from 'node:os';

/**
 * Whether `ranks` processes on one machine outnumber its cores: then a waiting rank cannot keep a
 * core to itself, and the runtime's choices that assume it (long spins, pipelined copies, V8's
 * flags and the Init warm-up, wake-up preemption) turn the other way. One answer for all of them.
 */
export function ranksOutnumberCores(ranks: number): boolean {
  return ranks > os.availableParallelism();
}
