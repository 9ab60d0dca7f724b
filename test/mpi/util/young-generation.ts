import v8 from 'node:v8';

/** Bytes in use in V8's young generation (new space). */
export function youngBytes(): number {
  return v8.getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')!.space_used_size;
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
