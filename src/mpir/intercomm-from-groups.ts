import { Intracomm } from './comm.js';
import { describe } from './validate.js';
import { Errhandler } from './errhandler.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { Group } from './group.js';
import { INFO_NULL } from './info.js';
import { Intercomm } from './intercomm.js';
import { runtime } from './runtime.js';
import type { InfoArg } from './types.js';

declare module './intercomm.js' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Intercomm {
    /**
     * MPI-4: an intercommunicator between two disjoint groups without a parent communicator;
     * collective over both. Every process of the local group passes the same arguments.
     */
    let Create_from_groups: (local_group: Group, local_leader: number, remote_group: Group, remote_leader: number,
                             stringtag?: string, info?: InfoArg, errhandler?: Errhandler | null) => Intercomm;
  }
}

/**
 * The local group becomes a communicator (Create_from_group); both groups' processes, in
 * world-rank order so that every process sees the same order, become the peer communicator the
 * leaders talk on; Create_intercomm does the rest, and the peer is freed.
 */
function createFromGroups(local_group: Group, local_leader: number, remote_group: Group, remote_leader: number,
                          stringtag = 'org.mpi4py', info: InfoArg = INFO_NULL, errhandler: Errhandler | null = null): Intercomm {
  const call = 'MPI.Intercomm.Create_from_groups';
  const world = runtime.requireRunning(call);
  const remote = remote_group instanceof Group ? remote_group.peek() : null;
  if (remote === null) throw new MPIException(ErrorClass.ERR_GROUP, `${call}: remote_group must be a live MPI.Group, got ${describe(remote_group)}`);
  if (!(Number.isInteger(remote_leader) && remote_leader >= 0 && remote_leader < remote.length)) {
    throw new MPIException(ErrorClass.ERR_RANK, `${call}: remote_leader ${describe(remote_leader)} is out of range (expected 0..${remote.length - 1})`);
  }
  const local = Intracomm.Create_from_group(local_group, stringtag, info, errhandler);
  const localMembers = local_group.peek()!;
  const both = Int32Array.from([...localMembers, ...remote]).sort();
  for (let i = 1; i < both.length; i++) {
    if (both[i] === both[i - 1]) throw new MPIException(ErrorClass.ERR_GROUP, `${call}: world rank ${both[i]} is in both groups (they must be disjoint)`);
  }
  const peer = Intracomm.Create_from_group(Group.ofWorldRanks(both, world.rank), stringtag);
  const inter = local.Create_intercomm(local_leader, peer, both.indexOf(remote[remote_leader]!), 0);
  peer.Free();
  inter.Set_errhandler(errhandler ?? Errhandler.ERRORS_ARE_FATAL);
  return inter;
}

Object.defineProperty(Intercomm, 'Create_from_groups', { value: createFromGroups, writable: true, configurable: true });
