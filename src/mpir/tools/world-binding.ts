import type { World } from '../../mpid/world.js';

/**
 * The World whose counters MPI.T reads: the one MPI.Init made. It stays bound after
 * MPI.Finalize, so handles read the final values then (MPI_T outlives MPI_Finalize); before
 * MPI.Init there is none, and the variables of the engine and the devices read 0.
 */
let bound: World | null = null;

export function bindToolsWorld(world: World): void {
  bound = world;
}

export function toolsWorld(): World | null {
  return bound;
}
