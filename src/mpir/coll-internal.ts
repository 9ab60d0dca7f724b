import { MODE_STANDARD } from '../mpid/index.js';
import type { World } from '../mpid/world.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';

/**
 * The two collectives that communicator management needs before the public collectives exist:
 * the maximum of one integer over the participants, and the gather of a few integers from every
 * participant to every participant. Both run on point-to-point (engine isend/irecv) over a
 * communicator's collective context (its ctx + 1), with internal tags, and block with
 * world.progress.wait. The collectives issue replaces them with its general algorithms.
 *
 * Deadlock freedom and matching: each step posts its receive before its send and waits for
 * both, so no step waits for a peer that waits for it. Within one call every step receives
 * from a different participant, so the (ctx, source, tag) of a step is unique; across calls,
 * participants call in the same order and messages between two processes do not overtake.
 *
 * Internal tags on the collective context (TAG_BARRIER = 1 belongs to Comm.Barrier):
 */
/** Context id agreement of Dup and Create (all members of the parent). */
export const TAG_CTX_AGREE = 2;
/** The (color, key, next free context id) exchange of Split and Split_type. */
export const TAG_SPLIT = 3;
/** Context id agreement of Create_group (the members of the group only). */
export const TAG_CREATE_GROUP = 4;
/** On the runtime's own context (comm-manage.ts): context id agreement of Create_from_group. */
export const TAG_FROM_GROUP = 5;
/** On the runtime's own context: the barrier of the last Finalize (MPI.Finalize or Session.Finalize). */
export const TAG_LAST_FINALIZE = 6;

/** Who takes part in an internal collective, and how their messages are addressed. */
export interface Participants {
  /** The context the messages travel on: a communicator's ctx + 1. */
  readonly ctx: number;
  /** Our index among the participants. */
  readonly index: number;
  /** World rank of each participant (where to send). */
  readonly worldRanks: Int32Array;
  /** Each participant's rank in the communicator that owns `ctx` (the source of its messages). */
  readonly commRanks: Int32Array;
}

/** All members of a communicator, on its collective context. */
export function allMembers(core: { rank: number; size: number; worldRanks: Int32Array; ctx: number }): Participants {
  const commRanks = new Int32Array(core.size);
  for (let i = 0; i < core.size; i++) commRanks[i] = i;
  return { ctx: core.ctx + 1, index: core.rank, worldRanks: core.worldRanks, commRanks };
}

/** The maximum of `value` over all participants (dissemination: ceil(log2 n) exchanges). */
export function allreduceMaxInt(world: World, p: Participants, value: number, tag: number): number {
  const n = p.worldRanks.length;
  const send = new Int32Array(1);
  const recv = new Int32Array(1);
  const sendBytes = new Uint8Array(send.buffer);
  const recvBytes = new Uint8Array(recv.buffer);
  let max = value;
  // Max is idempotent, so a value reaching us twice does no harm: after the step of distance
  // d, each participant holds the maximum over itself and the 2d - 1 participants before it.
  for (let d = 1; d < n; d <<= 1) {
    send[0] = max;
    exchange(world, p, sendBytes, (p.index + d) % n, recvBytes, (p.index - d + n) % n, tag);
    if (recv[0]! > max) max = recv[0]!;
  }
  return max;
}

/**
 * Every participant's `mine` (the same length k everywhere), concatenated in participant order:
 * element j of participant i is at i * k + j. Bruck's algorithm: ceil(log2 n) exchanges.
 */
export function allgatherInts(world: World, p: Participants, mine: Int32Array, tag: number): Int32Array {
  const n = p.worldRanks.length;
  const k = mine.length;
  // Block b of `rotated` is participant (index + b) mod n; blocks 0..have-1 are filled.
  const rotated = new Int32Array(n * k);
  rotated.set(mine, 0);
  const bytes = new Uint8Array(rotated.buffer);
  for (let d = 1; d < n; d <<= 1) {
    const count = Math.min(d, n - d);
    const sendPart = bytes.subarray(0, count * k * 4);
    const recvPart = bytes.subarray(d * k * 4, (d + count) * k * 4);
    exchange(world, p, sendPart, (p.index - d + n) % n, recvPart, (p.index + d) % n, tag);
  }
  const out = new Int32Array(n * k);
  for (let b = 0; b < n; b++) out.set(rotated.subarray(b * k, (b + 1) * k), ((p.index + b) % n) * k);
  return out;
}

/** One step: receive `recv` from participant `from` while sending `send` to participant `to`. */
function exchange(world: World, p: Participants, send: Uint8Array, to: number, recv: Uint8Array, from: number,
                  tag: number): void {
  const engine = world.engine;
  const r = engine.irecv(recv, p.ctx, p.commRanks[from]!, tag);
  const s = engine.isend(send, p.worldRanks[to]!, p.ctx, p.commRanks[p.index]!, tag, MODE_STANDARD);
  world.progress.wait(s);
  world.progress.wait(r);
  const got = r.statusCount;
  const truncated = r.truncated;
  engine.free(s);
  engine.free(r);
  if (got !== recv.length || truncated) {
    throw new MPIException(ErrorClass.ERR_INTERN, `internal collective (context ${p.ctx}, tag ${tag}): expected ` +
      `${recv.length} bytes from participant ${from}, got ${truncated ? 'more' : got}`);
  }
}
