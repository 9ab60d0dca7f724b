/**
 * The numbers MPI names for datatypes: combiners (what Get_envelope reports a type was made
 * with), array orders (subarray, darray) and distributions (darray). MPICH's values, so
 * programs ported from C read the same numbers.
 */

/** Combiners (Get_envelope), MPICH's values. */
export const COMBINER_NAMED = 1;
export const COMBINER_DUP = 2;
export const COMBINER_CONTIGUOUS = 3;
export const COMBINER_VECTOR = 4;
export const COMBINER_HVECTOR = 6;
export const COMBINER_INDEXED = 7;
export const COMBINER_HINDEXED = 9;
export const COMBINER_INDEXED_BLOCK = 10;
export const COMBINER_STRUCT = 12;
export const COMBINER_SUBARRAY = 13;
export const COMBINER_DARRAY = 14;
export const COMBINER_RESIZED = 18;
export const COMBINER_HINDEXED_BLOCK = 19;
export const ORDER_C = 56;
export const ORDER_FORTRAN = 57;
export const DISTRIBUTE_BLOCK = 121;
export const DISTRIBUTE_CYCLIC = 122;
export const DISTRIBUTE_NONE = 123;
/** Explicitly typed: see mpir/constants.ts on negative literals in the MPI object's declaration. */
export const DISTRIBUTE_DFLT_DARG: -49767 = -49767;

export const DatatypeConstants = {
  COMBINER_NAMED, COMBINER_DUP, COMBINER_CONTIGUOUS, COMBINER_VECTOR, COMBINER_HVECTOR, COMBINER_INDEXED,
  COMBINER_HINDEXED, COMBINER_INDEXED_BLOCK, COMBINER_HINDEXED_BLOCK, COMBINER_STRUCT, COMBINER_SUBARRAY,
  COMBINER_DARRAY, COMBINER_RESIZED, ORDER_C, ORDER_FORTRAN, DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC,
  DISTRIBUTE_NONE, DISTRIBUTE_DFLT_DARG,
} as const;

/** Combiner names, for the names of derived types ('vector(MPI_INT)'). */
export const COMBINER_NAMES: Record<number, string> = {
  [COMBINER_DUP]: 'dup', [COMBINER_CONTIGUOUS]: 'contiguous', [COMBINER_VECTOR]: 'vector',
  [COMBINER_HVECTOR]: 'hvector', [COMBINER_INDEXED]: 'indexed', [COMBINER_HINDEXED]: 'hindexed',
  [COMBINER_INDEXED_BLOCK]: 'indexed_block', [COMBINER_HINDEXED_BLOCK]: 'hindexed_block',
  [COMBINER_STRUCT]: 'struct', [COMBINER_SUBARRAY]: 'subarray', [COMBINER_DARRAY]: 'darray',
  [COMBINER_RESIZED]: 'resized',
};
