import { copyBytes } from '../../common/copy.js';
import { packKernels } from '../../mpid/pack-kernels.js';
import type { Leaf, Node, Rep } from './flatten.js';
import { isWide } from './user-view.js';

/**
 * Walks the packed stream of a flattened type from any byte offset (003b §1.4, "resume"):
 * finding the position costs one comparison per list entry and a few integer operations per
 * stack level, independent of repetition counts. For each contiguous piece, `visit` gets its
 * memory offset (relative to the buffer origin), its packed offset, its length, and its basic
 * block (for typed access). Pieces of a block split at `start` or `end` come out partial.
 *
 * Research ids cited here: see docs/references.md.
 */
export type Visit = (mem: number, packed: number, len: number, block: Leaf) => void;

/**
 * A copy between user memory and the packed stream, done by the walk itself (pack and unpack:
 * no callback per block, which matters for small blocks). One object is reused per direction.
 */
export class Copy {
  user: Uint8Array = EMPTY;
  /** Index in `user` of the type's origin (memory offset 0). */
  origin = 0;
  packed: Uint8Array = EMPTY;
  /** Index in `packed` of byte 0 of the packed stream. */
  at = 0;
  /** 32-bit views of the whole underlying buffers, for small aligned blocks (exact bits, unlike floats). */
  private user32: Int32Array = EMPTY32;
  private packed32: Int32Array = EMPTY32;
  private userBase = 0;
  private packedBase = 0;
  /**
   * The user's memory passes what one Uint8Array reaches (user-view.ts): every piece is then
   * copied natively through its buffer at absolute offsets.
   */
  private wide = false;

  constructor(readonly toPacked: boolean) {}

  set(user: Uint8Array, origin: number, packed: Uint8Array, at: number): void {
    this.user = user;
    this.origin = origin;
    this.packed = packed;
    this.at = at;
    this.wide = isWide(user);
    this.user32 = this.wide ? EMPTY32 : words(user);
    this.packed32 = words(packed);
    this.userBase = user.byteOffset + origin;
    this.packedBase = packed.byteOffset + at;
  }

  clear(): void {
    this.user = this.packed = EMPTY;
    this.user32 = this.packed32 = EMPTY32;
  }

  piece(mem: number, packed: number, len: number): void {
    const ua = this.userBase + mem;
    const pa = this.packedBase + packed;
    if (this.wide) this.blocks(mem, packed, len, 1, 0);
    else if (len <= SMALL && ((ua | pa | len) & 3) === 0) {
      // Small aligned block: word copies (a byte loop costs 4 times as much at 8 bytes). Byte
      // indices reach 2^32, past a signed shift: the word index is a division (exact: aligned).
      const u = ua / 4;
      const q = pa / 4;
      const n = len >> 2;
      if (this.toPacked) for (let i = 0; i < n; i++) this.packed32[q + i] = this.user32[u + i]!;
      else for (let i = 0; i < n; i++) this.user32[u + i] = this.packed32[q + i]!;
    } else if (this.toPacked) copyBytes(this.user, this.origin + mem, this.packed, this.at + packed, len);
    else copyBytes(this.packed, this.at + packed, this.user, this.origin + mem, len);
  }

  /**
   * `count` whole blocks of `len` bytes: block i at memory offset mem + i*stride, packed
   * offset packed + i*len. One native strided copy instead of a JS call per block.
   */
  blocks(mem: number, packed: number, len: number, count: number, stride: number): void {
    const user = this.wide ? this.user.buffer : this.user;
    const at = this.wide ? this.userBase + mem : this.origin + mem;
    if (this.toPacked) packKernels.stridedCopy(user, at, stride, this.packed, this.at + packed, len, len, count);
    else packKernels.stridedCopy(this.packed, this.at + packed, len, user, at, stride, len, count);
  }
}

/**
 * From this many whole blocks in a run, a copy walk hands the run to the native strided copy
 * (one N-API call, ~0.1 µs, against ~40 ns per block from JS).
 */
const STRIDED_MIN_BLOCKS = 4;

/** Up to this many bytes an aligned block is copied by words; above, TypedArray.set is faster. */
const SMALL = 32;
const EMPTY = new Uint8Array(0);
const EMPTY32 = new Int32Array(0);

function words(b: Uint8Array): Int32Array {
  return new Int32Array(b.buffer, 0, Math.floor(b.buffer.byteLength / 4));
}

function copyPiece(c: Copy, mem: number, packed: number, len: number): void {
  c.piece(mem, packed, len);
}

export function walk(nodes: readonly Node[], base: number, packedBase: number, start: number, end: number,
                     visit: Visit | Copy): void {
  let pos = 0;
  for (let i = 0; i < nodes.length && pos < end; i++) {
    const n = nodes[i]!;
    const t = n.leaf ? n.len : n.total;
    if (pos + t > start) {
      const s = start > pos ? start - pos : 0;
      const e = end - pos < t ? end - pos : t;
      if (!n.leaf) walkRep(n, base, packedBase + pos, s, e, visit);
      else if (visit instanceof Copy) copyPiece(visit, base + n.off + s, packedBase + pos + s, e - s);
      else visit(base + n.off + s, packedBase + pos + s, e - s, n);
    }
    pos += t;
  }
}

function walkRep(r: Rep, base: number, packedBase: number, s: number, e: number, visit: Visit | Copy): void {
  const unit = r.unit;
  const lv = r.levels;
  const depth = lv.length;
  let k = Math.floor(s / unit);
  let within = s - k * unit;
  let p = s - within;
  // Resume: the loop counters of instance k, innermost level last.
  const ctr: number[] = [];
  let mem = base + r.off;
  for (let d = depth - 1; d >= 0; d--) {
    const c = lv[d]!.count;
    const q = k % c;
    ctr[d] = q;
    k = (k - q) / c;
    mem += q * lv[d]!.stride;
  }
  const single = r.items.length === 1 && r.items[0]!.leaf ? r.items[0] as Leaf : null;
  const copy = visit instanceof Copy ? visit : null;
  const innerCount = lv[depth - 1]!.count;
  const innerStride = lv[depth - 1]!.stride;
  let ci = ctr[depth - 1]!;
  while (p < e) {
    // A run of whole blocks at the innermost level goes as one strided copy; then the walk
    // stands on the run's last block, as if it had copied that block alone.
    const whole = copy !== null && single !== null && within === 0 ? Math.floor((e - p) / unit) : 0;
    const m = innerCount - ci < whole ? innerCount - ci : whole;
    if (m >= STRIDED_MIN_BLOCKS) {
      copy!.blocks(mem + single!.off, packedBase + p, unit, m, innerStride);
      p += m * unit;
      ci += m - 1;
      mem += (m - 1) * innerStride;
    } else {
      const ie = e - p < unit ? e - p : unit;
      if (single === null) walk(r.items, mem, packedBase + p, within, ie, visit);
      else if (copy !== null) copyPiece(copy, mem + single.off + within, packedBase + p + within, ie - within);
      else (visit as Visit)(mem + single.off + within, packedBase + p + within, ie - within, single);
      within = 0;
      p += unit;
    }
    if (++ci < innerCount) {
      mem += innerStride;
      continue;
    }
    mem -= (innerCount - 1) * innerStride;
    ci = 0;
    for (let d = depth - 2; d >= 0; d--) {
      const l = lv[d]!;
      if (++ctr[d]! < l.count) {
        mem += l.stride;
        break;
      }
      mem -= (l.count - 1) * l.stride;
      ctr[d] = 0;
    }
  }
}

/** Lowest and highest memory offsets touched by nodes (true lb, true ub), or null if empty. */
export function footprint(nodes: readonly Node[]): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  const visitNode = (n: Node, base: number): void => {
    if (n.leaf) {
      lo = Math.min(lo, base + n.off);
      hi = Math.max(hi, base + n.off + n.len);
      return;
    }
    let min = base + n.off;
    let max = base + n.off;
    for (const l of n.levels) {
      const span = (l.count - 1) * l.stride;
      if (span < 0) min += span;
      else max += span;
    }
    for (const it of n.items) {
      visitNode(it, min);
      visitNode(it, max);
    }
  };
  for (const n of nodes) visitNode(n, 0);
  return lo === Infinity ? null : [lo, hi];
}
