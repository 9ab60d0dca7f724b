/**
 * Binomial trees over ranks relative to a root (rel = (rank - root + p) mod p), as MPICH
 * builds them: the parent of rel clears its lowest set bit; its children are rel + m for the
 * powers of two m below that bit; the subtree of rel is the contiguous range rel .. rel+span-1.
 */
export interface TreeNode {
  /** Relative rank of the parent, -1 at the root. */
  parent: number;
  /** Relative ranks of the children, largest subtree first. */
  children: number[];
  /** Size of the subtree rooted here (this node included). */
  span: number;
}

export function binomialNode(rel: number, p: number): TreeNode {
  let mask = 1;
  let parent = -1;
  while (mask < p) {
    if ((rel & mask) !== 0) {
      parent = rel - mask;
      break;
    }
    mask <<= 1;
  }
  const span = Math.min(mask, p - rel);
  const children: number[] = [];
  for (let m = mask >> 1; m > 0; m >>= 1) if (rel + m < p) children.push(rel + m);
  return { parent, children, span };
}

/** Span of the subtree of relative rank `rel`. */
export function spanOf(rel: number, p: number): number {
  return binomialNode(rel, p).span;
}

export const toRel = (rank: number, root: number, p: number): number => (rank - root + p) % p;
export const toAbs = (rel: number, root: number, p: number): number => (rel + root) % p;

export function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}
