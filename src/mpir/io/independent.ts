import fs from 'node:fs';
import type { OpenFile } from './file.js';
import { ioCounts } from './io-counts.js';

/**
 * Independent access: the file runs of an access, each read or written with one positional
 * call (pread/pwrite under Node's fs), so no rank's file position is shared with another's.
 */

/** Writes `len` bytes of data from `pos` at file offset `off`, however many calls it takes. */
export function writeFully(fd: number, data: Uint8Array, pos: number, len: number, off: number): void {
  while (len > 0) {
    const n = fs.writeSync(fd, data, pos, len, off);
    ioCounts.writes++;
    ioCounts.writeBytes += n;
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
    ioCounts.reads++;
    ioCounts.readBytes += n;
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Writes stream bytes [start, start + length) of the view from `data`. */
export function writeBlocks(s: OpenFile, start: number, data: Uint8Array, length: number): void {
  s.view.forEachBlock(start, start + length, (off, pos, len) => writeFully(s.fd, data, pos, len, off));
}

/** ROMIO's ind_rd_buffer_size: the most a sieving read reads at once. */
const SIEVE_BUFFER = 4 * 1024 * 1024;
/** Runs at most this long (average) are sieved; longer ones are read as they are. */
const SIEVE_RUN_MAX = 16 * 1024;
/** Sieving reads at most this many times the bytes asked for (holes included). */
const SIEVE_SPAN_MAX = 8;
let sieve = new Uint8Array(0);

/**
 * Reads stream bytes [start, start + length) of the view into `target`; returns how many were
 * read before the end of the file. Many small runs close together are read by data sieving, as
 * ROMIO reads them: the span that holds them, up to 4 MiB at a time, with one pread, the runs
 * then copied out (a pread costs microseconds through Node's fs; a copy of the holes, less).
 */
export function readBlocks(s: OpenFile, start: number, target: Uint8Array, length: number): number {
  const runs: number[] = [];
  s.view.forEachBlock(start, start + length, (off, pos, len) => { runs.push(off, pos, len); });
  const count = runs.length / 3;
  if (count > 1) {
    const lo = runs[0]!;
    const hi = runs[runs.length - 3]! + runs[runs.length - 1]!;
    if (length / count <= SIEVE_RUN_MAX && hi - lo <= SIEVE_SPAN_MAX * length && sorted(runs)) return sieveRead(s, runs, target);
  }
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

function sorted(runs: readonly number[]): boolean {
  for (let i = 3; i < runs.length; i += 3) if (runs[i]! < runs[i - 3]! + runs[i - 1]!) return false;
  return true;
}

/** Data sieving: runs (off, pos, len, in file order) read in windows of SIEVE_BUFFER bytes. */
function sieveRead(s: OpenFile, runs: readonly number[], target: Uint8Array): number {
  let n = 0;
  let i = 0;
  while (i < runs.length) {
    const lo = runs[i]!;
    // The runs that fit one window (at least one, however long).
    let j = i + 3;
    while (j < runs.length && runs[j]! + runs[j + 2]! - lo <= SIEVE_BUFFER) j += 3;
    const hi = runs[j - 3]! + runs[j - 1]!;
    if (sieve.length < hi - lo) sieve = new Uint8Array(Math.max(hi - lo, SIEVE_BUFFER));
    const got = readFully(s.fd, sieve, 0, hi - lo, lo);
    for (let k = i; k < j; k += 3) {
      const off = runs[k]! - lo;
      const pos = runs[k + 1]!;
      const len = runs[k + 2]!;
      const have = Math.min(len, Math.max(0, got - off));
      target.set(sieve.subarray(off, off + have), pos);
      n = pos + have;
      if (have < len) return n;
    }
    i = j;
  }
  return n;
}
