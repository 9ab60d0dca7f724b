import os from 'node:os';
import { memoryAddress } from '../mpid/memory-address.js';
import * as rma from './rma/win-constants.js';
import { Win, setDefaultComm } from './rma/win.js';
import { allocMem, freeMem } from './rma/alloc-mem.js';
import { performance } from 'node:perf_hooks';
import { COMM_NULL, Comm, Intracomm, selfCore, worldCore } from './comm.js';
import { ErrorClass } from './error-classes.js';
import * as errorCalls from './error-calls.js';
import { drainBeforeStop } from './comm-manage.js';
import { describe } from './buffer.js';
import { reduceLocal } from './reduce-local.js';
import { Session } from './session.js';
import { File, FILE_NULL, fileConstants } from './file.js';
import { connectToParent, disconnectAll, dynamicProcessCalls } from './dynamic.js';
import './comm-buffer.js';
import './comm-missing.js';
import { Grequest } from './grequest.js';
import './idup.js';
import './intercomm-from-groups.js';
import { UNSUPPORTED, unsupportedCall } from './unsupported.js';
import {
  THREAD_FUNNELED, THREAD_MULTIPLE, THREAD_PROVIDED, THREAD_SERIALIZED, THREAD_SINGLE, isThreadLevel, isThreadMain,
  refuseWorkerThread, threadLevelName,
} from './threads.js';
import { packageVersion } from '../common/package-json.js';
import { Errhandler } from './errhandler.js';
import { MPIException } from './exception.js';
import { abortJob } from './abort.js';
import { applyV8Flags, applyV8FlagsAfterInit, warmUpMessagePath } from './warmup.js';
import { runtime } from './runtime.js';
import * as constants from './constants.js';
import { Datatype, DatatypeConstants, Datatypes } from './datatype.js';
import { GROUP_EMPTY, Group } from './group.js';
import { Message, Prequest, Request } from './request.js';
import { Status } from './status.js';
import { processBuffer } from './bsend.js';
import { BUFFER_AUTOMATIC, type AttachArg } from './buffer-automatic.js';
import { Op, Ops } from './op.js';
import { IN_PLACE } from './in-place.js';
import { KEYVAL_INVALID, deleteAttrsAtFinalize } from './attributes.js';
import { INFO_NULL, Info, MAX_INFO_KEY, MAX_INFO_VAL } from './info.js';
import { Intercomm } from './intercomm.js';
import { CART, Cartcomm, DIST_GRAPH, Distgraphcomm, GRAPH, Graphcomm, computeDims } from './topo/index.js';
import type { BufSpec, BufferLike } from './types.js';
import * as tools from './tools/tools.js';

const COMM_WORLD = new Intracomm('MPI_COMM_WORLD');
setDefaultComm(COMM_WORLD);
const COMM_SELF = new Intracomm('MPI_COMM_SELF');

/** The World Model's phase in this process (Sessions keep MPI running beside it: runtime.ts). */
let worldModel: 'before-init' | 'running' | 'finalized' = 'before-init';
/** The level MPI.Init_thread granted (MPI.Init: THREAD_SINGLE, as the standard has it). */
let threadLevel = THREAD_SINGLE;

function Init(): void {
  startWorldModel('MPI.Init', THREAD_SINGLE);
}

/**
 * Returns the level provided: `required` up to MPI.THREAD_FUNNELED, which is all tsmpi gives
 * (threads.ts says why). A program that asks for more gets FUNNELED and must call MPI from its
 * main thread only; a Worker's MPI.Init raises MPI.Exception.
 */
function Init_thread(required: number = THREAD_MULTIPLE): number {
  if (!isThreadLevel(required)) {
    throw new MPIException(ErrorClass.ERR_ARG, `MPI.Init_thread: required level ${describe(required)} is not one of MPI.THREAD_SINGLE .. MPI.THREAD_MULTIPLE`);
  }
  return startWorldModel('MPI.Init_thread', Math.min(required, THREAD_PROVIDED));
}

function startWorldModel(call: string, level: number): number {
  refuseWorkerThread(call);
  if (worldModel === 'running') throw new MPIException(ErrorClass.ERR_OTHER, `${call}: MPI is already initialized`);
  if (worldModel === 'finalized') throw new MPIException(ErrorClass.ERR_OTHER, `${call}: MPI cannot be initialized again after MPI.Finalize`);
  const world = runtime.hold(call);
  worldModel = 'running';
  threadLevel = level;
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
  applyV8FlagsAfterInit(world);
  connectToParent(COMM_WORLD, COMM_SELF);
  return level;
}

function Finalize(): void {
  if (worldModel !== 'running') {
    if (worldModel === 'finalized') throw new MPIException(ErrorClass.ERR_OTHER, 'MPI.Finalize: called after MPI.Finalize');
    runtime.requireRunning('MPI.Finalize');
    throw new MPIException(ErrorClass.ERR_OTHER, 'MPI.Finalize: called before MPI.Init (Sessions end with session.Finalize())');
  }
  // As the standard asks, Finalize first deletes the attributes of COMM_SELF (cleanup hooks).
  deleteAttrsAtFinalize(COMM_SELF);
  disconnectAll();
  worldModel = 'finalized';
  try {
    runtime.release('MPI.Finalize', drainBeforeStop);
  } finally {
    COMM_WORLD.bind(null);
    COMM_SELF.bind(null);
  }
}

function Abort(comm: Comm = COMM_WORLD, errorcode = 0): never {
  if (!(comm instanceof Comm)) {
    return abortJob(errorcode, `application called MPI.Abort(<not a communicator>, ${errorcode})`);
  }
  return comm.Abort(errorcode);
}

/**
 * Gives MPI a buffer for Bsend/Ibsend on communicators without one of their own or of their
 * session's (each message needs its size plus MPI.BSEND_OVERHEAD); MPI.BUFFER_AUTOMATIC lets them
 * use what they need.
 */
function Attach_buffer(buf: AttachArg): void {
  runtime.requireRunning('MPI.Attach_buffer');
  named('MPI.Attach_buffer', () => processBuffer.attach(buf));
}

/** Waits until all buffered messages are delivered and returns the attached buffer (null if none). */
function Detach_buffer(): AttachArg | null {
  return processBuffer.detach('MPI.Detach_buffer');
}

/** MPI-4.1: waits until every message buffered by Bsend/Ibsend has left the attached buffer. */
function Flush_buffer(): void {
  processBuffer.flush('MPI.Flush_buffer');
}

/** MPI-4.1: a request that completes once every message buffered so far has left the attached buffer. */
function Iflush_buffer(): Request {
  return new Request(processBuffer.iflush('MPI.Iflush_buffer'), null);
}

/** Runs `fn`, naming `call` in the MPI.Exception it throws. */
function named(call: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof MPIException) throw new MPIException(e.error_class, `${call}: ${e.message}`);
    throw e;
  }
}

/** base + disp, as an address (MPI_Aint arithmetic: addresses are plain numbers here). */
function Aint_add(base: number, disp: number): number {
  return checkAddress('Aint_add', 'base', base) + checkAddress('Aint_add', 'disp', disp);
}

/** addr1 - addr2, as a displacement. */
function Aint_diff(addr1: number, addr2: number): number {
  return checkAddress('Aint_diff', 'addr1', addr1) - checkAddress('Aint_diff', 'addr2', addr2);
}

function checkAddress(call: string, what: string, value: unknown): number {
  if (!Number.isSafeInteger(value)) throw new MPIException(ErrorClass.ERR_ARG, `MPI.${call}: ${what} must be an integer address, got ${describe(value)}`);
  return value as number;
}

/**
 * The profiling interface's control (MPI_Pcontrol): tsmpi has no profiling library to steer, so
 * the call accepts any level and does nothing, as the standard allows.
 */
function Pcontrol(level: number): void {
  if (!Number.isSafeInteger(level)) throw new MPIException(ErrorClass.ERR_ARG, `MPI.Pcontrol: level must be an integer, got ${describe(level)}`);
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

/** The standard's version whose calls tsmpi follows; README's "Missing" lists what it leaves out. */
const VERSION = 4;
const SUBVERSION = 0;

/** [MPI.VERSION, MPI.SUBVERSION]: the version of the standard whose calls tsmpi follows. */
function Get_version(): [number, number] {
  return [VERSION, SUBVERSION];
}

/** tsmpi's version, the devices it has, and the Node.js it runs on. */
function Get_library_version(): string {
  return `tsmpi ${packageVersion(import.meta.url)} (MPI ${VERSION}.${SUBVERSION} calls with mpi4py's names; ` +
    `devices ch_shmem, ch_sci, ch_ucx; thread level ${threadLevelName(THREAD_PROVIDED)}) on Node.js ${process.version}`;
}

/** The public MPI namespace; names, argument order and defaults follow mpi4py. */
export const MPI = {
  Init,
  Init_thread,
  Finalize,
  /** Whether MPI.Init (the World Model) was called; a Session does not count, as in MPI-4. */
  Is_initialized: (): boolean => worldModel !== 'before-init',
  Is_finalized: (): boolean => worldModel === 'finalized',
  /** The thread level MPI.Init_thread granted (MPI.THREAD_SINGLE after MPI.Init). */
  Query_thread: (): number => threadLevel,
  /** Whether this is the thread that may call MPI (false in a worker_threads Worker). */
  Is_thread_main: isThreadMain,
  Session,
  Get_version,
  Get_library_version,
  ...errorCalls,
  Flush_buffer,
  Iflush_buffer,
  Aint_add,
  Aint_diff,
  Pcontrol,
  Get_hw_resource_info: unsupportedCall('MPI.Get_hw_resource_info', UNSUPPORTED.hwInfo),
  Register_datarep: unsupportedCall('MPI.Register_datarep', UNSUPPORTED.io),
  File,
  FILE_NULL,
  ...fileConstants,
  Grequest,
  ...dynamicProcessCalls,
  Reduce_local: (inbuf: BufSpec, inoutbuf: BufSpec, op: Op = Ops.SUM): void => {
    if (!(op instanceof Op)) throw new MPIException(ErrorClass.ERR_OP, `MPI.Reduce_local: op must be an MPI.Op, got ${describe(op)}`);
    reduceLocal('MPI.Reduce_local', inbuf, inoutbuf, op);
  },
  VERSION,
  SUBVERSION,
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
  BUFFER_AUTOMATIC,
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
  T: tools.T,
} as const;
