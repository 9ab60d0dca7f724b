import type { Datatype } from '../datatype.js';

/**
 * The flattened form of a datatype (research 003b §1.3, the "stack list"), kept in type-map
 * order so that the packed stream has the type signature MPI requires (003b §1.6: the strict
 * variant; blocks are not reordered by size).
 *
 * A Leaf is one contiguous basic block: `len` bytes of the predefined type `basic` at `off`.
 * A Rep is a stack: its `items` (one instance, `unit` packed bytes) repeated over `levels`
 * (outermost first, each a count and a byte stride), the first instance at `off`. A Rep whose
 * items are one Leaf is exactly one entry of the 003b stack list (block size, first offset,
 * total bytes, stack of (count, extent) levels). Redundant levels are merged when built:
 * count-1 levels vanish, a level whose stride equals the block below it folds into the block,
 * nested levels that tile each other become one, adjacent blocks of one basic type join.
 * Memory is proportional to the distinct blocks of one instance, never to repetition counts.
 *
 * Research ids cited here: see docs/references.md.
 */
export interface Leaf {
  readonly leaf: true;
  readonly off: number;
  readonly len: number;
  readonly basic: Datatype;
}

export interface Level {
  readonly count: number;
  readonly stride: number;
}

export interface Rep {
  readonly leaf: false;
  readonly off: number;
  readonly levels: readonly Level[];
  readonly items: readonly Node[];
  /** Packed bytes of one instance of items. */
  readonly unit: number;
  /** Packed bytes of the whole Rep (unit times the product of the counts). */
  readonly total: number;
}

export type Node = Leaf | Rep;

export function totalOf(n: Node): number {
  return n.leaf ? n.len : n.total;
}

export function leaf(off: number, len: number, basic: Datatype): Leaf {
  return { leaf: true, off, len, basic };
}

function shift(n: Node, by: number): Node {
  if (by === 0) return n;
  return n.leaf ? leaf(n.off + by, n.len, n.basic) : { ...n, off: n.off + by };
}

/** Concatenates node lists in order, joining adjacent contiguous blocks of one basic type. */
export function seq(parts: readonly (readonly Node[])[]): Node[] {
  const out: Node[] = [];
  for (const part of parts) {
    for (const n of part) {
      if (totalOf(n) === 0) continue;
      const prev = out.length > 0 ? out[out.length - 1]! : null;
      if (prev !== null && prev.leaf && n.leaf && prev.basic === n.basic && prev.off + prev.len === n.off) {
        out[out.length - 1] = leaf(prev.off, prev.len + n.len, prev.basic);
      } else out.push(n);
    }
  }
  return out;
}

/** `items` repeated over `levels` starting at `off`, with redundant levels merged away. */
export function repeat(off: number, levels: readonly Level[], items: readonly Node[]): Node[] {
  let lv: Level[] = [];
  for (const l of levels) {
    if (l.count === 0) return [];
    if (l.count !== 1) lv.push(l);
  }
  let its: readonly Node[] = items.filter((n) => totalOf(n) > 0);
  if (its.length === 0) return [];
  for (;;) {
    if (its.length === 1 && !its[0]!.leaf) {
      // A stack directly inside a stack: one deeper stack.
      const inner = its[0] as Rep;
      lv = lv.concat(inner.levels);
      off += inner.off;
      its = inner.items;
      continue;
    }
    let merged = false;
    for (let d = 0; d + 1 < lv.length; d++) {
      const a = lv[d]!;
      const b = lv[d + 1]!;
      if (a.stride === b.count * b.stride) {
        lv.splice(d, 2, { count: a.count * b.count, stride: b.stride });
        merged = true;
        break;
      }
    }
    if (merged) continue;
    const only = its.length === 1 ? its[0]! : null;
    if (only !== null && only.leaf && lv.length > 0 && lv[lv.length - 1]!.stride === only.len) {
      // Repetitions of a block that touch each other: one longer block.
      const c = lv.pop()!.count;
      its = [leaf(only.off, only.len * c, only.basic)];
      continue;
    }
    break;
  }
  if (lv.length === 0) return seq([its.map((n) => shift(n, off))]);
  let unit = 0;
  for (const n of its) unit += totalOf(n);
  let total = unit;
  for (const l of lv) total *= l.count;
  return [{ leaf: false, off, levels: lv, items: its, unit, total }];
}

/** Number of basic blocks (leaves) and deepest stack, for tests and diagnostics. */
export function describeFlat(nodes: readonly Node[]): string {
  return nodes.map((n) => n.leaf
    ? `${n.basic.name}:${n.len}@${n.off}`
    : `[${n.levels.map((l) => `${l.count}x${l.stride}`).join(',')}]@${n.off}{${describeFlat(n.items)}}`).join(' ');
}
