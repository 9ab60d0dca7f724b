import { copyBytes } from '../../common/copy.js';
import { walk } from './cursor.js';
import type { Node } from './flatten.js';

/**
 * Pack and unpack between a user buffer laid out by a flattened type and the contiguous packed
 * stream, for any byte range [start, end) of that stream: a pipelined fragment can start
 * anywhere in the type. `origin` is the byte index in `user` of the type's origin (offset 0).
 */
let packSrc: Uint8Array = new Uint8Array(0);
let packDst: Uint8Array = packSrc;
let packOrigin = 0;
let packAt = 0;

function packPiece(mem: number, packed: number, len: number): void {
  copyBytes(packSrc, packOrigin + mem, packDst, packAt + packed, len);
}

function unpackPiece(mem: number, packed: number, len: number): void {
  copyBytes(packSrc, packAt + packed, packDst, packOrigin + mem, len);
}

/** Copies packed bytes [start, end) of `nodes` from `user` into `out` at `outPos`. */
export function packRange(nodes: readonly Node[], user: Uint8Array, origin: number, start: number, end: number,
                          out: Uint8Array, outPos: number): void {
  packSrc = user;
  packDst = out;
  packOrigin = origin;
  packAt = outPos - start;
  try {
    walk(nodes, 0, 0, start, end, packPiece);
  } finally {
    packSrc = packDst = EMPTY;
  }
}

/** Copies packed bytes [start, end) of `nodes` from `input` at `inPos` into `user`. */
export function unpackRange(nodes: readonly Node[], input: Uint8Array, inPos: number, start: number, end: number,
                            user: Uint8Array, origin: number): void {
  packSrc = input;
  packDst = user;
  packOrigin = origin;
  packAt = inPos - start;
  try {
    walk(nodes, 0, 0, start, end, unpackPiece);
  } finally {
    packSrc = packDst = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);
