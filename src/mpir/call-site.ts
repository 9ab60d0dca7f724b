import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where in the user's program an MPI call was made, from a V8 stack trace: the first frame
 * outside tsmpi's own files (dist/bundle for the package's entry points, dist/src when built,
 * src/ when run from sources) and Node's internals. Fatal errors and state reports name it, so a
 * message points at the user's line.
 */
const OWN_ROOT = ownRoot(path.dirname(fileURLToPath(import.meta.url)));

/** This file's tree: dist/bundle (whose chunks sit one level down), or the src above mpir/. */
function ownRoot(here: string): string {
  for (let dir = here; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) === 'bundle' && path.basename(path.dirname(dir)) === 'dist') return dir;
  }
  return path.dirname(here);
}

export interface StackFrame {
  /** The function as V8 names it ('Intracomm.Recv', 'Object.Init', 'async main', ''). */
  readonly fn: string;
  /** 'file:line:column' as a path (file: URLs converted), or what V8 wrote ('native', 'node:fs:10:3'). */
  readonly location: string;
  readonly own: boolean;
}

/** The stack of the caller, deeper than Error.stackTraceLimit's default of 10 frames. */
export function captureStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  try {
    return new Error().stack ?? '';
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export function parseFrames(stack: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const raw of stack.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('at ')) continue;
    const body = line.slice(3);
    let fn = '';
    // 'at async /path/app.mjs:3:1': an anonymous async frame (a module's top-level await).
    let where = body.startsWith('async ') && !body.endsWith(')') ? body.slice(6) : body;
    if (body.endsWith(')')) {
      const open = body.lastIndexOf(' (');
      if (open >= 0) {
        fn = body.slice(0, open);
        where = body.slice(open + 2, -1);
      }
    }
    const location = where.startsWith('file://') ? fileUrlToPathLocation(where) : where;
    frames.push({ fn, location, own: isOwn(location) });
  }
  return frames;
}

/** The user's frame that led into tsmpi: the first frame not in tsmpi's files or Node's internals. */
export function userFrame(frames: readonly StackFrame[]): StackFrame | null {
  return frames.find((f) => !f.own) ?? null;
}

/**
 * The tsmpi function the user called, as the user wrote it: the last tsmpi frame before the
 * user's ('Intracomm.Recv'; 'MPI.Init' for the functions of the MPI object), or null.
 */
export function calledFunction(frames: readonly StackFrame[]): string | null {
  const user = frames.findIndex((f) => !f.own);
  const entry = user > 0 ? frames[user - 1]! : user < 0 ? frames.filter((f) => f.own && !f.location.startsWith('node:')).at(-1) : undefined;
  if (entry === undefined || entry.fn === '') return null;
  return entry.fn.replace(/^async /, '').replace(/^Object\./, 'MPI.').replace(/^new /, 'new ');
}

/** ' at <file:line:col>' of the user's frame in the current stack, or '' when there is none. */
export function userCallSiteSuffix(stack = captureStack()): string {
  const f = userFrame(parseFrames(stack));
  return f === null ? '' : ` at ${f.location}`;
}

function isOwn(location: string): boolean {
  return location.startsWith(OWN_ROOT + path.sep) || location.startsWith('node:') || location.startsWith('internal/') ||
    location === 'native' || location === '<anonymous>';
}

function fileUrlToPathLocation(where: string): string {
  const m = /^(.*?)(:\d+:\d+)?$/.exec(where)!;
  try {
    return fileURLToPath(m[1]!) + (m[2] ?? '');
  } catch {
    return where;
  }
}
