/**
 * Process topologies, mpi4py-style: comm.Create_cart / Create_graph / Create_dist_graph_adjacent
 * make an MPI.Cartcomm / Graphcomm / Distgraphcomm (each an Intracomm that also knows its
 * neighbours: neighbor-collectives.ts); MPI.Compute_dims balances a grid (compute-dims.ts).
 * Importing this module installs the constructors on Intracomm (constructors.ts).
 */
import './constructors.js';

export { CART, Cartcomm } from './cartcomm.js';
export { computeDims } from './compute-dims.js';
export { DIST_GRAPH, Distgraphcomm } from './distgraphcomm.js';
export { GRAPH, Graphcomm } from './graphcomm.js';
