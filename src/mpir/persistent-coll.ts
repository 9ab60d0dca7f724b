import * as coll from './coll/index.js';
import type { Call } from './coll/common.js';
import * as inter from './coll/inter.js';
import { Comm } from './comm.js';
import { ErrorClass } from './error-classes.js';
import { INFO_NULL } from './info.js';
import { Intercomm } from './intercomm.js';
import { SUM, type Op } from './op.js';
import type { Prequest } from './request.js';
import { runtime } from './runtime.js';
import type { BufSpec, BufSpecV, BufSpecW, InPlace, InfoArg, IntList } from './types.js';

/**
 * Persistent collectives (MPI-4 §6.13), mpi4py's names: comm.Bcast_init(buf, root = 0, info),
 * ..., each a Prequest started by Start/Startall and completed by Wait/Test, as often as the
 * program likes, until Free. The *_init call is collective, validates and decodes the
 * arguments, picks the algorithm and builds its schedule once, exactly as the non-blocking
 * form does (coll/); every Start runs that schedule again, reading the buffers at that moment
 * (coll/schedule.ts, coll/persistent.ts). The info argument is accepted and checked; tsmpi
 * reads no hint from it.
 *
 * The methods are installed on Comm's and Intercomm's prototypes here (as topo/constructors.ts
 * does), so comm.ts and intercomm.ts keep one line per call of their own; the neighbourhood
 * forms live with the other neighbour collectives (topo/neighbor-collectives.ts).
 */

function callOf(comm: Comm, name: string, info: unknown): Call {
  comm.checkInfoArg(name, info);
  if (comm instanceof Intercomm) return comm.interCall(name, true);
  return { comm, core: comm.coreFor(name), world: runtime.requireRunning(name), name, persistent: true };
}

/** Intercommunicators define no prefix reductions (MPI-3.1 §5.11). */
function noScan(comm: Comm, name: string): never {
  return comm.fail(name, ErrorClass.ERR_COMM, 'is not defined on an intercommunicator (MPI defines prefix reductions ' +
    'on intracommunicators only; Merge the groups first)');
}

declare module './comm.js' {
  interface Comm {
    /** Persistent Barrier: each Start begins a barrier, Wait completes it. */
    Barrier_init(info?: InfoArg): Prequest;
    /** Persistent Bcast of the root's buf (read at each Start). */
    Bcast_init(buf: BufSpec | null, root?: number, info?: InfoArg): Prequest;
    Gather_init(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, root?: number, info?: InfoArg): Prequest;
    Gatherv_init(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpecV | null, root?: number, info?: InfoArg): Prequest;
    Scatter_init(sendbuf: BufSpec | null, recvbuf: BufSpec | InPlace | null, root?: number, info?: InfoArg): Prequest;
    Scatterv_init(sendbuf: BufSpecV | null, recvbuf: BufSpec | InPlace | null, root?: number, info?: InfoArg): Prequest;
    Allgather_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, info?: InfoArg): Prequest;
    Allgatherv_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpecV, info?: InfoArg): Prequest;
    Alltoall_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, info?: InfoArg): Prequest;
    Alltoallv_init(sendbuf: BufSpecV | InPlace, recvbuf: BufSpecV, info?: InfoArg): Prequest;
    Alltoallw_init(sendbuf: BufSpecW | InPlace, recvbuf: BufSpecW, info?: InfoArg): Prequest;
    Reduce_init(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, op?: Op, root?: number, info?: InfoArg): Prequest;
    Allreduce_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op?: Op, info?: InfoArg): Prequest;
    Reduce_scatter_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, recvcounts: IntList, op?: Op, info?: InfoArg): Prequest;
    Reduce_scatter_block_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op?: Op, info?: InfoArg): Prequest;
    /** Persistent Scan (intracommunicators only; MPI.ERR_COMM on an intercommunicator). */
    Scan_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op?: Op, info?: InfoArg): Prequest;
    /** Persistent Exscan (intracommunicators only). */
    Exscan_init(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op?: Op, info?: InfoArg): Prequest;
  }
}

const P = Comm.prototype;
const asPrequest = (r: unknown): Prequest => r as Prequest;

P.Barrier_init = function (this: Comm, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Barrier_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interBarrier(c as inter.InterCall, true) : coll.barrier(c, true));
};
P.Bcast_init = function (this: Comm, buf: BufSpec | null, root = 0, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Bcast_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interBcast(c as inter.InterCall, buf, root, true) : coll.bcast(c, buf, root, true));
};
P.Gather_init = function (this: Comm, sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, root = 0,
                          info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Gather_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interGather(c as inter.InterCall, sendbuf, recvbuf, root, true)
    : coll.gather(c, sendbuf, recvbuf, root, true));
};
P.Gatherv_init = function (this: Comm, sendbuf: BufSpec | InPlace | null, recvbuf: BufSpecV | null, root = 0,
                           info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Gatherv_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interGatherv(c as inter.InterCall, sendbuf, recvbuf, root, true)
    : coll.gatherv(c, sendbuf, recvbuf, root, true));
};
P.Scatter_init = function (this: Comm, sendbuf: BufSpec | null, recvbuf: BufSpec | InPlace | null, root = 0,
                           info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Scatter_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interScatter(c as inter.InterCall, sendbuf, recvbuf, root, true)
    : coll.scatter(c, sendbuf, recvbuf, root, true));
};
P.Scatterv_init = function (this: Comm, sendbuf: BufSpecV | null, recvbuf: BufSpec | InPlace | null, root = 0,
                            info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Scatterv_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interScatterv(c as inter.InterCall, sendbuf, recvbuf, root, true)
    : coll.scatterv(c, sendbuf, recvbuf, root, true));
};
P.Allgather_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpec, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Allgather_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interAllgather(c as inter.InterCall, sendbuf, recvbuf, true)
    : coll.allgather(c, sendbuf, recvbuf, true));
};
P.Allgatherv_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpecV, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Allgatherv_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interAllgatherv(c as inter.InterCall, sendbuf, recvbuf, true)
    : coll.allgatherv(c, sendbuf, recvbuf, true));
};
P.Alltoall_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpec, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Alltoall_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interAlltoall(c as inter.InterCall, sendbuf, recvbuf, true)
    : coll.alltoall(c, sendbuf, recvbuf, true));
};
P.Alltoallv_init = function (this: Comm, sendbuf: BufSpecV | InPlace, recvbuf: BufSpecV, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Alltoallv_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interAlltoallv(c as inter.InterCall, sendbuf, recvbuf, true)
    : coll.alltoallv(c, sendbuf, recvbuf, true));
};
P.Alltoallw_init = function (this: Comm, sendbuf: BufSpecW | InPlace, recvbuf: BufSpecW, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Alltoallw_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interAlltoallw(c as inter.InterCall, sendbuf, recvbuf, true)
    : coll.alltoallw(c, sendbuf, recvbuf, true));
};
P.Reduce_init = function (this: Comm, sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, op: Op = SUM, root = 0,
                          info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Reduce_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interReduce(c as inter.InterCall, sendbuf, recvbuf, op, root, true)
    : coll.reduce(c, sendbuf, recvbuf, op, root, true));
};
P.Allreduce_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM, info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Allreduce_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interAllreduce(c as inter.InterCall, sendbuf, recvbuf, op, true)
    : coll.allreduce(c, sendbuf, recvbuf, op, true));
};
P.Reduce_scatter_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpec, recvcounts: IntList, op: Op = SUM,
                                  info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Reduce_scatter_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interReduceScatter(c as inter.InterCall, sendbuf, recvbuf, recvcounts, op, true)
    : coll.reduceScatter(c, sendbuf, recvbuf, recvcounts, op, true));
};
P.Reduce_scatter_block_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM,
                                        info: InfoArg = INFO_NULL): Prequest {
  const c = callOf(this, 'Reduce_scatter_block_init', info);
  return asPrequest(this instanceof Intercomm ? inter.interReduceScatterBlock(c as inter.InterCall, sendbuf, recvbuf, op, true)
    : coll.reduceScatterBlock(c, sendbuf, recvbuf, op, true));
};
P.Scan_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM, info: InfoArg = INFO_NULL): Prequest {
  if (this instanceof Intercomm) return noScan(this, 'Scan_init');
  return asPrequest(coll.scan(callOf(this, 'Scan_init', info), sendbuf, recvbuf, op, true));
};
P.Exscan_init = function (this: Comm, sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM, info: InfoArg = INFO_NULL): Prequest {
  if (this instanceof Intercomm) return noScan(this, 'Exscan_init');
  return asPrequest(coll.exscan(callOf(this, 'Exscan_init', info), sendbuf, recvbuf, op, true));
};
