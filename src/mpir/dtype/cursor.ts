import type { Leaf, Node, Rep } from './flatten.js';

/**
 * Walks the packed stream of a flattened type from any byte offset (003b §1.4, "resume"):
 * finding the position costs one comparison per list entry and a few integer operations per
 * stack level, independent of repetition counts. For each contiguous piece, `visit` gets its
 * memory offset (relative to the buffer origin), its packed offset, its length, and its basic
 * block (for typed access). Pieces of a block split at `start` or `end` come out partial.
 */
export type Visit = (mem: number, packed: number, len: number, block: Leaf) => void;

export function walk(nodes: readonly Node[], base: number, packedBase: number, start: number, end: number,
                     visit: Visit): void {
  let pos = 0;
  for (let i = 0; i < nodes.length && pos < end; i++) {
    const n = nodes[i]!;
    const t = n.leaf ? n.len : n.total;
    if (pos + t > start) {
      const s = start > pos ? start - pos : 0;
      const e = end - pos < t ? end - pos : t;
      if (n.leaf) visit(base + n.off + s, packedBase + pos + s, e - s, n);
      else walkRep(n, base, packedBase + pos, s, e, visit);
    }
    pos += t;
  }
}

function walkRep(r: Rep, base: number, packedBase: number, s: number, e: number, visit: Visit): void {
  const unit = r.unit;
  const lv = r.levels;
  const depth = lv.length;
  let k = Math.floor(s / unit);
  let within = s - k * unit;
  let p = s - within;
  const ctr = new Array<number>(depth);
  let mem = base + r.off;
  for (let d = depth - 1; d >= 0; d--) {
    const c = lv[d]!.count;
    const q = k % c;
    ctr[d] = q;
    k = (k - q) / c;
    mem += q * lv[d]!.stride;
  }
  const single = r.items.length === 1 && r.items[0]!.leaf ? r.items[0] as Leaf : null;
  while (p < e) {
    const ie = e - p < unit ? e - p : unit;
    if (single !== null) visit(mem + single.off + within, packedBase + p + within, ie - within, single);
    else walk(r.items, mem, packedBase + p, within, ie, visit);
    within = 0;
    p += unit;
    for (let d = depth - 1; d >= 0; d--) {
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
