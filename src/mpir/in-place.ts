/**
 * MPI.IN_PLACE, in a module of its own: the public declarations (types.ts) name its type
 * without reaching the collectives engine.
 */

/**
 * The type of MPI.IN_PLACE, its only instance. A class with a private member, so that only
 * MPI.IN_PLACE has this type (any object would match a plain `{ toString }` shape).
 */
export class InPlace {
  private readonly label = 'MPI.IN_PLACE';
  private constructor() {}
  toString(): string { return this.label; }
  /** @internal */
  static readonly instance: InPlace = new InPlace();
}

/** MPI.IN_PLACE: "the data is already where the result goes" (where MPI allows it). */
export const IN_PLACE: InPlace = Object.freeze(InPlace.instance) as InPlace;
