import { UNSUPPORTED, unsupportedCall } from './unsupported.js';

/**
 * Dynamic processes, mpi4py's names: not implemented yet (issue 18), so each raises
 * MPI.ERR_UNSUPPORTED_OPERATION. Comm.Get_parent is implemented (comm.ts): no process of a tsmpi
 * job was spawned, so it gives MPI.COMM_NULL, which is the truth.
 */
export const dynamicProcessCalls = {
  Open_port: unsupportedCall('MPI.Open_port', UNSUPPORTED.dynamic),
  Close_port: unsupportedCall('MPI.Close_port', UNSUPPORTED.dynamic),
  Publish_name: unsupportedCall('MPI.Publish_name', UNSUPPORTED.dynamic),
  Unpublish_name: unsupportedCall('MPI.Unpublish_name', UNSUPPORTED.dynamic),
  Lookup_name: unsupportedCall('MPI.Lookup_name', UNSUPPORTED.dynamic),
} as const;

/** Intracomm's dynamic-process methods. */
export const spawnCalls = {
  Spawn: unsupportedCall('Intracomm.Spawn', UNSUPPORTED.dynamic),
  Spawn_multiple: unsupportedCall('Intracomm.Spawn_multiple', UNSUPPORTED.dynamic),
  Accept: unsupportedCall('Intracomm.Accept', UNSUPPORTED.dynamic),
  Connect: unsupportedCall('Intracomm.Connect', UNSUPPORTED.dynamic),
} as const;

/** Comm's: Join (static) and Disconnect. */
export const joinCall = unsupportedCall('Comm.Join', UNSUPPORTED.dynamic);
export const disconnectCall = unsupportedCall('Comm.Disconnect', UNSUPPORTED.dynamic);
