import fs from 'node:fs';
import type { OpenFile } from './file.js';

/**
 * Independent access: the file runs of an access, each read or written with one positional
 * call (pread/pwrite under Node's fs), so no rank's file position is shared with another's.
 */

/** Writes `len` bytes of data from `pos` at file offset `off`, however many calls it takes. */
export function writeFully(fd: number, data: Uint8Array, pos: number, len: number, off: number): void {
  while (len > 0) {
    const n = fs.writeSync(fd, data, pos, len, off);
    pos += n;
    off += n;
    len -= n;
  }
}

/** Reads up to `len` bytes at `off` into target at `pos`; returns the bytes read (fewer at the end of the file). */
export function readFully(fd: number, target: Uint8Array, pos: number, len: number, off: number): number {
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, target, pos + got, len - got, off + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Writes stream bytes [start, start + length) of the view from `data`. */
export function writeBlocks(s: OpenFile, start: number, data: Uint8Array, length: number): void {
  s.view.forEachBlock(start, start + length, (off, pos, len) => writeFully(s.fd, data, pos, len, off));
}

/** Reads stream bytes [start, start + length) of the view into `target`; returns how many were read before the end of the file. */
export function readBlocks(s: OpenFile, start: number, target: Uint8Array, length: number): number {
  let n = 0;
  let stopped = false;
  s.view.forEachBlock(start, start + length, (off, pos, len) => {
    if (stopped) return;
    const got = readFully(s.fd, target, pos, len, off);
    n = pos + got;
    if (got < len) stopped = true;
  });
  return n;
}
