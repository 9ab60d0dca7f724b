import type { Datatype, ElementKind } from '../datatype.js';
import { COMBINER_NAMES } from './combiners.js';
import type { Node } from './flatten.js';

/**
 * What a derived type is made of: the arguments Get_envelope and Get_contents report, its
 * flattened type map (flatten.ts) and its bounds. The constructors (constructors.ts,
 * darray.ts) compute one; the Datatype class wraps it.
 */
export interface Derivation {
  combiner: number;
  ints: number[];
  addrs: number[];
  types: Datatype[];
  flat: Node[];
  size: number;
  lb: number;
  extent: number;
  trueLb: number;
  trueUb: number;
}

/** Running lb/ub and true lb/ub over blocks of `n` instances of a type at byte displacement `d`. */
export class Extent {
  lb = Infinity;
  ub = -Infinity;
  trueLb = Infinity;
  trueUb = -Infinity;

  block(t: Datatype, d: number, n: number): void {
    if (n === 0) return;
    const span = (n - 1) * t.extent;
    this.lb = Math.min(this.lb, d + t.lb + Math.min(0, span));
    this.ub = Math.max(this.ub, d + t.ub + Math.max(0, span));
    if (t.size === 0) return;
    this.trueLb = Math.min(this.trueLb, d + t.trueLb + Math.min(0, span));
    this.trueUb = Math.max(this.trueUb, d + t.trueUb + Math.max(0, span));
  }
}

/**
 * The derivation whose bounds are those of its blocks (`ext`), the extent rounded up to a
 * multiple of `padTo` (struct padding).
 */
export function bounded(combiner: number, ints: number[], addrs: number[], types: Datatype[], flat: Node[], size: number,
                        ext: Extent, padTo = 1): Derivation {
  const lb = ext.lb === Infinity ? 0 : ext.lb;
  let ub = ext.ub === -Infinity ? 0 : ext.ub;
  const rest = (ub - lb) % padTo;
  if (rest !== 0) ub += padTo - rest;
  const trueLb = ext.trueLb === Infinity ? 0 : ext.trueLb;
  const trueUb = ext.trueUb === -Infinity ? 0 : ext.trueUb;
  return { combiner, ints, addrs, types, flat, size, lb, extent: ub - lb, trueLb, trueUb };
}

/** A derived type's name: its combiner and the names of the types it is made of, 'vector(MPI_INT)'. */
export function derivedName(d: Derivation): string {
  return `${COMBINER_NAMES[d.combiner]}(${d.types.map((t) => t.name).join(',')})`;
}

/** The basic kind all blocks share, or 'packed' for a type mixing several. */
export function kindOf(flat: readonly Node[]): ElementKind {
  let kind: ElementKind | null = null;
  let mixed = false;
  const visit = (n: Node): void => {
    if (n.leaf) {
      if (kind === null) kind = n.basic.kind;
      else if (kind !== n.basic.kind) mixed = true;
    } else n.items.forEach(visit);
  };
  flat.forEach(visit);
  return mixed || kind === null ? 'packed' : kind;
}

/** Basic elements in one instance of a type map (Status.Get_elements). */
export function elementsOf(flat: readonly Node[]): number {
  let n = 0;
  for (const node of flat) {
    if (node.leaf) n += (node.len / node.basic.size) * node.basic.elements;
    else {
      let reps = 1;
      for (const l of node.levels) reps *= l.count;
      n += reps * elementsOf(node.items);
    }
  }
  return n;
}
