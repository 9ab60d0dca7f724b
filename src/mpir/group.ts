import { describe } from './buffer.js';
import { IDENT, PROC_NULL, SIMILAR, UNDEFINED, UNEQUAL } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { derived } from './lineage.js';

/**
 * MPI.Group, mpi4py-style: an ordered set of processes, kept as the world rank of each member
 * (index = rank in the group). Every group operation is local: it reads the member lists and
 * communicates with no one, so this module needs neither MPI.Init nor a device. A group never
 * changes once made; Free only makes the handle unusable. Errors throw MPI.Exception (a group
 * has no error handler): ERR_GROUP for a bad or freed group, ERR_RANK for a rank outside the
 * group or listed twice, ERR_ARG for a malformed argument.
 */
export class Group {
  /** Member world ranks; null once freed. */
  private members: Int32Array | null;
  /** Our rank in the group, or MPI.UNDEFINED. */
  private readonly ownRank: number;

  private constructor(members: Int32Array,
                      /** World rank of the calling process; -1 where unknown (GROUP_EMPTY). */
                      private readonly self: number,
                      private readonly predefined: boolean) {
    this.members = members;
    const at = self < 0 ? -1 : members.indexOf(self);
    this.ownRank = at < 0 ? UNDEFINED : at;
  }

  /** @internal The group of world ranks `members` as seen by world rank `self` (shares the array). */
  static ofWorldRanks(members: Int32Array, self: number): Group {
    return members.length === 0 ? GROUP_EMPTY : new Group(members, self, false);
  }

  /** @internal The predefined empty group. */
  static empty(): Group {
    return new Group(new Int32Array(0), -1, true);
  }

  /** @internal Member world ranks (do not modify), or null when the group was freed. */
  peek(): Int32Array | null {
    return this.members;
  }

  private live(call: string): Int32Array {
    if (this.members === null) throw groupError(call, 'the group has been freed');
    return this.members;
  }

  /** The number of processes in the group. */
  get size(): number { return this.live('size').length; }

  /** Our rank in the group, MPI.UNDEFINED if we are not a member. */
  get rank(): number {
    this.live('rank');
    return this.ownRank;
  }

  /** The number of processes in the group. */
  Get_size(): number { return this.live('Get_size').length; }

  /** Our rank in the group, MPI.UNDEFINED if we are not a member. */
  Get_rank(): number {
    this.live('Get_rank');
    return this.ownRank;
  }

  /**
   * The rank in `group` of each process named by its rank in this group: MPI.UNDEFINED for
   * processes not in `group`, MPI.PROC_NULL for MPI.PROC_NULL. `ranks` defaults to every rank
   * of this group; `group` defaults to the group of MPI.COMM_WORLD (the result is world ranks).
   */
  Translate_ranks(ranks: ArrayLike<number> | null = null, group: Group | null = null): number[] {
    const members = this.live('Translate_ranks');
    const target = group === null ? null : liveGroup('Translate_ranks', 'group', group);
    const list = ranks === null ? null : rankArray('Translate_ranks', 'ranks', ranks);
    const n = list === null ? members.length : list.length;
    const out = new Array<number>(n);
    const where = target === null ? null : indexOf(target);
    for (let i = 0; i < n; i++) {
      const r = list === null ? i : list[i]!;
      if (r === PROC_NULL) {
        out[i] = PROC_NULL;
        continue;
      }
      checkRank('Translate_ranks', `ranks[${i}]`, r, members.length, true);
      const world = members[r]!;
      out[i] = where === null ? world : (where.get(world) ?? UNDEFINED);
    }
    return out;
  }

  /** MPI.IDENT (same members, same order), MPI.SIMILAR (same members) or MPI.UNEQUAL. */
  Compare(group: Group): number {
    return compareMembers(this.live('Compare'), liveGroup('Compare', 'group', group));
  }

  /** A new group with the same members. */
  Dup(): Group {
    return Group.derive(this.live('Dup'), this.self, this);
  }

  /** The members at `ranks`, in that order. */
  Incl(ranks: ArrayLike<number>): Group {
    const members = this.live('Incl');
    const list = rankArray('Incl', 'ranks', ranks);
    const seen = new Uint8Array(members.length);
    const out = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      checkRank('Incl', `ranks[${i}]`, r, members.length, false);
      if (seen[r]) throw rankError('Incl', `ranks[${i}] = ${r} is listed twice (each rank may appear once)`);
      seen[r] = 1;
      out[i] = members[r]!;
    }
    return Group.derive(out, this.self, this);
  }

  /** The members not at `ranks`, in their order in this group. */
  Excl(ranks: ArrayLike<number>): Group {
    const members = this.live('Excl');
    const list = rankArray('Excl', 'ranks', ranks);
    const excluded = new Uint8Array(members.length);
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      checkRank('Excl', `ranks[${i}]`, r, members.length, false);
      if (excluded[r]) throw rankError('Excl', `ranks[${i}] = ${r} is listed twice (each rank may appear once)`);
      excluded[r] = 1;
    }
    return this.keep(members, excluded, 0);
  }

  /** The members at the ranks of each [first, last, stride] triplet, in the order listed. */
  Range_incl(ranks: ArrayLike<ArrayLike<number>>): Group {
    const members = this.live('Range_incl');
    const list = expandRanges('Range_incl', ranks, members.length);
    const out = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) out[i] = members[list[i]!]!;
    return Group.derive(out, this.self, this);
  }

  /** The members not at the ranks of any [first, last, stride] triplet, in their order here. */
  Range_excl(ranks: ArrayLike<ArrayLike<number>>): Group {
    const members = this.live('Range_excl');
    const excluded = new Uint8Array(members.length);
    for (const r of expandRanges('Range_excl', ranks, members.length)) excluded[r] = 1;
    return this.keep(members, excluded, 0);
  }

  /** The members whose `flags` entry equals `want`, in order. */
  private keep(members: Int32Array, flags: Uint8Array, want: number): Group {
    let n = 0;
    for (let i = 0; i < members.length; i++) if (flags[i] === want) n++;
    const out = new Int32Array(n);
    n = 0;
    for (let i = 0; i < members.length; i++) if (flags[i] === want) out[n++] = members[i]!;
    return Group.derive(out, this.self, this);
  }

  /** All members of group1 in order, then those of group2 not in group1, in order. */
  static Union(group1: Group, group2: Group): Group {
    const a = liveGroup('Union', 'group1', group1);
    const b = liveGroup('Union', 'group2', group2);
    const inA = new Set(a);
    const out: number[] = Array.from(a);
    for (const w of b) if (!inA.has(w)) out.push(w);
    return Group.derive(Int32Array.from(out), Group.selfOf(group1, group2), group1, group2);
  }

  /** The members of group1 that are also in group2, in their order in group1. */
  static Intersection(group1: Group, group2: Group): Group {
    const a = liveGroup('Intersection', 'group1', group1);
    const inB = new Set(liveGroup('Intersection', 'group2', group2));
    return Group.derive(a.filter((w) => inB.has(w)), Group.selfOf(group1, group2), group1, group2);
  }

  /** The members of group1 that are not in group2, in their order in group1. */
  static Difference(group1: Group, group2: Group): Group {
    const a = liveGroup('Difference', 'group1', group1);
    const inB = new Set(liveGroup('Difference', 'group2', group2));
    return Group.derive(a.filter((w) => !inB.has(w)), Group.selfOf(group1, group2), group1, group2);
  }

  /** A group made from `parents`: it belongs to their session, if one does (lineage.ts; GROUP_EMPTY to none). */
  private static derive(members: Int32Array, self: number, ...parents: Group[]): Group {
    const made = Group.ofWorldRanks(members, self);
    return made === GROUP_EMPTY ? made : derived(made, ...parents);
  }

  /** The calling process's world rank as the operands know it (GROUP_EMPTY does not). */
  private static selfOf(group1: Group, group2: Group): number {
    return group1.self >= 0 ? group1.self : group2.self;
  }

  /** mpi4py's older name of Intersection. */
  static Intersect(group1: Group, group2: Group): Group {
    return Group.Intersection(group1, group2);
  }

  /** `Group.Union(this, group)`. */
  Union(group: Group): Group {
    return Group.Union(this, group);
  }

  /** `Group.Intersection(this, group)`. */
  Intersection(group: Group): Group {
    return Group.Intersection(this, group);
  }

  /** `Group.Difference(this, group)`. */
  Difference(group: Group): Group {
    return Group.Difference(this, group);
  }

  /** Frees the group; later calls on it raise MPI.ERR_GROUP. Freeing MPI.GROUP_EMPTY does nothing. */
  Free(): void {
    this.live('Free');
    if (!this.predefined) this.members = null;
  }
}

/** MPI.GROUP_EMPTY: the group with no members. */
export const GROUP_EMPTY: Group = Group.empty();

/**
 * MPI.IDENT when both lists hold the same world ranks in the same order, MPI.SIMILAR when they
 * hold the same ranks in another order, MPI.UNEQUAL otherwise. Lists never repeat a rank.
 */
export function compareMembers(a: Int32Array, b: Int32Array): number {
  if (a.length !== b.length) return UNEQUAL;
  let same = true;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) {
      same = false;
      break;
    }
  }
  if (same) return IDENT;
  const inA = new Set(a);
  for (const w of b) if (!inA.has(w)) return UNEQUAL;
  return SIMILAR;
}

function indexOf(members: Int32Array): Map<number, number> {
  const where = new Map<number, number>();
  for (let i = 0; i < members.length; i++) where.set(members[i]!, i);
  return where;
}

function liveGroup(call: string, what: string, group: unknown): Int32Array {
  if (!(group instanceof Group)) throw groupError(call, `${what} must be an MPI.Group, got ${describe(group)}`);
  const members = group.peek();
  if (members === null) throw groupError(call, `${what} has been freed`);
  return members;
}

function rankArray(call: string, what: string, ranks: unknown): ArrayLike<number> {
  if (Array.isArray(ranks) || ArrayBuffer.isView(ranks)) {
    const list = ranks as ArrayLike<unknown>;
    for (let i = 0; i < list.length; i++) {
      if (!Number.isInteger(list[i])) {
        throw new MPIException(ErrorClass.ERR_ARG, `Group.${call}: ${what}[${i}] is ${describe(list[i])}, not an integer rank`);
      }
    }
    return list as ArrayLike<number>;
  }
  throw new MPIException(ErrorClass.ERR_ARG, `Group.${call}: ${what} must be an array of ranks, got ${describe(ranks)}`);
}

function checkRank(call: string, what: string, rank: number, size: number, procNullAllowed: boolean): void {
  if (rank >= 0 && rank < size) return;
  const expected = size === 0 ? 'the group is empty' : `expected 0..${size - 1}`;
  throw rankError(call, `${what} = ${rank} is out of range for a group of size ${size} ` +
    `(${expected}${procNullAllowed ? ' or MPI.PROC_NULL' : ''})`);
}

/** The ranks of a list of [first, last, stride] triplets, in order; each rank at most once. */
function expandRanges(call: string, ranges: unknown, size: number): number[] {
  if (!Array.isArray(ranges)) {
    throw new MPIException(ErrorClass.ERR_ARG, `Group.${call}: ranks must be an array of [first, last, stride] triplets, ` +
      `got ${describe(ranges)}`);
  }
  const seen = new Uint8Array(size);
  const out: number[] = [];
  for (let i = 0; i < ranges.length; i++) {
    const t: unknown = ranges[i];
    if (!(Array.isArray(t) || ArrayBuffer.isView(t)) || (t as ArrayLike<unknown>).length !== 3 ||
        !Array.from(t as ArrayLike<unknown>).every((v) => Number.isInteger(v))) {
      throw new MPIException(ErrorClass.ERR_ARG, `Group.${call}: ranks[${i}] must be a [first, last, stride] triplet of ` +
        `integers, got ${Array.isArray(t) ? JSON.stringify(t) : describe(t)}`);
    }
    const [first, last, stride] = Array.from(t as ArrayLike<number>) as [number, number, number];
    if (stride === 0) throw new MPIException(ErrorClass.ERR_ARG, `Group.${call}: ranks[${i}] has stride 0 (expected a non-zero stride)`);
    checkRank(call, `ranks[${i}][0] (first)`, first, size, false);
    checkRank(call, `ranks[${i}][1] (last)`, last, size, false);
    for (let r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[r]) throw rankError(call, `ranks[${i}] = [${first}, ${last}, ${stride}] names rank ${r} a second time (each rank may appear once)`);
      seen[r] = 1;
      out.push(r);
    }
  }
  return out;
}

function groupError(call: string, message: string): MPIException {
  return new MPIException(ErrorClass.ERR_GROUP, `Group.${call}: ${message}`);
}

function rankError(call: string, message: string): MPIException {
  return new MPIException(ErrorClass.ERR_RANK, `Group.${call}: ${message}`);
}
