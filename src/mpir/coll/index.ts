/**
 * The collectives of API.md on intracommunicators, one file per family. Each entry takes a
 * Call (communicator, core, world, name), validates and decodes its arguments, builds a
 * Schedule with the selected algorithm (TSMPI_COLL_<NAME> forces one, see ../config.ts) and
 * runs it blocking or returns its Request.
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
