import { youngGeneration } from '../../../src/mpir/young-generation.js';

/** Bytes in use in V8's young generation (new space). */
export function youngBytes(): number {
  return youngGeneration().space_used_size;
}

/**
 * How much `calls` calls of `call` grow the young generation: the least non-negative growth of
 * three runs (a scavenge in the middle of one makes it negative).
 */
export function youngGrowth(call: (k: number) => void, calls: number): number {
  let growth = Infinity;
  for (let loop = 0; loop < 3; loop++) {
    const before = youngBytes();
    for (let k = 0; k < calls; k++) call(k);
    const grown = youngBytes() - before;
    if (grown >= 0) growth = Math.min(growth, grown);
  }
  return growth;
}
