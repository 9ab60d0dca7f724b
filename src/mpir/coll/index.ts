/**
 * The collectives of API.md on intracommunicators, one file per family. Each entry takes a
 * Call (communicator, core, world, name), validates and decodes its arguments, builds a
 * Schedule with the selected algorithm (TSMPI_COLL_<NAME> forces one, see ../config.ts) and
 * runs it blocking or returns its Request.
 *
 * Algorithms and automatic selection (p processes, n bytes; "large" is TSMPI_COLL_LARGE_BYTES):
 *   Barrier        dissemination | linear
 *   Bcast          binomial; scatter_allgather (binomial scatter + ring allgather) when n >= large and p > 2; linear
 *   Gather/Scatter binomial | linear; Gatherv/Scatterv linear
 *   Allgather      recursive_doubling (p a power of two, n * p < large), else ring; gather_bcast; Allgatherv ring
 *   Alltoall(v/w)  linear up to 32 KiB sent per rank, else pairwise
 *   Reduce         binomial (non-commutative ops on the tree of rank 0, then to the root) | linear
 *   Allreduce      recursive_doubling (small or non-commutative), rabenseifner (n >= large, commutative,
 *                  count >= p), ring, reduce_bcast
 *   Reduce_scatter ring (commutative), else reduce_scatterv (binomial reduce + linear scatter)
 *   Scan/Exscan    recursive_doubling | linear
 * Non-commutative ops always combine lower ranks first: algorithms that cannot (ring,
 * rabenseifner) are not used for them even when forced.
 */
export { IN_PLACE, type Call } from './common.js';
export { barrier } from './barrier.js';
export { bcast } from './bcast.js';
export { gather, gatherv } from './gather.js';
export { scatter, scatterv } from './scatter.js';
export { allgather, allgatherv } from './allgather.js';
export { alltoall, alltoallv, alltoallw } from './alltoall.js';
export { reduce } from './reduce.js';
export { allreduce } from './allreduce.js';
export { reduceScatter, reduceScatterBlock } from './reduce-scatter.js';
export { scan, exscan } from './scan.js';
export * from './objects.js';
