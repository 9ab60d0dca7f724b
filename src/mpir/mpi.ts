import os from 'node:os';
import { memoryAddress } from '../mpid/memory-address.js';
import * as rma from './rma/win-constants.js';
import { Win, setDefaultComm } from './rma/win.js';
import { allocMem, freeMem } from './rma/alloc-mem.js';
import { performance } from 'node:perf_hooks';
import { COMM_NULL, Comm, Intracomm, selfCore, worldCore } from './comm.js';
import { ErrorClass } from './error-classes.js';
import { Errhandler } from './errhandler.js';
import { MPIException } from './exception.js';
import { abortJob } from './abort.js';
import { applyV8Flags, warmUpMessagePath } from './warmup.js';
import { runtime } from './runtime.js';
import * as constants from './constants.js';
import { Datatype, DatatypeConstants, Datatypes } from './datatype.js';
import { GROUP_EMPTY, Group } from './group.js';
import { Message, Prequest, Request } from './request.js';
import { Status } from './status.js';
import { bsendBuffer } from './bsend.js';
import { Op, Ops } from './op.js';
import { IN_PLACE } from './in-place.js';
import { KEYVAL_INVALID, deleteAttrsAtFinalize } from './attributes.js';
import { INFO_NULL, Info, MAX_INFO_KEY, MAX_INFO_VAL } from './info.js';
import { Intercomm } from './intercomm.js';
import { CART, Cartcomm, DIST_GRAPH, Distgraphcomm, GRAPH, Graphcomm, computeDims } from './topo/index.js';
import type { BufferLike } from './types.js';
import { describe } from './buffer.js';

const COMM_WORLD = new Intracomm('MPI_COMM_WORLD');
setDefaultComm(COMM_WORLD);
const COMM_SELF = new Intracomm('MPI_COMM_SELF');

const THREAD_SINGLE = 0;
const THREAD_FUNNELED = 1;
const THREAD_SERIALIZED = 2;
const THREAD_MULTIPLE = 3;

/** Level provided: a rank is one JS thread, so MPI is callable from that thread only. */
const THREAD_PROVIDED = THREAD_FUNNELED;

function Init(): void {
  const world = runtime.start('MPI.Init');
  COMM_WORLD.bind(worldCore(world.rank, world.size));
  COMM_SELF.bind(selfCore(world.rank));
  // A device's fatal error (a peer lost with its host, say) under MPI.ERRORS_RETURN on
  // MPI.COMM_WORLD is an MPI.Exception of the call that was progressing. Under the fatal
  // handlers the device's error ends the rank as it is (uncaught), and the launcher the job:
  // a PMI abort from here was not carried out by hydra with a host cut off (the job hung).
  world.onDeviceFailure = (error) => {
    if (!COMM_WORLD.Get_errhandler().isFatal) {
      throw new MPIException(ErrorClass.ERR_OTHER, `MPI_COMM_WORLD.progress: ${error.message}`, { cause: error });
    }
  };
  applyV8Flags(world);
  warmUpMessagePath(world, COMM_WORLD);
}

function Init_thread(required: number = THREAD_MULTIPLE): number {
  if (![THREAD_SINGLE, THREAD_FUNNELED, THREAD_SERIALIZED, THREAD_MULTIPLE].includes(required)) {
    throw new MPIException(ErrorClass.ERR_ARG, `MPI.Init_thread: required level ${required} is not one of MPI.THREAD_SINGLE .. MPI.THREAD_MULTIPLE`);
  }
  Init();
  return Math.min(required, THREAD_PROVIDED);
}

function Finalize(): void {
  // As the standard asks, Finalize first deletes the attributes of COMM_SELF (cleanup hooks).
  if (runtime.phase === 'running') deleteAttrsAtFinalize(COMM_SELF);
  // Over a network device a completed send may still sit in this rank's transport queue (UCX
  // took it while the peer's socket was full), and only this rank's progress sends it on. The
  // process manager's fence in Finalize progresses nothing: a receiver that came late waited
  // forever for it. No rank passes this barrier before every rank has reached Finalize, which a
  // correct program does after its receives, and every rank progresses until then.
  if (runtime.phase === 'running' && COMM_WORLD.size > 1 && runtime.requireRunning('MPI.Finalize').sendsNeedProgress()) {
    COMM_WORLD.Barrier();
  }
  runtime.stop('MPI.Finalize');
  COMM_WORLD.bind(null);
  COMM_SELF.bind(null);
}

function Abort(comm: Comm = COMM_WORLD, errorcode = 0): never {
  if (!(comm instanceof Comm)) {
    return abortJob(errorcode, `application called MPI.Abort(<not a communicator>, ${errorcode})`);
  }
  return comm.Abort(errorcode);
}

/** Gives MPI a buffer for Bsend/Ibsend (each message needs its size plus MPI.BSEND_OVERHEAD). */
function Attach_buffer(buf: BufferLike): void {
  runtime.requireRunning('MPI.Attach_buffer');
  if (!(ArrayBuffer.isView(buf) || buf instanceof ArrayBuffer || buf instanceof SharedArrayBuffer)) {
    throw new MPIException(ErrorClass.ERR_BUFFER, 'MPI.Attach_buffer: expected a TypedArray, Buffer or ArrayBuffer');
  }
  bsendBuffer.attach(buf);
}

/** Waits until all buffered messages are delivered and returns the attached buffer. */
function Detach_buffer(): BufferLike | null {
  return bsendBuffer.detach();
}

function Get_processor_name(): string {
  runtime.requireRunning('MPI.Get_processor_name');
  return os.hostname();
}

/** The address of a buffer's first byte (for dynamic windows and MPI_Aint arithmetic). */
function Get_address(location: BufferLike): number {
  if (!(ArrayBuffer.isView(location) || location instanceof ArrayBuffer || location instanceof SharedArrayBuffer)) {
    throw new MPIException(ErrorClass.ERR_BUFFER, `MPI.Get_address: location must be a typed array, DataView, Buffer or ` +
      `ArrayBuffer, got ${describe(location)}`);
  }
  return memoryAddress.addressOf(ArrayBuffer.isView(location) ? new Uint8Array(location.buffer, location.byteOffset, location.byteLength)
    : new Uint8Array(location));
}

/** Seconds since an arbitrary point in the past, from the monotonic high-resolution clock. */
function Wtime(): number {
  return performance.now() / 1000;
}

/** performance.now() is derived from a nanosecond clock and not coarsened in Node. */
function Wtick(): number {
  return 1e-9;
}

/** The public MPI namespace; names, argument order and defaults follow mpi4py. */
export const MPI = {
  Init,
  Init_thread,
  Finalize,
  Is_initialized: (): boolean => runtime.phase !== 'before-init',
  Is_finalized: (): boolean => runtime.phase === 'finalized',
  Query_thread: (): number => THREAD_PROVIDED,
  Is_thread_main: (): boolean => true,
  Abort,
  Get_processor_name,
  Wtime,
  Wtick,
  COMM_WORLD,
  COMM_SELF,
  COMM_NULL,
  Comm,
  Intracomm,
  Intercomm,
  Cartcomm,
  Graphcomm,
  Distgraphcomm,
  CART,
  GRAPH,
  DIST_GRAPH,
  Compute_dims: computeDims,
  KEYVAL_INVALID,
  Info,
  INFO_NULL,
  MAX_INFO_KEY,
  MAX_INFO_VAL,
  Group,
  GROUP_EMPTY,
  Status,
  Request,
  Prequest,
  Message,
  Datatype,
  ...Datatypes,
  ...DatatypeConstants,
  Attach_buffer,
  Detach_buffer,
  ...constants,
  Op,
  ...Ops,
  IN_PLACE,
  Exception: MPIException,
  Errhandler,
  ERRORS_ARE_FATAL: Errhandler.ERRORS_ARE_FATAL,
  ERRORS_RETURN: Errhandler.ERRORS_RETURN,
  ERRORS_ABORT: Errhandler.ERRORS_ABORT,
  THREAD_SINGLE,
  THREAD_FUNNELED,
  THREAD_SERIALIZED,
  THREAD_MULTIPLE,
  ...ErrorClass,
  Win,
  LOCK_EXCLUSIVE: rma.LOCK_EXCLUSIVE,
  LOCK_SHARED: rma.LOCK_SHARED,
  MODE_NOCHECK: rma.MODE_NOCHECK,
  MODE_NOSTORE: rma.MODE_NOSTORE,
  MODE_NOPUT: rma.MODE_NOPUT,
  MODE_NOPRECEDE: rma.MODE_NOPRECEDE,
  MODE_NOSUCCEED: rma.MODE_NOSUCCEED,
  WIN_BASE: rma.WIN_BASE,
  WIN_SIZE: rma.WIN_SIZE,
  WIN_DISP_UNIT: rma.WIN_DISP_UNIT,
  WIN_CREATE_FLAVOR: rma.WIN_CREATE_FLAVOR,
  WIN_MODEL: rma.WIN_MODEL,
  WIN_FLAVOR_CREATE: rma.WIN_FLAVOR_CREATE,
  WIN_FLAVOR_ALLOCATE: rma.WIN_FLAVOR_ALLOCATE,
  WIN_FLAVOR_DYNAMIC: rma.WIN_FLAVOR_DYNAMIC,
  WIN_FLAVOR_SHARED: rma.WIN_FLAVOR_SHARED,
  WIN_SEPARATE: rma.WIN_SEPARATE,
  WIN_UNIFIED: rma.WIN_UNIFIED,
  /** Memory for windows: a SharedArrayBuffer; info type=shared exports it to other SCI nodes (see rma/alloc-mem.ts). */
  Alloc_mem: allocMem,
  Get_address,
  Free_mem: freeMem,
} as const;
