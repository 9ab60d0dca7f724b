import type { PackedData } from '../../mpid/device.js';
import { memoryAddress } from '../../mpid/memory-address.js';
import type { Datatype } from '../datatype.js';
import { walk } from './cursor.js';
import { userView } from './user-view.js';

/**
 * Direct packing (003b §1): a non-contiguous buffer handed to mpid as its packed stream,
 * without packing it first. The devices pack straight from the user's memory into their own
 * buffers (a short slot, the eager ring, a bounce chunk) and unpack straight out of them,
 * entering the stream at any byte offset through the flattened type's resume; for single copy
 * they take the memory pieces as an iovec list.
 *
 * Objects are immutable and cached per user buffer, so a loop sending the same halo again and
 * again allocates nothing for it.
 *
 * Research ids cited here: see docs/references.md.
 */
export class DirectData implements PackedData {
  readonly length: number;
  readonly pieceBytes: number;

  /** `user`: the memory's view (user-view.ts), `available` its real length in bytes. */
  constructor(readonly user: Uint8Array, readonly available: number, readonly count: number, readonly datatype: Datatype) {
    this.length = count * datatype.size;
    this.pieceBytes = datatype.size / piecesPerInstance(datatype);
  }

  pack(from: number, len: number, dest: Uint8Array, destOff: number): void {
    this.datatype.packTo(this.user, this.count, from, from + len, dest, destOff);
  }

  unpack(src: Uint8Array, srcOff: number, from: number, len: number): void {
    this.datatype.unpackTo(src, srcOff, this.count, from, from + len, this.user);
  }

  iovecs(len: number): Float64Array {
    const base = memoryAddress.addressOf(this.user);
    let n = 0;
    let lastEnd = -1;
    walk(this.datatype.nodesFor(this.count), 0, 0, 0, len, (mem, _packed, pieceLen) => {
      if (mem === lastEnd) {
        // Adjacent in memory (consecutive instances, merged blocks): one piece.
        iov[n - 1] = iov[n - 1]! + pieceLen;
      } else {
        if (n + 2 > iov.length) grow();
        iov[n] = base + mem;
        iov[n + 1] = pieceLen;
        n += 2;
      }
      lastEnd = mem + pieceLen;
    });
    return iov.slice(0, n);
  }
}

/** Growing scratch list the walk fills; the result is copied out (it must outlive the call). */
let iov = new Float64Array(256);
function grow(): void {
  const bigger = new Float64Array(iov.length * 2);
  bigger.set(iov);
  iov = bigger;
}

const pieceCounts = new WeakMap<Datatype, number>();

/** Contiguous memory pieces of one instance of the type (adjacent blocks count once). */
function piecesPerInstance(dt: Datatype): number {
  let pieces = pieceCounts.get(dt);
  if (pieces === undefined) {
    let lastEnd = -1;
    pieces = 0;
    walk(dt.nodesFor(1), 0, 0, 0, dt.size, (mem, _packed, len) => {
      if (mem !== lastEnd) pieces!++;
      lastEnd = mem + len;
    });
    if (pieces === 0) pieces = 1;
    pieceCounts.set(dt, pieces);
  }
  return pieces;
}

const cache = new WeakMap<object, DirectData>();

/**
 * The direct view of `count` instances of `datatype` in the user's `data` (its first
 * `available` bytes), cached per user buffer object.
 */
export function directData(data: ArrayBufferView | ArrayBufferLike, available: number, count: number,
                           datatype: Datatype): DirectData {
  const cached = cache.get(data);
  if (cached !== undefined && cached.count === count && cached.datatype === datatype && cached.available === available) {
    return cached;
  }
  const d = new DirectData(userView(data, available), available, count, datatype);
  cache.set(data, d);
  return d;
}
