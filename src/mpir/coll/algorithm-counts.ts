import { counterSpec, type PvarSpec, type PvarTable } from '../../mpid/pvars.js';

/**
 * The algorithms each collective can run: the choices of its TSMPI_COLL_* variable, plus
 * node_cells (coll/shm-small.ts: small blocking collectives of ranks on one node, through
 * shared cells). A unit test keeps this list in step with the variables' choices.
 */
export const COLL_ALGORITHMS = {
  barrier: ['shm_counter', 'dissemination', 'linear', 'node_cells'],
  bcast: ['binomial', 'linear', 'scatter_allgather', 'pcast', 'node_cells'],
  gather: ['binomial', 'linear'],
  scatter: ['binomial', 'linear'],
  allgather: ['recursive_doubling', 'ring', 'shift', 'gather_bcast', 'node_cells'],
  alltoall: ['pairwise', 'linear', 'node_cells'],
  reduce: ['binomial', 'fanin_tree', 'rpipe', 'linear', 'node_cells'],
  allreduce: ['recursive_doubling', 'rabenseifner', 'ring', 'reduce_bcast', 'rpipe', 'node_cells'],
  reduce_scatter: ['reduce_scatterv', 'ring', 'overlap'],
  scan: ['recursive_doubling', 'linear', 'rpipe'],
} as const;

export type Collective = keyof typeof COLL_ALGORITHMS;

/** Calls per collective and algorithm on this rank (intracommunicators; blocking and non-blocking). */
export const collCounts = Object.fromEntries(Object.entries(COLL_ALGORITHMS).map(([coll, algos]) =>
  [coll, Object.fromEntries(algos.map((a) => [a, 0]))])) as Record<Collective, Record<string, number>>;

/** Counts one call of `collective` by `algorithm` (two property lookups, once per collective call). */
export function countAlgorithm(collective: Collective, algorithm: string): void {
  const t = collCounts[collective];
  if (algorithm in t) t[algorithm]!++;
}

const C = 'coll';

/** The counts as MPI.T performance variables: coll_<collective>_<algorithm>. */
export const COLL_PVARS: PvarTable<typeof collCounts> = {
  category: C,
  description: 'Collective operations: calls by algorithm (TSMPI_COLL_* choose, auto by size and ranks)',
  variables: Object.entries(COLL_ALGORITHMS).flatMap(([coll, algos]) => algos.map((a): PvarSpec<typeof collCounts> =>
    counterSpec(C, `${coll}_${a}`, 'calls', `${coll} calls run by the ${a} algorithm`, (c) => c[coll as Collective][a]!))),
};
