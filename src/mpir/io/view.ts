import { Datatype, Datatypes } from '../datatype.js';
import { walk } from '../dtype/cursor.js';
import { ErrorClass } from '../error-classes.js';
import { describe } from '../validate.js';

/** The data representations tsmpi reads and writes (MPI.Register_datarep is not implemented). */
export const DATAREPS = ['native', 'internal', 'external32'] as const;
export type Datarep = (typeof DATAREPS)[number];

/** A problem with an argument: the error class and the message (the caller raises it through the file's handler). */
export interface Problem {
  readonly errorClass: number;
  readonly message: string;
}

/** A run of file bytes: `len` bytes at file offset `off`, holding stream bytes from `pos` (relative to the access). */
export type BlockVisit = (off: number, pos: number, len: number) => void;

/**
 * A file view (MPI-4 §14.3): the file seen from `disp` on as the filetype tiled without end;
 * the bytes its blocks cover, in type-map order, form the view's data stream, read and written
 * in etypes. Offsets and file pointers count etypes of that stream. The stream byte s lies in
 * tile k = floor(s / filetype.size) at position s - k * filetype.size of one tile's data, so a
 * walk of the flattened filetype gives its file byte; runs that touch are joined, so a
 * contiguous view maps an access to one block whatever its size.
 */
export class FileView {
  constructor(readonly disp: number, readonly etype: Datatype, readonly filetype: Datatype, readonly datarep: Datarep) {}

  static initial(): FileView {
    return new FileView(0, Datatypes.BYTE, Datatypes.BYTE, 'native');
  }

  /** Calls visit for the file runs of stream bytes [start, end), in stream order, adjacent runs joined. */
  forEachBlock(start: number, end: number, visit: BlockVisit): void {
    if (end <= start) return;
    const ft = this.filetype;
    const size = ft.size;
    const extent = ft.extent;
    let runOff = -1;
    let runPos = 0;
    let runLen = 0;
    const add = (off: number, pos: number, len: number): void => {
      if (len === 0) return;
      if (runLen > 0 && runOff + runLen === off && runPos + runLen === pos) {
        runLen += len;
        return;
      }
      if (runLen > 0) visit(runOff, runPos, runLen);
      runOff = off;
      runPos = pos;
      runLen = len;
    };
    const single = ft.flat.length === 1 && ft.flat[0]!.leaf ? ft.flat[0]! : null;
    for (let k = Math.floor(start / size); k * size < end; k++) {
      const tileStart = k * size;
      const s = Math.max(start, tileStart) - tileStart;
      const e = Math.min(end, tileStart + size) - tileStart;
      const base = this.disp + k * extent;
      if (single !== null) add(base + single.off + s, tileStart + s - start, e - s);
      else walk(ft.flat, base, tileStart - start, s, e, (mem: number, packed: number, len: number) => add(mem, packed, len));
    }
    if (runLen > 0) visit(runOff, runPos, runLen);
  }

  /** The file byte of stream byte `s`. */
  byteOf(s: number): number {
    let at = -1;
    this.forEachBlock(s, s + 1, (off) => { if (at < 0) at = off; });
    return at;
  }

  /** The file bytes stream bytes [start, end) span: [first, last + 1), or null for an empty access. */
  extentOf(start: number, end: number): [number, number] | null {
    let lo = Infinity;
    let hi = -Infinity;
    this.forEachBlock(start, end, (off, _pos, len) => {
      if (off < lo) lo = off;
      if (off + len > hi) hi = off + len;
    });
    return lo === Infinity ? null : [lo, hi];
  }

  /**
   * The stream bytes before file byte `fileEnd` (the file's size), counting from stream byte
   * `start` up to `end`: how much of an access a read finds before the end of the file.
   */
  bytesBefore(fileEnd: number, start: number, end: number): number {
    let n = 0;
    let stopped = false;
    this.forEachBlock(start, end, (off, pos, len) => {
      if (stopped) return;
      if (off + len <= fileEnd) n = pos + len;
      else {
        if (off < fileEnd) n = pos + (fileEnd - off);
        stopped = true;
      }
    });
    return n;
  }
}

/** What is wrong with a Set_view's arguments, or null. */
export function viewProblem(disp: unknown, etype: unknown, filetype: unknown, datarep: unknown): Problem | null {
  if (typeof disp !== 'number' || !Number.isSafeInteger(disp) || disp < 0) {
    return { errorClass: ErrorClass.ERR_ARG, message: `disp must be a non-negative integer (bytes), got ${describe(disp)}` };
  }
  for (const [name, t] of [['etype', etype], ['filetype', filetype]] as const) {
    if (!(t instanceof Datatype) || t === Datatypes.DATATYPE_NULL) {
      return { errorClass: ErrorClass.ERR_TYPE, message: `${name} must be an MPI.Datatype, got ${describe(t)}` };
    }
    if (t.isFreed) return { errorClass: ErrorClass.ERR_TYPE, message: `${name} ${t.name} has been freed` };
    if (!t.isCommitted) return { errorClass: ErrorClass.ERR_TYPE, message: `${name} ${t.name} is not committed; commit it first` };
    if (t.size === 0) return { errorClass: ErrorClass.ERR_TYPE, message: `${name} ${t.name} has size 0` };
  }
  const e = etype as Datatype;
  const f = filetype as Datatype;
  if (f.size % e.size !== 0) {
    return { errorClass: ErrorClass.ERR_TYPE, message: `filetype ${f.name} (${f.size} bytes) is not built of etype ${e.name} (${e.size} bytes)` };
  }
  if (f.trueLb < 0 || f.extent <= 0) {
    return { errorClass: ErrorClass.ERR_TYPE, message: `filetype ${f.name} must have non-negative displacements and a positive extent` };
  }
  if (!monotonic(f)) {
    return { errorClass: ErrorClass.ERR_TYPE, message: `filetype ${f.name} must have monotonically non-decreasing displacements (MPI-4 §14.1.1)` };
  }
  if (typeof datarep !== 'string') return { errorClass: ErrorClass.ERR_ARG, message: `datarep must be a string, got ${describe(datarep)}` };
  if (!(DATAREPS as readonly string[]).includes(datarep)) {
    return { errorClass: ErrorClass.ERR_UNSUPPORTED_DATAREP, message: `datarep '${datarep}' is not one of ${DATAREPS.join(', ')}` };
  }
  return null;
}

/** Whether the blocks of one tile of `t` come in non-decreasing file order. */
function monotonic(t: Datatype): boolean {
  let last = -Infinity;
  let ok = true;
  new FileView(0, Datatypes.BYTE, t, 'native').forEachBlock(0, t.size, (off, _pos, len) => {
    if (off < last) ok = false;
    last = off + len;
  });
  return ok;
}
