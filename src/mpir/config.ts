import { declareChoice, declareInt } from '../common/config.js';

/**
 * Collective algorithm selection. `auto` chooses by message size and process count (see each
 * family in src/mpir/coll/); any other value forces that algorithm on every call.
 */
const layer = 'mpir';

export const COLL_BARRIER = declareChoice({
  name: 'TSMPI_COLL_BARRIER', layer, default: 'auto', choices: ['auto', 'dissemination', 'linear'] as const,
  description: 'Barrier algorithm: dissemination (ceil(log2 p) rounds) or linear (gather to rank 0, then release).',
});

export const COLL_BCAST = declareChoice({
  name: 'TSMPI_COLL_BCAST', layer, default: 'auto', choices: ['auto', 'binomial', 'linear', 'scatter_allgather'] as const,
  description: 'Bcast algorithm: binomial tree (small), scatter + ring allgather (large, p > 2), linear from the root.',
});

export const COLL_GATHER = declareChoice({
  name: 'TSMPI_COLL_GATHER', layer, default: 'auto', choices: ['auto', 'binomial', 'linear'] as const,
  description: 'Gather algorithm: binomial tree or linear (the root receives from each rank).',
});

export const COLL_SCATTER = declareChoice({
  name: 'TSMPI_COLL_SCATTER', layer, default: 'auto', choices: ['auto', 'binomial', 'linear'] as const,
  description: 'Scatter algorithm: binomial tree or linear (the root sends to each rank).',
});

export const COLL_ALLGATHER = declareChoice({
  name: 'TSMPI_COLL_ALLGATHER', layer, default: 'auto', choices: ['auto', 'recursive_doubling', 'ring', 'gather_bcast'] as const,
  description: 'Allgather algorithm: recursive doubling (power-of-two process counts), ring, or gather + bcast.',
});

export const COLL_ALLTOALL = declareChoice({
  name: 'TSMPI_COLL_ALLTOALL', layer, default: 'auto', choices: ['auto', 'pairwise', 'linear'] as const,
  description: 'Alltoall algorithm: pairwise exchange (p - 1 rounds; auto above 32 KiB sent per rank) or linear ' +
    '(all messages posted at once; auto up to 32 KiB).',
});

export const COLL_REDUCE = declareChoice({
  name: 'TSMPI_COLL_REDUCE', layer, default: 'auto', choices: ['auto', 'binomial', 'linear'] as const,
  description: 'Reduce algorithm: binomial tree, or linear (the root reduces in rank order).',
});

export const COLL_ALLREDUCE = declareChoice({
  name: 'TSMPI_COLL_ALLREDUCE', layer, default: 'auto',
  choices: ['auto', 'recursive_doubling', 'rabenseifner', 'ring', 'reduce_bcast'] as const,
  description: 'Allreduce algorithm: recursive doubling (small or non-commutative), Rabenseifner (recursive-halving ' +
    'reduce-scatter + recursive-doubling allgather; large, commutative), ring reduce-scatter + allgather, or reduce + bcast.',
});

export const COLL_REDUCE_SCATTER = declareChoice({
  name: 'TSMPI_COLL_REDUCE_SCATTER', layer, default: 'auto', choices: ['auto', 'reduce_scatterv', 'ring'] as const,
  description: 'Reduce_scatter(_block) algorithm: ring (commutative) or reduce to rank 0 + scatterv.',
});

export const COLL_SCAN = declareChoice({
  name: 'TSMPI_COLL_SCAN', layer, default: 'auto', choices: ['auto', 'recursive_doubling', 'linear'] as const,
  description: 'Scan/Exscan algorithm: recursive doubling, or linear (a chain through the ranks).',
});

export const COLL_LARGE_BYTES = declareInt({
  name: 'TSMPI_COLL_LARGE_BYTES', layer,
  description: 'Message size (bytes) from which auto selection takes the large-message algorithms ' +
    '(Rabenseifner allreduce, ring allgather, scatter + allgather bcast).',
  default: 65536, min: 0, max: 1 << 30,
});
