import type { World } from '../mpid/world.js';
import { describe } from './buffer.js';
import {
  TAG_CREATE_GROUP, TAG_CTX_AGREE, TAG_FROM_GROUP, TAG_LAST_FINALIZE, TAG_SPLIT, allMembers, allgatherInts, allreduceMaxInt, type Participants,
} from './coll-internal.js';
import type { Comm, CommCore } from './comm.js';
import { COMM_TYPE_HW_GUIDED, COMM_TYPE_HW_UNGUIDED, COMM_TYPE_SHARED, IDENT, CONGRUENT, TAG_UB_VALUE, UNDEFINED } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { Group, compareMembers } from './group.js';
import { runtime } from './runtime.js';

/**
 * Communicator management, as far as context ids need it: the bodies of comm.Get_group, Dup,
 * Split, Split_type, Create, Create_group, Free and Compare (the Comm methods are one line each).
 * A constructor returns the CommCore of the new communicator, or null where the caller gets
 * MPI.COMM_NULL; the Comm method wraps it.
 *
 * Context ids. A communicator's point-to-point traffic matches on its ctx and its internal
 * collective traffic on ctx + 1, so ids go in steps of 2: COMM_WORLD has 0, COMM_SELF 2, and
 * every process keeps the lowest id it has not used yet (`nextCtx`, from FIRST_FREE_CTX). To make
 * a communicator, its members (the parent's, for Split and Create, as those are collective over
 * the parent) take the maximum of their nextCtx and all move past it. The id is then above every
 * id any member ever used, so no member has another live communicator with it, which is all
 * matching needs: a message is matched by the receiving process only. One agreement serves all
 * the communicators of a Split, as they are disjoint. Freed ids are not reused: 2^30 ids last a
 * process's lifetime, and no message of a freed communicator can ever match a new one.
 */

/**
 * The runtime's own ids (4, 5): no communicator has them. Its collective id 5 carries what
 * needs all processes without a communicator: Create_from_group's agreement among the group
 * (the Sessions model has no parent communicator) and the barrier of the last Finalize. A
 * process's messages there have its world rank as their source.
 */
const RUNTIME_CTX = 4;
/** The first id after COMM_WORLD (0, 1), COMM_SELF (2, 3) and the runtime's own (4, 5). */
export const FIRST_FREE_CTX = 6;
/**
 * The last id that blocking calls agree on. The ids above, up to the last that fits the packet
 * header's signed 32-bit word, are Idup's (idup.ts): its agreement runs
 * while this process goes on making communicators, so it draws from a range of its own.
 */
const LAST_CTX = 0x3ffffffc;
const FIRST_IDUP_CTX = 0x40000000;
/** The last id of all: the header's word is signed. */
const LAST_ID = 0x7fffffff;

let nextCtx = FIRST_FREE_CTX;
let nextIdupCtx = FIRST_IDUP_CTX;

/** Moves this process past an agreed id, or reports that ids ran out. */
function takeCtx(comm: Comm, call: string, agreed: number, span = 2): number {
  if (agreed + span - 2 > LAST_CTX) comm.fail(call, ErrorClass.ERR_OTHER, `no context id left (the next would be ${agreed}, the last is ${LAST_CTX})`);
  nextCtx = agreed + span;
  return agreed;
}

/** This process's next free context id: what it contributes to an agreement (topo/, intercomm.ts). */
export function nextFreeCtx(): number {
  return nextCtx;
}

/**
 * Takes an id agreed by all members of a new communicator (at least each one's nextFreeCtx()).
 * `span` 4 reserves two more ids (intercommunicators: ctx + 2 carries the traffic inside
 * each group of their collectives).
 */
export function takeAgreedCtx(comm: Comm, call: string, agreed: number, span: 2 | 4 = 2): number {
  return takeCtx(comm, call, agreed, span);
}

/**
 * Idup's reservations while agreements run: every id from `idupFloor` (the next free id when
 * the first of the running Idups started) that an Idup here proposed or holds. Ids below the
 * floor count as taken; the set empties when the last running Idup ends.
 */
let idupsRunning = 0;
let idupFloor = FIRST_IDUP_CTX;
const idupReserved = new Set<number>();

/** An Idup agreement starts here. */
export function beginIdup(): void {
  if (idupsRunning++ === 0) idupFloor = nextIdupCtx;
}

/** An Idup agreement ended (agreed or failed). */
export function endIdup(): void {
  if (--idupsRunning === 0) idupReserved.clear();
}

/**
 * Idup's proposal: this process's next free id of Idup's range, reserved at once (`span` ids)
 * so that no other Idup here takes it while the agreement runs. Null when the range is used up.
 */
export function proposeIdupCtx(span: 2 | 4): number | null {
  if (nextIdupCtx + span - 1 > LAST_ID) return null;
  const p = nextIdupCtx;
  nextIdupCtx += span;
  for (let i = 0; i < span; i++) idupReserved.add(p + i);
  return p;
}

/**
 * Idup: whether `agreed` (the maximum of the members' proposals) is free here, and if so holds
 * it. It is free if it is our own proposal (reserved when made), or if none of its ids is below
 * the floor or reserved by another Idup here; otherwise the members try again.
 */
export function holdIdupCtx(agreed: number, proposed: number, span: 2 | 4): boolean {
  if (agreed !== proposed) {
    if (agreed < idupFloor) return false;
    for (let i = 0; i < span; i++) if (idupReserved.has(agreed + i)) return false;
    for (let i = 0; i < span; i++) idupReserved.add(agreed + i);
  }
  if (agreed + span > nextIdupCtx) nextIdupCtx = agreed + span;
  return true;
}

/** Idup: an id this process proposed or held and no longer wants (never one it made a communicator of). */
export function releaseIdupCtx(id: number, span: 2 | 4): void {
  for (let i = 0; i < span; i++) idupReserved.delete(id + i);
}

/** A number as itself, anything else by its type. */
function show(x: unknown): string {
  return typeof x === 'number' ? String(x) : describe(x);
}

function world(call: string): World {
  return runtime.requireRunning(call);
}

/** comm.Get_group: the members, as world ranks. */
export function commGroup(core: CommCore): Group {
  return Group.ofWorldRanks(core.worldRanks, core.worldRanks[core.rank]!);
}

/** comm.Dup: collective over comm; same members, same order, a new context. */
export function dupComm(comm: Comm, core: CommCore): CommCore {
  const w = world('Dup');
  const ctx = takeCtx(comm, 'Dup', allreduceMaxInt(w, allMembers(core), nextCtx, TAG_CTX_AGREE));
  return { rank: core.rank, size: core.size, worldRanks: core.worldRanks, ctx };
}

/**
 * comm.Split: collective over comm. Members with the same color form a communicator, ranked by
 * key, ties by their rank in comm; color MPI.UNDEFINED gets MPI.COMM_NULL (null).
 */
export function splitComm(comm: Comm, core: CommCore, color: number, key: number, call = 'Split'): CommCore | null {
  if (!(color === UNDEFINED || (Number.isInteger(color) && color >= 0 && color <= 0x7fffffff))) {
    comm.fail(call, ErrorClass.ERR_ARG, `color ${show(color)} is invalid (expected an integer 0..${0x7fffffff} or MPI.UNDEFINED)`);
  }
  if (!(Number.isInteger(key) && key >= -0x80000000 && key <= 0x7fffffff)) {
    comm.fail(call, ErrorClass.ERR_ARG, `key ${show(key)} is invalid (expected a 32-bit integer)`);
  }
  const w = world(call);
  const all = allgatherInts(w, allMembers(core), Int32Array.of(color, key, nextCtx), TAG_SPLIT);
  let agreed = 0;
  for (let r = 0; r < core.size; r++) if (all[3 * r + 2]! > agreed) agreed = all[3 * r + 2]!;
  const ctx = takeCtx(comm, call, agreed);
  if (color === UNDEFINED) return null;
  const chosen: number[] = [];
  for (let r = 0; r < core.size; r++) if (all[3 * r] === color) chosen.push(r);
  chosen.sort((a, b) => all[3 * a + 1]! - all[3 * b + 1]! || a - b);
  const worldRanks = new Int32Array(chosen.length);
  for (let i = 0; i < chosen.length; i++) worldRanks[i] = core.worldRanks[chosen[i]!]!;
  return { rank: chosen.indexOf(core.rank), size: chosen.length, worldRanks, ctx };
}

/** The info key of MPI-4's hardware-guided split, and the one hardware resource tsmpi knows. */
export const HW_RESOURCE_KEY = 'mpi_hw_resource_type';
const SHARED_MEMORY = 'mpi_shared_memory';

/**
 * comm.Split_type. MPI.COMM_TYPE_SHARED splits comm into the members that share a node (whose
 * business cards carry our node id); so does COMM_TYPE_HW_GUIDED with info
 * mpi_hw_resource_type=mpi_shared_memory (another value names a resource tsmpi does not know:
 * MPI.COMM_NULL everywhere, as the standard has it), and COMM_TYPE_HW_UNGUIDED when the node is a
 * strictly smaller part of comm (otherwise no smaller resource is known: COMM_NULL).
 * MPI.UNDEFINED gets MPI.COMM_NULL. `resource` is the resource the new communicator stands for.
 */
export function splitTypeComm(comm: Comm, core: CommCore, splitType: number, key: number,
                              info: { Get(key: string): string | null } | null): { core: CommCore; resource: string | null } | null {
  const none = (): null => {
    splitComm(comm, core, UNDEFINED, key, 'Split_type');
    return null;
  };
  if (splitType === UNDEFINED) return none();
  const cards = world('Split_type').cards;
  // The color of a node: the lowest rank of the communicator on it, which every member of the
  // node computes alike (also processes of other jobs, whose cards are not ours: dynamic.ts).
  const nodeOf = (rank: number): string => cards[core.worldRanks[rank]!]!.nodeId;
  const nodeColor = (rank: number): number => {
    const node = nodeOf(rank);
    let color = 0;
    while (nodeOf(color) !== node) color++;
    return color;
  };
  let resource: string | null = null;
  if (splitType === COMM_TYPE_HW_GUIDED) {
    const asked = info?.Get(HW_RESOURCE_KEY) ?? null;
    if (asked === null) {
      comm.fail('Split_type', ErrorClass.ERR_INFO_KEY, `MPI.COMM_TYPE_HW_GUIDED needs info key ${HW_RESOURCE_KEY} ` +
        `(tsmpi knows "${SHARED_MEMORY}")`);
    }
    if (asked !== SHARED_MEMORY) return none();
    resource = SHARED_MEMORY;
  } else if (splitType === COMM_TYPE_HW_UNGUIDED) {
    let spansNodes = false;
    for (let r = 1; r < core.size && !spansNodes; r++) spansNodes = nodeColor(r) !== nodeColor(0);
    if (!spansNodes) return none();
    resource = SHARED_MEMORY;
  } else if (splitType !== COMM_TYPE_SHARED) {
    comm.fail('Split_type', ErrorClass.ERR_ARG, `split_type ${show(splitType)} is not supported (expected ` +
      'MPI.COMM_TYPE_SHARED, MPI.COMM_TYPE_HW_GUIDED, MPI.COMM_TYPE_HW_UNGUIDED or MPI.UNDEFINED)');
  }
  const made = splitComm(comm, core, nodeColor(core.rank), key, 'Split_type');
  return made === null ? null : { core: made, resource };
}

/** The members of `group` after checking it is a live subgroup of comm; their ranks in comm. */
function subgroupRanks(comm: Comm, core: CommCore, call: string, group: unknown): { members: Int32Array; commRanks: Int32Array } {
  if (!(group instanceof Group)) comm.fail(call, ErrorClass.ERR_GROUP, `group must be an MPI.Group, got ${describe(group)}`);
  const members = group.peek();
  if (members === null) return comm.fail(call, ErrorClass.ERR_GROUP, 'group has been freed');
  const rankOf = new Map<number, number>();
  for (let r = 0; r < core.size; r++) rankOf.set(core.worldRanks[r]!, r);
  const commRanks = new Int32Array(members.length);
  for (let i = 0; i < members.length; i++) {
    const r = rankOf.get(members[i]!);
    if (r === undefined) {
      comm.fail(call, ErrorClass.ERR_GROUP, `group is not a subgroup of the communicator: its rank ${i} ` +
        `(world rank ${members[i]}) is not a member`);
    }
    commRanks[i] = r;
  }
  return { members, commRanks };
}

/** comm.Create: collective over comm (every member passes the same group); non-members get null. */
export function createComm(comm: Comm, core: CommCore, group: unknown): CommCore | null {
  const { members } = subgroupRanks(comm, core, 'Create', group);
  const ctx = takeCtx(comm, 'Create', allreduceMaxInt(world('Create'), allMembers(core), nextCtx, TAG_CTX_AGREE));
  const rank = members.indexOf(core.worldRanks[core.rank]!);
  if (rank < 0) return null;
  return { rank, size: members.length, worldRanks: members.slice(), ctx };
}

/**
 * comm.Create_group: collective over the members of `group` only (the others of comm take no
 * part); a caller outside the group gets null at once. `tag` is checked as a tag: it is not
 * needed to tell calls apart, as each process makes its calls from one thread, in one order.
 */
export function createGroupComm(comm: Comm, core: CommCore, group: unknown, tag: number): CommCore | null {
  const { members, commRanks } = subgroupRanks(comm, core, 'Create_group', group);
  if (!(Number.isInteger(tag) && tag >= 0 && tag <= TAG_UB_VALUE)) {
    comm.fail('Create_group', ErrorClass.ERR_TAG, `tag ${show(tag)} is invalid (expected 0..${TAG_UB_VALUE})`);
  }
  const index = members.indexOf(core.worldRanks[core.rank]!);
  if (index < 0) return null;
  const p: Participants = { ctx: core.ctx + 1, index, worldRanks: members, commRanks };
  const ctx = takeCtx(comm, 'Create_group', allreduceMaxInt(world('Create_group'), p, nextCtx, TAG_CREATE_GROUP));
  return { rank: index, size: members.length, worldRanks: members.slice(), ctx };
}

/** The processes of world ranks `members` (ascending or not), on the runtime's own context. */
function onRuntimeContext(members: Int32Array, selfWorldRank: number): Participants {
  return { ctx: RUNTIME_CTX + 1, index: members.indexOf(selfWorldRank), worldRanks: members, commRanks: members };
}

/**
 * Intracomm.Create_from_group: collective over the members of `members` (world ranks, in the
 * group's order; the caller is one of them), which agree on a context id among themselves.
 */
export function createFromGroup(world: World, members: Int32Array, fail: (errorClass: number, message: string) => never): CommCore {
  const p = onRuntimeContext(members, world.rank);
  const agreed = allreduceMaxInt(world, p, nextCtx, TAG_FROM_GROUP);
  if (agreed > LAST_CTX) fail(ErrorClass.ERR_OTHER, `no context id left (the next would be ${agreed}, the last is ${LAST_CTX})`);
  nextCtx = agreed + 2;
  return { rank: p.index, size: members.length, worldRanks: members.slice(), ctx: agreed };
}

/**
 * The last Finalize of a process (of the World Model or of a Session): over a network device a
 * completed send may still sit in this rank's transport queue (UCX took it while the peer's
 * socket was full), and only this rank's progress sends it on; the process manager's fence
 * progresses nothing, so a receiver that came late waited forever. No rank passes this barrier
 * before every rank has reached its last Finalize, which a correct program does after its
 * receives, and every rank progresses until then.
 */
export function drainBeforeStop(world: World): void {
  if (world.size === 1 || !world.sendsNeedProgress()) return;
  const everyone = new Int32Array(world.size);
  for (let r = 0; r < world.size; r++) everyone[r] = r;
  allreduceMaxInt(world, onRuntimeContext(everyone, world.rank), 0, TAG_LAST_FINALIZE);
}

/** comm.Free: the predefined communicators cannot be freed; the caller then drops its core. */
export function freeComm(comm: Comm, core: CommCore): void {
  if (core.ctx < FIRST_FREE_CTX) {
    comm.fail('Free', ErrorClass.ERR_COMM, `${comm.Get_name()} is predefined and cannot be freed`);
  }
}

/** comm.Compare: IDENT (one communicator), CONGRUENT (same members in the same order), SIMILAR, UNEQUAL. */
export function compareComms(same: boolean, a: CommCore, b: CommCore): number {
  if (same) return IDENT;
  const groups = compareMembers(a.worldRanks, b.worldRanks);
  return groups === IDENT ? CONGRUENT : groups;
}
