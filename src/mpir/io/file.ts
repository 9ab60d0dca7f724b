import fs from 'node:fs';
import { Intracomm } from '../comm.js';
import { COMM_TYPE_SHARED } from '../constants.js';
import { Datatype, Datatypes } from '../datatype.js';
import { Errhandler, type ErrhandlerFunction } from '../errhandler.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import type { Group } from '../group.js';
import { checkInfo, Info, INFO_NULL } from '../info.js';
import { Ops } from '../op.js';
import { runtime } from '../runtime.js';
import type { InfoArg } from '../types.js';
import { describe } from '../validate.js';
import {
  DISPLACEMENT_CURRENT, MODE_ALL, MODE_APPEND, MODE_CREATE, MODE_DELETE_ON_CLOSE, MODE_EXCL, MODE_RDONLY,
  MODE_RDWR, MODE_SEQUENTIAL, MODE_WRONLY, SEEK_CUR, SEEK_END, SEEK_SET,
} from './constants.js';
import { CollectiveQueue } from './collective-request.js';
import { FileWindow } from './file-window.js';
import { chooseAggregators, readHints, type Hints } from './hints.js';
import { ioClassOf, ioMessage } from './os-errors.js';
import { FileView, viewProblem } from './view.js';

/** Everything an open file holds (File.state; null once closed). Not part of the API: src/mpir/io only. */
export interface OpenFile {
  /** A private duplicate of the communicator the file was opened on: the file's traffic never meets the program's. */
  readonly comm: Intracomm;
  /** Another duplicate, for the collectives of non-blocking collective accesses (collective-request.ts). */
  readonly nbComm: Intracomm;
  readonly collectives: CollectiveQueue;
  readonly rank: number;
  readonly size: number;
  readonly fd: number;
  /** Whether fd reads (a MODE_WRONLY file is opened read-write where the OS allows, for the read-modify-write of collective writes). */
  readonly fdReads: boolean;
  readonly filename: string;
  readonly amode: number;
  hints: Hints;
  /** Ranks of comm that do the file I/O of collective calls. */
  aggregators: number[];
  /** The host index of each rank of comm (ranks sharing memory share a host). */
  readonly hostOf: Int32Array;
  view: FileView;
  /** The individual file pointer, in etypes of the view. */
  position: number;
  atomic: boolean;
  readonly window: FileWindow;
  /** The status of a split collective begun and not yet ended (one at a time per file). */
  split: { readonly call: string; readonly bytes: number } | null;
}

/**
 * MPI.File (MPI-4 chapter 14), mpi4py's names. A file is opened collectively on an intra-
 * communicator; each rank holds its own descriptor of the file (Node's fs, positional reads and
 * writes), so a file on a filesystem every host sees is one file for the whole job. The
 * accesses are in access.ts, the collective two-phase I/O in two-phase.ts. Errors go through
 * the file's handler, MPI.ERRORS_RETURN by default (the handler of MPI.FILE_NULL, which Open
 * and Delete use too).
 */
export class File {
  /** @internal */
  state: OpenFile | null = null;
  /** @internal */
  errhandler: Errhandler = Errhandler.ERRORS_RETURN;

  /** Files come from File.Open (the constructor takes nothing, so a File cannot be made by hand). */
  private constructor() {}

  /** @internal MPI.FILE_NULL. */
  static makeNull(): File {
    return new File();
  }

  /** @internal An open file with the handler new files get. */
  private static made(state: OpenFile, errhandler: Errhandler): File {
    const file = new File();
    file.state = state;
    file.errhandler = errhandler;
    return file;
  }

  /** @internal Raises through this file's handler. */
  fail(call: string, errorClass: number, message: string): never {
    const rank = this.state?.rank ?? worldRank();
    return this.errhandler.raise(this, new MPIException(errorClass, `File.${call}: ${message}`), rank);
  }

  /** @internal The open file, or MPI.ERR_FILE for MPI.FILE_NULL and closed files. */
  live(call: string): OpenFile {
    runtime.requireRunning(`File.${call}`);
    if (this.state === null) return this.fail(call, ErrorClass.ERR_FILE, this === FILE_NULL ? 'MPI.FILE_NULL is no open file' : 'the file has been closed');
    return this.state;
  }

  // ------------------------------------------------------------------ open, close, delete

  /** Collective over `comm`: opens (or with MPI.MODE_CREATE, creates) `filename`. */
  static Open(comm: Intracomm, filename: string, amode: number = MODE_RDONLY, info: InfoArg = INFO_NULL): File {
    const call = 'Open';
    runtime.requireRunning('MPI.File.Open');
    if (!(comm instanceof Intracomm) || comm.Is_inter()) {
      return FILE_NULL.fail(call, ErrorClass.ERR_COMM, `comm must be an intracommunicator, got ${describe(comm)}`);
    }
    if (typeof filename !== 'string' || filename.length === 0) {
      return FILE_NULL.fail(call, ErrorClass.ERR_BAD_FILE, `filename must be a non-empty string, got ${describe(filename)}`);
    }
    const badAmode = amodeProblem(amode);
    if (badAmode !== null) return FILE_NULL.fail(call, ErrorClass.ERR_AMODE, badAmode);
    const badInfo = checkInfo(info);
    if (badInfo !== null) return FILE_NULL.fail(call, ErrorClass.ERR_INFO, badInfo);
    const path = filename.replace(/^(ufs|nfs|lustre|gpfs):/, '');
    const c = comm.Dup();
    c.Set_errhandler(Errhandler.ERRORS_RETURN);
    // Every rank must pass the same amode (MPI.ERR_NOT_SAME otherwise, on every rank).
    const modes = new Int32Array(2 * c.Get_size());
    c.Allgather(Int32Array.of(amode, 0), modes);
    for (let r = 0; r < c.Get_size(); r++) {
      if (modes[2 * r] !== amode) {
        c.Free();
        return FILE_NULL.fail(call, ErrorClass.ERR_NOT_SAME, `amode ${amode} differs from rank ${r}'s ${modes[2 * r]}`);
      }
    }
    // Rank 0 creates the file, then every rank opens it: MODE_EXCL fails once, for everyone.
    const outcome = Int32Array.of(0);
    let message = '';
    let fd = -1;
    let fdReads = false;
    const tryOpen = (create: boolean): void => {
      try {
        [fd, fdReads] = openFd(path, amode, create);
      } catch (e) {
        outcome[0] = ioClassOf(e);
        message = ioMessage(e);
      }
    };
    if (c.Get_rank() === 0) tryOpen(true);
    c.Bcast(outcome, 0);
    if (outcome[0] === 0 && c.Get_rank() !== 0) tryOpen(false);
    const outcomes = new Int32Array(c.Get_size());
    c.Allgather(outcome, outcomes);
    const failed = outcomes.findIndex((x) => x !== 0);
    if (failed >= 0) {
      if (fd >= 0) fs.closeSync(fd);
      c.Free();
      const why = message !== '' ? message : `rank ${failed} could not open it`;
      return FILE_NULL.fail(call, outcomes[failed]!, `cannot open '${filename}': ${why}`);
    }
    const hostOf = hostsOf(c);
    const hints = readHints(info, hostOf);
    const window = new FileWindow(c);
    const state: OpenFile = {
      comm: c, nbComm: c.Dup(), collectives: new CollectiveQueue(), rank: c.Get_rank(), size: c.Get_size(), fd, fdReads, filename, amode, hints,
      aggregators: chooseAggregators(hostOf, hints.cbNodes), hostOf, view: FileView.initial(),
      position: 0, atomic: false, window, split: null,
    };
    const file = File.made(state, FILE_NULL.errhandler);
    if ((amode & MODE_APPEND) !== 0) {
      // MODE_APPEND: both pointers start at the end of the file.
      state.position = fs.fstatSync(fd).size;
      if (state.rank === 0) window.set(state.position);
      c.Barrier();
    }
    return file;
  }

  /** Collective: closes the file (and deletes it if it was opened MPI.MODE_DELETE_ON_CLOSE). */
  Close(): void {
    const s = this.live('Close');
    if (s.split !== null) this.fail('Close', ErrorClass.ERR_OTHER, `${s.split.call} was begun and not ended`);
    s.collectives.drain();
    s.nbComm.Free();
    s.comm.Barrier();
    s.window.free();
    try {
      fs.closeSync(s.fd);
      if ((s.amode & MODE_DELETE_ON_CLOSE) !== 0 && s.rank === 0) fs.rmSync(s.filename.replace(/^(ufs|nfs|lustre|gpfs):/, ''), { force: true });
    } catch (e) {
      this.state = null;
      s.comm.Free();
      this.fail('Close', ioClassOf(e), ioMessage(e));
    }
    s.comm.Barrier();
    s.comm.Free();
    this.state = null;
  }

  /** Deletes `filename` (not collective). MPI.ERR_NO_SUCH_FILE when there is none. */
  static Delete(filename: string, info: InfoArg = INFO_NULL): void {
    runtime.requireRunning('MPI.File.Delete');
    if (typeof filename !== 'string' || filename.length === 0) {
      FILE_NULL.fail('Delete', ErrorClass.ERR_BAD_FILE, `filename must be a non-empty string, got ${describe(filename)}`);
    }
    const badInfo = checkInfo(info);
    if (badInfo !== null) FILE_NULL.fail('Delete', ErrorClass.ERR_INFO, badInfo);
    try {
      fs.unlinkSync(filename.replace(/^(ufs|nfs|lustre|gpfs):/, ''));
    } catch (e) {
      FILE_NULL.fail('Delete', ioClassOf(e), `cannot delete '${filename}': ${ioMessage(e)}`);
    }
  }

  // ------------------------------------------------------------------ size, mode, group, info

  /** Collective: truncates or extends the file to `size` bytes. */
  Set_size(size: number): void {
    const s = this.live('Set_size');
    this.sizeArg('Set_size', size);
    if (s.amode & MODE_SEQUENTIAL) this.fail('Set_size', ErrorClass.ERR_UNSUPPORTED_OPERATION, 'a MODE_SEQUENTIAL file cannot be resized');
    if (s.amode & MODE_RDONLY) this.fail('Set_size', ErrorClass.ERR_READ_ONLY, 'the file was opened MPI.MODE_RDONLY');
    this.sameOnAll(s, 'Set_size', 'size', size);
    this.onRankZero(s, 'Set_size', () => fs.ftruncateSync(s.fd, size));
  }

  /**
   * Collective: makes the file at least `size` bytes (never shorter). The bytes added read as
   * zeros; Node has no posix_fallocate, so the filesystem may place them lazily (a full disk
   * then shows at the write, as MPI.ERR_NO_SPACE).
   */
  Preallocate(size: number): void {
    const s = this.live('Preallocate');
    this.sizeArg('Preallocate', size);
    if (s.amode & MODE_SEQUENTIAL) this.fail('Preallocate', ErrorClass.ERR_UNSUPPORTED_OPERATION, 'a MODE_SEQUENTIAL file cannot be preallocated');
    if (s.amode & MODE_RDONLY) this.fail('Preallocate', ErrorClass.ERR_READ_ONLY, 'the file was opened MPI.MODE_RDONLY');
    this.sameOnAll(s, 'Preallocate', 'size', size);
    this.onRankZero(s, 'Preallocate', () => {
      if (fs.fstatSync(s.fd).size < size) fs.ftruncateSync(s.fd, size);
    });
  }

  /** The file's size in bytes. */
  Get_size(): number {
    const s = this.live('Get_size');
    try {
      return fs.fstatSync(s.fd).size;
    } catch (e) {
      return this.fail('Get_size', ioClassOf(e), ioMessage(e));
    }
  }

  Get_amode(): number {
    return this.live('Get_amode').amode;
  }

  /** A new group of the ranks that opened the file. */
  Get_group(): Group {
    return this.live('Get_group').comm.Get_group();
  }

  /** Collective: sets hints (cb_nodes, cb_buffer_size, romio_cb_read, romio_cb_write; others are kept and ignored). */
  Set_info(info: Info): void {
    const s = this.live('Set_info');
    const bad = checkInfo(info);
    if (bad !== null) this.fail('Set_info', ErrorClass.ERR_INFO, bad);
    s.hints = readHints(info, s.hostOf, s.hints);
    s.aggregators = chooseAggregators(s.hostOf, s.hints.cbNodes);
  }

  /** The hints in effect: those set, and the values tsmpi uses for the collective buffering ones. */
  Get_info(): Info {
    const s = this.live('Get_info');
    const info = Info.Create();
    for (const [k, v] of s.hints.others) info.Set(k, v);
    info.Set('cb_buffer_size', String(s.hints.cbBufferSize));
    info.Set('cb_nodes', String(s.aggregators.length));
    info.Set('romio_cb_read', s.hints.cbRead);
    info.Set('romio_cb_write', s.hints.cbWrite);
    return info;
  }

  // mpi4py's properties.
  get amode(): number { return this.Get_amode(); }
  get atomicity(): boolean { return this.Get_atomicity(); }
  get group(): Group { return this.Get_group(); }
  get group_size(): number { return this.live('group_size').size; }
  get group_rank(): number { return this.live('group_rank').rank; }
  get info(): Info { return this.Get_info(); }
  get size(): number { return this.Get_size(); }

  // ------------------------------------------------------------------ views and pointers

  /** Collective: the view from `disp` (bytes), in etypes, through filetype; resets both file pointers to 0. */
  Set_view(disp = 0, etype: Datatype | null = null, filetype: Datatype | null = null, datarep = 'native', info: InfoArg = INFO_NULL): void {
    const s = this.live('Set_view');
    let d = disp;
    if (d === DISPLACEMENT_CURRENT) {
      if ((s.amode & MODE_SEQUENTIAL) === 0) this.fail('Set_view', ErrorClass.ERR_ARG, 'disp MPI.DISPLACEMENT_CURRENT is for MODE_SEQUENTIAL files only');
      d = s.view.byteOf(s.window.fetchAdd(0) * s.view.etype.size);
    }
    const et = etype ?? Datatypes.BYTE;
    const ft = filetype ?? et;
    const problem = viewProblem(d, et, ft, datarep);
    if (problem !== null) this.fail('Set_view', problem.errorClass, problem.message);
    const badInfo = checkInfo(info);
    if (badInfo !== null) this.fail('Set_view', ErrorClass.ERR_INFO, badInfo);
    if (info instanceof Info && info !== INFO_NULL) s.hints = readHints(info, s.hostOf, s.hints);
    if (s.split !== null) this.fail('Set_view', ErrorClass.ERR_OTHER, `${s.split.call} was begun and not ended`);
    s.comm.Barrier();
    s.view = new FileView(d, et, ft, datarep as FileView['datarep']);
    s.position = 0;
    if (s.rank === 0) s.window.set(0);
    s.comm.Barrier();
  }

  /** `[disp, etype, filetype, datarep]` of the view. */
  Get_view(): [number, Datatype, Datatype, string] {
    const v = this.live('Get_view').view;
    return [v.disp, v.etype, v.filetype, v.datarep];
  }

  /** The extent of `datatype` in the file (its data representation keeps every size, so its extent). */
  Get_type_extent(datatype: Datatype): number {
    this.live('Get_type_extent');
    if (!(datatype instanceof Datatype)) this.fail('Get_type_extent', ErrorClass.ERR_TYPE, `datatype must be an MPI.Datatype, got ${describe(datatype)}`);
    return datatype.extent;
  }

  /** Moves the individual file pointer: `offset` etypes from the start, the pointer, or the end of the file's data. */
  Seek(offset: number, whence: number = SEEK_SET): void {
    const s = this.live('Seek');
    if (s.amode & MODE_SEQUENTIAL) this.fail('Seek', ErrorClass.ERR_UNSUPPORTED_OPERATION, 'a MODE_SEQUENTIAL file has no individual file pointer');
    s.position = this.seekTarget(s, 'Seek', offset, whence, s.position);
  }

  /** The individual file pointer, in etypes. */
  Get_position(): number {
    return this.live('Get_position').position;
  }

  /** The absolute byte position in the file of view offset `offset` (etypes). */
  Get_byte_offset(offset: number): number {
    const s = this.live('Get_byte_offset');
    this.offsetArg('Get_byte_offset', offset);
    return s.view.byteOf(offset * s.view.etype.size);
  }

  /** Collective: moves the shared file pointer (every rank passes the same offset and whence). */
  Seek_shared(offset: number, whence: number = SEEK_SET): void {
    const s = this.live('Seek_shared');
    s.comm.Barrier();
    const target = this.seekTarget(s, 'Seek_shared', offset, whence, s.window.fetchAdd(0));
    this.sameOnAll(s, 'Seek_shared', 'offset', target);
    if (s.rank === 0) s.window.set(target);
    s.comm.Barrier();
  }

  /** The shared file pointer, in etypes. */
  Get_position_shared(): number {
    return this.live('Get_position_shared').window.fetchAdd(0);
  }

  // ------------------------------------------------------------------ consistency

  /** Collective: atomic mode (true) makes each access seen whole by overlapping ones of other ranks. */
  Set_atomicity(flag: boolean): void {
    const s = this.live('Set_atomicity');
    if (typeof flag !== 'boolean') this.fail('Set_atomicity', ErrorClass.ERR_ARG, `flag must be a boolean, got ${describe(flag)}`);
    this.sameOnAll(s, 'Set_atomicity', 'flag', flag ? 1 : 0);
    s.atomic = flag;
  }

  Get_atomicity(): boolean {
    return this.live('Get_atomicity').atomic;
  }

  /** Collective: writes this rank's data through to the storage device; after it, every rank reads what any wrote. */
  Sync(): void {
    const s = this.live('Sync');
    try {
      fs.fsyncSync(s.fd);
    } catch (e) {
      this.fail('Sync', ioClassOf(e), ioMessage(e));
    }
    s.comm.Barrier();
  }

  // ------------------------------------------------------------------ error handlers

  Set_errhandler(handler: Errhandler): void {
    const refusal = Errhandler.refusal(handler, 'file');
    if (refusal !== null) this.fail('Set_errhandler', ErrorClass.ERR_ARG, refusal);
    if (this !== FILE_NULL) this.live('Set_errhandler');
    this.errhandler = handler;
  }

  Get_errhandler(): Errhandler {
    return this.errhandler;
  }

  /** Runs the file's handler for `errorcode` (ERRORS_RETURN returns; a user handler is called). */
  Call_errhandler(errorcode: number): void {
    this.errhandler.call(this, 'File.Call_errhandler', errorcode, this.state?.rank ?? worldRank());
  }

  /** A handler for files that calls `fn(file, errorcode)`. */
  static Create_errhandler(fn: ErrhandlerFunction<File>): Errhandler {
    return Errhandler.user('file', 'MPI.File.Create_errhandler', fn);
  }

  // ------------------------------------------------------------------ helpers

  /** @internal A non-negative integer offset in etypes, or MPI.ERR_ARG. */
  offsetArg(call: string, offset: unknown): void {
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
      this.fail(call, ErrorClass.ERR_ARG, `offset must be a non-negative integer (etypes), got ${describe(offset)}`);
    }
  }

  private sizeArg(call: string, size: unknown): void {
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      this.fail(call, ErrorClass.ERR_ARG, `size must be a non-negative integer (bytes), got ${describe(size)}`);
    }
  }

  /** @internal Collective check that `value` is the same on every rank: MPI.ERR_NOT_SAME (on all of them) otherwise. */
  sameOnAll(s: OpenFile, call: string, name: string, value: number): void {
    const range = new Float64Array(2);
    s.comm.Allreduce(Float64Array.of(value, -value), range, Ops.MAX);
    if (range[0] !== value || -range[1]! !== value) this.fail(call, ErrorClass.ERR_NOT_SAME, `${name} must be the same on every rank`);
  }

  /** Runs an fs step on rank 0 and raises its error on every rank. */
  private onRankZero(s: OpenFile, call: string, step: () => void): void {
    const outcome = Int32Array.of(0);
    let message = '';
    if (s.rank === 0) {
      try {
        step();
      } catch (e) {
        outcome[0] = ioClassOf(e);
        message = ioMessage(e);
      }
    }
    s.comm.Bcast(outcome, 0);
    if (outcome[0] !== 0) this.fail(call, outcome[0]!, message || 'rank 0 failed');
  }

  private seekTarget(s: OpenFile, call: string, offset: number, whence: number, current: number): number {
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset)) this.fail(call, ErrorClass.ERR_ARG, `offset must be an integer (etypes), got ${describe(offset)}`);
    let base: number;
    if (whence === SEEK_SET) base = 0;
    else if (whence === SEEK_CUR) base = current;
    else if (whence === SEEK_END) base = endInEtypes(s);
    else return this.fail(call, ErrorClass.ERR_ARG, `whence must be MPI.SEEK_SET, MPI.SEEK_CUR or MPI.SEEK_END, got ${describe(whence)}`);
    if (base + offset < 0) this.fail(call, ErrorClass.ERR_ARG, `the new position ${base + offset} is before the start of the view`);
    return base + offset;
  }
}

/** MPI.FILE_NULL: its handler is the one new files get, and Open and Delete raise through. */
export const FILE_NULL = File.makeNull();

/** This process's rank in the world, for error messages of calls without an open file. */
function worldRank(): number {
  return runtime.phase === 'running' ? runtime.requireRunning('File').rank : 0;
}

/** What is wrong with an amode, or null. */
function amodeProblem(amode: unknown): string | null {
  if (typeof amode !== 'number' || !Number.isInteger(amode) || amode < 0 || (amode & ~MODE_ALL) !== 0) {
    return `amode must be MPI.MODE_* bits, got ${describe(amode)}`;
  }
  const access = [MODE_RDONLY, MODE_WRONLY, MODE_RDWR].filter((m) => (amode & m) !== 0).length;
  if (access !== 1) return `amode ${amode} must have exactly one of MPI.MODE_RDONLY, MPI.MODE_WRONLY and MPI.MODE_RDWR`;
  if ((amode & MODE_RDONLY) !== 0 && (amode & (MODE_CREATE | MODE_EXCL)) !== 0) {
    return `amode ${amode}: MPI.MODE_RDONLY cannot go with MPI.MODE_CREATE or MPI.MODE_EXCL`;
  }
  if ((amode & MODE_RDWR) !== 0 && (amode & MODE_SEQUENTIAL) !== 0) return `amode ${amode}: MPI.MODE_SEQUENTIAL cannot go with MPI.MODE_RDWR`;
  return null;
}

/** Opens the file descriptor: [fd, whether it reads]. `create` applies MODE_CREATE and MODE_EXCL (rank 0 only). */
function openFd(path: string, amode: number, create: boolean): [number, boolean] {
  const c = fs.constants;
  let extra = 0;
  if (create && (amode & MODE_CREATE) !== 0) extra |= c.O_CREAT;
  if (create && (amode & MODE_EXCL) !== 0) extra |= c.O_EXCL;
  if ((amode & MODE_RDONLY) !== 0) return [fs.openSync(path, c.O_RDONLY | extra), true];
  if ((amode & MODE_RDWR) !== 0) return [fs.openSync(path, c.O_RDWR | extra, 0o644), true];
  try {
    return [fs.openSync(path, c.O_RDWR | extra, 0o644), true];
  } catch (e) {
    if (ioClassOf(e) !== ErrorClass.ERR_ACCESS) throw e;
    return [fs.openSync(path, c.O_WRONLY | extra, 0o644), false];
  }
}

/** The host index of each rank of `comm` (by the lowest rank of its shared-memory group). */
function hostsOf(comm: Intracomm): Int32Array {
  const node = comm.Split_type(COMM_TYPE_SHARED);
  const leader = Int32Array.of(node.Get_rank() === 0 ? comm.Get_rank() : 0);
  node.Bcast(leader, 0);
  node.Free();
  const leaders = new Int32Array(comm.Get_size());
  comm.Allgather(leader, leaders);
  const index = new Map<number, number>();
  return leaders.map((l) => {
    if (!index.has(l)) index.set(l, index.size);
    return index.get(l)!;
  });
}

/** The end of the file in etypes of the view: the first etype at or after the file's last byte. */
function endInEtypes(s: OpenFile): number {
  const fileEnd = fs.fstatSync(s.fd).size;
  const v = s.view;
  const ft = v.filetype;
  if (fileEnd <= v.disp) return 0;
  let k = Math.max(0, Math.floor((fileEnd - v.disp - ft.trueUb) / ft.extent) + 1);
  let bytes = k * ft.size;
  while (v.disp + k * ft.extent + ft.trueLb < fileEnd) {
    bytes = k * ft.size + v.bytesBefore(fileEnd, k * ft.size, (k + 1) * ft.size);
    k++;
  }
  return Math.ceil(bytes / v.etype.size);
}
