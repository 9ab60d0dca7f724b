/**
 * The collectives of API.md on intracommunicators, one file per family (intercommunicators:
 * inter.ts). Each entry takes a Call (communicator, core, world, name), validates and decodes
 * its arguments (non-contiguous datatypes are packed, and unpacked into receive buffers at the
 * end: common.ts), builds a Schedule with the selected algorithm (TSMPI_COLL_<NAME> forces one,
 * see ../config.ts) and runs it blocking or returns its Request.
 *
 * Algorithms and automatic selection (p processes, n bytes; "large" is TSMPI_COLL_LARGE_BYTES):
 *   Barrier        shm_counter (SCI-MPICH's hierarchical barrier: counter flags in a node segment,
 *                  tree of node leaders; auto when two ranks share a node) | dissemination | linear
 *   Bcast          binomial; pcast (pipelined chain) when n >= TSMPI_COLL_PCAST_MIN and p > 2;
 *                  scatter_allgather when n >= large and p > 2; linear
 *   Gather/Scatter binomial | linear; Gatherv/Scatterv linear
 *   Allgather      recursive_doubling (p a power of two, n * p < large), else ring; shift (SCI-MPICH's
 *                  one-direction shift of block pairs); gather_bcast; Allgatherv ring
 *   Alltoall(v/w)  linear up to 32 KiB sent per rank, else pairwise
 *   Reduce         binomial; rpipe (pipelined chain) when n >= TSMPI_COLL_RPIPE_MIN and p > 2;
 *                  fanin_tree (SCI-MPICH's upward tree, fan-in TSMPI_COLL_REDUCE_FANIN) | linear
 *   Allreduce      recursive_doubling (small or non-commutative), rpipe + pcast (n >= RPIPE_MIN,
 *                  p > 2), rabenseifner (n >= large, commutative, count >= p), ring, reduce_bcast
 *   Reduce_scatter overlap (SCI-MPICH's direct exchange, commutative, n < large), ring
 *                  (commutative), else reduce_scatterv (binomial reduce + linear scatter)
 *   Scan/Exscan    recursive_doubling; rpipe when n >= RPIPE_MIN and p > 2; linear
 * Non-commutative ops always combine lower ranks first: algorithms that cannot (ring,
 * rabenseifner, overlap) are not used for them even when forced; rpipe and fanin_tree then run
 * on ranks in order and send the result on to the root.
 */
export { IN_PLACE, type Call, callRecord } from './common.js';
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
