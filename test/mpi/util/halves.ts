import { MPI, type Intercomm, type Intracomm } from '../../../src/index.js';

/**
 * An intercommunicator between the first `split` ranks of COMM_WORLD (group A) and the rest
 * (group B), made the way `how` says: Create_intercomm over COMM_WORLD, or through a port
 * (group A's rank 0 opens it and sends its name to B's rank 0; A accepts, B connects), which
 * reaches the other group as processes of another job would be reached (dynamic processes).
 * The intercommunicator tests run on both.
 */
export function intercommOfHalves(split: number, how: 'create' | 'port', tag: number): { local: Intracomm; inter: Intercomm } {
  const world = MPI.COMM_WORLD;
  const inA = world.rank < split;
  const local = world.Split(inA ? 0 : 1, world.rank);
  if (how === 'create') return { local, inter: local.Create_intercomm(0, world, inA ? split : 0, tag) };
  let port = '';
  if (world.rank === 0) {
    port = MPI.Open_port();
    world.send(port, split, tag);
  } else if (world.rank === split) {
    port = world.recv(0, tag) as string;
  }
  const inter = inA ? local.Accept(port, MPI.INFO_NULL, 0) : local.Connect(port, MPI.INFO_NULL, 0);
  if (world.rank === 0) MPI.Close_port(port);
  return { local, inter };
}

/** The way a test program was asked to make its intercommunicator (an argument `port`, else Create_intercomm). */
export function intercommHow(args: readonly string[]): 'create' | 'port' {
  return args.includes('port') ? 'port' : 'create';
}
