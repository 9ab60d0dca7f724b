import { BufferSpec, decodeBuffer } from '../buffer.js';
import { swapToFromExternal32 } from '../dtype/external32.js';
import { ErrorClass } from '../error-classes.js';
import { Status } from '../status.js';
import type { BufSpec } from '../types.js';
import { describe } from '../validate.js';
import { MODE_RDONLY, MODE_SEQUENTIAL, MODE_WRONLY } from './constants.js';
import { File, type OpenFile } from './file.js';
import { readBlocks, writeBlocks } from './independent.js';
import { FileRequest } from './file-request.js';
import { IOFailure, ioClassOf } from './os-errors.js';
import { CollectiveFileRequest } from './collective-request.js';
import { collectiveRead, collectiveWrite, drive, type Steps } from './two-phase.js';

/** Which file pointer an access uses: an explicit offset, the individual, the shared, or the shared in rank order. */
type Pointer = 'explicit' | 'individual' | 'shared' | 'ordered';

export interface Form {
  readonly write: boolean;
  readonly pointer: Pointer;
  readonly collective: boolean;
}

const spec = new BufferSpec();

/** An access made ready: the bytes as the file holds them, where they go, and what is left to do once they have moved. */
export interface Prepared {
  readonly s: OpenFile;
  readonly data: Uint8Array;
  readonly start: number;
  readonly length: number;
  /** After the I/O: a read's bytes to the caller's memory (converted, unpacked); the individual pointer moved. */
  readonly finish: (n: number) => void;
}

/**
 * An access up to its I/O, every form: checks, the data as the file holds it (packed, in the
 * view's data representation), the offset from the pointer the form uses.
 */
export function prepare(file: File, call: string, form: Form, offset: number | null, buf: unknown, nonblocking = false): Prepared {
  const s = file.live(call);
  if (form.write && (s.amode & MODE_RDONLY) !== 0) file.fail(call, ErrorClass.ERR_READ_ONLY, 'the file was opened MPI.MODE_RDONLY');
  if (!form.write && (s.amode & MODE_WRONLY) !== 0) file.fail(call, ErrorClass.ERR_ACCESS, 'the file was opened MPI.MODE_WRONLY');
  if ((s.amode & MODE_SEQUENTIAL) !== 0 && (form.pointer === 'explicit' || form.pointer === 'individual')) {
    file.fail(call, ErrorClass.ERR_UNSUPPORTED_OPERATION, 'a MODE_SEQUENTIAL file is accessed through the shared file pointer only');
  }
  if (form.pointer === 'explicit') file.offsetArg(call, offset);
  if (!decodeBuffer(buf, spec, form.write ? 'pack' : 'unpack')) file.fail(call, spec.errorClass, `buf: ${spec.error}`);
  const etypeSize = s.view.etype.size;
  const length = spec.bytes.length;
  if (length % etypeSize !== 0) {
    file.fail(call, ErrorClass.ERR_TYPE, `buf holds ${length} bytes, not a whole number of etype ${s.view.etype.name} (${etypeSize} bytes)`);
  }
  const memtype = spec.datatype;
  const count = spec.count;
  const user = spec.needsUnpack;
  const userBytes = spec.bytes;
  const external = s.view.datarep === 'external32';
  // The bytes as the file holds them: the caller's memory itself for native data; external32
  // is converted in a copy (a non-contiguous type's packed bytes already are one).
  let data = userBytes;
  if (external && user === null && !(form.write && !memtype.contiguous)) data = form.write ? data.slice() : new Uint8Array(length);
  if (external && form.write) swapToFromExternal32(memtype.nodesFor(count), data, 0, 0, length);
  const etypes = length / etypeSize;
  const start = startOf(s, form, offset, etypes) * etypeSize;
  // A non-blocking access moves the individual pointer by what it asks for, at once: the next call starts after it.
  if (nonblocking && form.pointer === 'individual') s.position += etypes;
  const finish = (n: number): void => {
    if (!form.write) {
      const whole = n - (n % etypeSize);
      if (external) swapToFromExternal32(memtype.nodesFor(count), data, 0, 0, whole);
      if (user !== null) memtype.unpackTo(data, 0, count, 0, n, user);
      else if (data !== userBytes) userBytes.set(data.subarray(0, n));
    }
    if (!nonblocking && form.pointer === 'individual') s.position += form.write ? etypes : Math.ceil(n / etypeSize);
  };
  return { s, data, start, length, finish };
}

/** An fs or collective I/O failure raised through the file's handler; anything else thrown on. */
export function raiseIOFailure(file: File, call: string, e: unknown): never {
  if (e instanceof IOFailure) return file.fail(call, e.errorClass, e.message);
  if (e instanceof Error && 'code' in e && 'syscall' in e) return file.fail(call, ioClassOf(e), e.message);
  throw e;
}

/** One blocking access, every form. Returns the bytes accessed (for a read: those found before the end of the file). */
function access(file: File, call: string, form: Form, offset: number | null, buf: unknown): number {
  const p = prepare(file, call, form, offset, buf);
  let n: number;
  try {
    n = form.collective ? collectiveAccess(p.s, form, p.start, p.data, p.length) : independentAccess(p.s, form, p.start, p.data, p.length);
  } catch (e) {
    return raiseIOFailure(file, call, e);
  }
  p.finish(n);
  return n;
}

/** The etype offset the access starts at; moves the shared pointer for the shared and ordered forms. */
function startOf(s: OpenFile, form: Form, offset: number | null, etypes: number): number {
  switch (form.pointer) {
    case 'explicit': return offset!;
    case 'individual': return s.position;
    case 'shared': return s.window.fetchAdd(etypes);
    case 'ordered': {
      // Rank order: an exclusive scan of the sizes; rank 0 moves the shared pointer past them all.
      const counts = new Float64Array(s.size);
      s.comm.Allgather(Float64Array.of(etypes), counts);
      let before = 0;
      let total = 0;
      for (let r = 0; r < s.size; r++) {
        if (r < s.rank) before += counts[r]!;
        total += counts[r]!;
      }
      const base = Float64Array.of(s.rank === 0 ? s.window.fetchAdd(total) : 0);
      s.comm.Bcast(base, 0);
      return base[0]! + before;
    }
  }
}

function independentAccess(s: OpenFile, form: Form, start: number, data: Uint8Array, length: number): number {
  const body = (): number => {
    if (form.write) {
      writeBlocks(s, start, data, length);
      return length;
    }
    return readBlocks(s, start, data, length);
  };
  return s.atomic ? s.window.exclusive(body) : body();
}

function collectiveAccess(s: OpenFile, form: Form, start: number, data: Uint8Array, length: number): number {
  const mode = form.write ? s.hints.cbWrite : s.hints.cbRead;
  if (mode !== 'disable') {
    if (form.write) {
      drive(collectiveWrite(s, s.comm, start, data, length));
      return length;
    }
    return drive(collectiveRead(s, s.comm, start, data, length));
  }
  // Collective buffering off: every rank on its own, then together again.
  const n = independentAccess(s, form, start, data, length);
  s.comm.Barrier();
  return n;
}

/** Fills a status argument: the bytes accessed (Get_count and Get_elements divide them by the datatype). */
function fill(file: File, call: string, status: unknown, n: number): void {
  if (status === undefined || status === null) return;
  if (!(status instanceof Status)) file.fail(call, ErrorClass.ERR_ARG, `status must be an MPI.Status, got ${describe(status)}`);
  status.source = -1;
  status.tag = -1;
  status.error = 0;
  status.count = n;
  status.cancelled = false;
}

// ------------------------------------------------------------------ the methods

const W = true;
const R = false;
const forms = {
  Read_at: [R, 'explicit', false], Write_at: [W, 'explicit', false],
  Read_at_all: [R, 'explicit', true], Write_at_all: [W, 'explicit', true],
  Read: [R, 'individual', false], Write: [W, 'individual', false],
  Read_all: [R, 'individual', true], Write_all: [W, 'individual', true],
  Read_shared: [R, 'shared', false], Write_shared: [W, 'shared', false],
  Read_ordered: [R, 'ordered', true], Write_ordered: [W, 'ordered', true],
} as const satisfies Record<string, readonly [boolean, Pointer, boolean]>;

type Name = keyof typeof forms;
const P = File.prototype as unknown as Record<string, unknown>;

for (const [name, [write, pointer, collective]] of Object.entries(forms) as [Name, readonly [boolean, Pointer, boolean]][]) {
  const form: Form = { write, pointer, collective };
  if (pointer === 'explicit') {
    P[name] = function (this: File, offset: number, buf: BufSpec, status?: Status): void {
      fill(this, name, status, access(this, name, form, offset, buf));
    };
    if (!collective) {
      P[`I${name[0]!.toLowerCase()}${name.slice(1)}`] = function (this: File, offset: number, buf: BufSpec): FileRequest {
        return new FileRequest(access(this, `I${name.toLowerCase()}`, form, offset, buf));
      };
    }
  } else {
    P[name] = function (this: File, buf: BufSpec, status?: Status): void {
      fill(this, name, status, access(this, name, form, null, buf));
    };
    if (!collective) {
      P[`I${name[0]!.toLowerCase()}${name.slice(1)}`] = function (this: File, buf: BufSpec): FileRequest {
        return new FileRequest(access(this, `I${name.toLowerCase()}`, form, null, buf));
      };
    }
  }
}

/**
 * Non-blocking collective accesses: the access is prepared in the call (checks, pointers, the
 * data as the file holds it), and its two-phase steps run on the file's second communicator
 * from the progress hook of collective-request.ts; the I-call never waits for another rank.
 */
const nonblocking = ['Read_at_all', 'Write_at_all', 'Read_all', 'Write_all'] as const;
for (const name of nonblocking) {
  const [write, pointer, collective] = forms[name];
  const form: Form = { write, pointer, collective };
  const iname = `I${name[0]!.toLowerCase()}${name.slice(1)}`;
  const start = (file: File, offset: number | null, buf: BufSpec): CollectiveFileRequest => {
    const p = prepare(file, iname, form, offset, buf, true);
    const request = new CollectiveFileRequest(p.finish, (e) => raiseIOFailure(file, iname, e));
    p.s.collectives.start(nonblockingSteps(p, form), request);
    return request;
  };
  P[iname] = pointer === 'explicit'
    ? function (this: File, offset: number, buf: BufSpec): CollectiveFileRequest { return start(this, offset, buf); }
    : function (this: File, buf: BufSpec): CollectiveFileRequest { return start(this, null, buf); };
}

function* nonblockingSteps(p: Prepared, form: Form): Steps<number> {
  const { s, start, data, length } = p;
  const mode = form.write ? s.hints.cbWrite : s.hints.cbRead;
  if (mode !== 'disable') {
    if (!form.write) return yield* collectiveRead(s, s.nbComm, start, data, length);
    yield* collectiveWrite(s, s.nbComm, start, data, length);
    return length;
  }
  const n = independentAccess(s, form, start, data, length);
  yield s.nbComm.Ibarrier();
  return n;
}

/**
 * Split collectives (MPI-4 §14.4.5): the standard lets an implementation do the whole
 * collective in the begin call, which is what happens here; the end call checks the pairing,
 * fills the status and returns.
 */
const splits = ['Read_at_all', 'Write_at_all', 'Read_all', 'Write_all', 'Read_ordered', 'Write_ordered'] as const;
for (const name of splits) {
  const [write, pointer, collective] = forms[name];
  const form: Form = { write, pointer, collective };
  const begin = `${name}_begin`;
  const end = `${name}_end`;
  P[begin] = pointer === 'explicit'
    ? function (this: File, offset: number, buf: BufSpec): void { beginSplit(this, begin, form, offset, buf); }
    : function (this: File, buf: BufSpec): void { beginSplit(this, begin, form, null, buf); };
  P[end] = function (this: File, _buf: BufSpec, status?: Status): void {
    const s = this.live(end);
    if (s.split === null || s.split.call !== begin) {
      this.fail(end, ErrorClass.ERR_OTHER, s.split === null ? `no ${begin} is pending` : `the pending split collective is ${s.split.call}`);
    }
    const bytes = s.split.bytes;
    s.split = null;
    fill(this, end, status, bytes);
  };
}

function beginSplit(file: File, call: string, form: Form, offset: number | null, buf: unknown): void {
  const s = file.live(call);
  if (s.split !== null) file.fail(call, ErrorClass.ERR_OTHER, `${s.split.call} is still pending (one split collective per file at a time)`);
  const bytes = access(file, call, form, offset, buf);
  s.split = { call, bytes };
}


/** The access methods, added to File by this module. */
export interface FileAccess {
  Read_at(offset: number, buf: BufSpec, status?: Status): void;
  Write_at(offset: number, buf: BufSpec, status?: Status): void;
  Read_at_all(offset: number, buf: BufSpec, status?: Status): void;
  Write_at_all(offset: number, buf: BufSpec, status?: Status): void;
  Read(buf: BufSpec, status?: Status): void;
  Write(buf: BufSpec, status?: Status): void;
  Read_all(buf: BufSpec, status?: Status): void;
  Write_all(buf: BufSpec, status?: Status): void;
  Read_shared(buf: BufSpec, status?: Status): void;
  Write_shared(buf: BufSpec, status?: Status): void;
  Read_ordered(buf: BufSpec, status?: Status): void;
  Write_ordered(buf: BufSpec, status?: Status): void;
  Iread_at(offset: number, buf: BufSpec): FileRequest;
  Iwrite_at(offset: number, buf: BufSpec): FileRequest;
  Iread(buf: BufSpec): FileRequest;
  Iwrite(buf: BufSpec): FileRequest;
  Iread_shared(buf: BufSpec): FileRequest;
  Iread_at_all(offset: number, buf: BufSpec): CollectiveFileRequest;
  Iwrite_at_all(offset: number, buf: BufSpec): CollectiveFileRequest;
  Iread_all(buf: BufSpec): CollectiveFileRequest;
  Iwrite_all(buf: BufSpec): CollectiveFileRequest;
  Iwrite_shared(buf: BufSpec): FileRequest;
  Read_at_all_begin(offset: number, buf: BufSpec): void;
  Read_at_all_end(buf: BufSpec, status?: Status): void;
  Write_at_all_begin(offset: number, buf: BufSpec): void;
  Write_at_all_end(buf: BufSpec, status?: Status): void;
  Read_all_begin(buf: BufSpec): void;
  Read_all_end(buf: BufSpec, status?: Status): void;
  Write_all_begin(buf: BufSpec): void;
  Write_all_end(buf: BufSpec, status?: Status): void;
  Read_ordered_begin(buf: BufSpec): void;
  Read_ordered_end(buf: BufSpec, status?: Status): void;
  Write_ordered_begin(buf: BufSpec): void;
  Write_ordered_end(buf: BufSpec, status?: Status): void;
}
