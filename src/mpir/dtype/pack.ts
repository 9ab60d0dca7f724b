import { Copy, walk } from './cursor.js';
import type { Node } from './flatten.js';

/**
 * Pack and unpack between a user buffer laid out by a flattened type and the contiguous packed
 * stream, for any byte range [start, end) of that stream: a pipelined fragment can start
 * anywhere in the type. `origin` is the byte index in `user` of the type's origin (offset 0).
 */
const packing = new Copy(true);
const unpacking = new Copy(false);

/** Copies packed bytes [start, end) of `nodes` from `user` into `out` at `outPos`. */
export function packRange(nodes: readonly Node[], user: Uint8Array, origin: number, start: number, end: number,
                          out: Uint8Array, outPos: number): void {
  run(packing, nodes, user, origin, start, end, out, outPos - start);
}

/** Copies packed bytes [start, end) of `nodes` from `input` at `inPos` into `user`. */
export function unpackRange(nodes: readonly Node[], input: Uint8Array, inPos: number, start: number, end: number,
                            user: Uint8Array, origin: number): void {
  run(unpacking, nodes, user, origin, start, end, input, inPos - start);
}

function run(c: Copy, nodes: readonly Node[], user: Uint8Array, origin: number, start: number, end: number,
             packed: Uint8Array, at: number): void {
  c.set(user, origin, packed, at);
  try {
    walk(nodes, 0, 0, start, end, c);
  } finally {
    c.clear();
  }
}
