import type { World } from '../mpid/world.js';
import { allMembers, type Participants } from './coll-internal.js';
import { CollRequest } from './coll/common.js';
import { Schedule, launch, nextCollTag } from './coll/schedule.js';
import { Comm, type CommCore } from './comm.js';
import { beginIdup, endIdup, holdIdupCtx, proposeIdupCtx, releaseIdupCtx } from './comm-manage.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { INFO_NULL } from './info.js';
import { Intercomm } from './intercomm.js';
import type { Request } from './request.js';
import { runtime } from './runtime.js';
import type { InfoArg } from './types.js';

/**
 * comm.Idup (MPI-3 §6.4.2, mpi4py's `Idup(info) -> (comm, request)`): the new communicator
 * at once, usable once the request completes; a collective on comm like a non-blocking
 * collective, ordered with the others by comm's collective sequence.
 *
 * The context id. A blocking Dup agrees on the maximum of the members' next free ids and every
 * member moves past it (comm-manage.ts); that is safe because a process makes one communicator
 * at a time. Idup's agreement runs in the background while the process goes on making
 * communicators, blocking or by other Idups, so it draws from a range of ids of its own (blocking
 * calls never touch it) and, within that range, agrees in attempts, as MPICH's non-blocking
 * context id allocation retries:
 *   - each member proposes its next free Idup id and reserves it at once;
 *   - the maximum M of the proposals is free at a member if it is that member's own proposal or
 *     no other Idup there reserved any of its ids; a member where it is free holds it;
 *   - the next attempt carries, beside new proposals, whether M was free everywhere: if it was,
 *     M is the id; if not, the attempt's own maximum is the next candidate.
 * One attempt is one dissemination allreduce (max) of two integers: [proposal, "M was not free
 * here"]; the first attempt has no candidate to judge, so an Idup costs two attempts when no
 * other agreement overlaps it, more when one took its candidate. Ids of failed attempts are not
 * used again by this Idup; an id a process proposed or held and no longer wants goes back to
 * the others running there, so that their maxima rarely fall on a reserved id. Many Idups in
 * flight at once on ranks whose next free ids differ still collide: 90 at once on 4 ranks (on 2
 * cores) take 2-4 s in all, where one or a few at a time take their two attempts. The schedule appends each attempt's rounds
 * from the last step of the one before, all on the tag Idup took at its call.
 */

declare module './comm.js' {
  interface Comm {
    /** Non-blocking Dup: the new communicator now (usable once the request completes) and the request. */
    Idup(info?: InfoArg): [this, Request];
    /** Non-blocking Dup_with_info. */
    Idup_with_info(info: InfoArg): [this, Request];
  }
}

/** One Idup's agreement, on a schedule over the members (intercommunicators: both groups). */
class IdupAgreement {
  /** This attempt's running maximum: [proposal, "the previous candidate was not free somewhere"]. */
  private readonly max = new Int32Array(2);
  private proposed = 0;
  /** The maximum of the previous attempt, judged by this one; -1 before the first. */
  private candidate = -1;
  /** Whether the candidate was free here, and so is held here until the next attempt judges it. */
  private candidateHeld = false;

  constructor(private readonly s: Schedule, private readonly p: Participants, private readonly span: 2 | 4,
              private readonly made: Comm) {}

  /** Proposes, and appends the rounds of one attempt; `notFree` says whether the candidate was not free here. */
  attempt(notFree: boolean): void {
    const proposed = proposeIdupCtx(this.span);
    if (proposed === null) {
      endIdup();
      throw new MPIException(ErrorClass.ERR_OTHER, 'no context id left for Idup (its range of 2^29 communicators is used up)');
    }
    this.proposed = proposed;
    this.max[0] = proposed;
    this.max[1] = notFree ? 1 : 0;
    const n = this.p.worldRanks.length;
    const me = this.p.index;
    // Dissemination: after the step of distance d, we hold the maximum over ourselves and the
    // 2d - 1 members before us; max is idempotent, so overlaps do no harm. A step's send is
    // posted when its round starts, so the step before fills it.
    const distances: number[] = [];
    for (let d = 1; d < n; d <<= 1) distances.push(d);
    const outs = distances.map(() => new Int32Array(2));
    if (outs.length > 0) outs[0]!.set(this.max);
    distances.forEach((d, k) => {
      const got = new Int32Array(2);
      this.s.round()
        .send(new Uint8Array(outs[k]!.buffer), (me + d) % n)
        .recv(new Uint8Array(got.buffer), (me - d + n) % n)
        .local(() => {
          if (got[0]! > this.max[0]!) this.max[0] = got[0]!;
          if (got[1]! > this.max[1]!) this.max[1] = got[1]!;
          if (k + 1 < outs.length) outs[k + 1]!.set(this.max);
        });
    });
    this.s.round().local(() => this.judge());
  }

  /** The end of an attempt: done if the candidate was free everywhere, else judge the new maximum and go on. */
  private judge(): void {
    // An id no longer wanted goes back, so that other Idups here find the range sparse.
    if (this.candidate >= 0 && this.max[1] === 0) {
      releaseIdupCtx(this.proposed, this.span);
      this.made.ctxAgreed(this.candidate);
      endIdup();
      return;
    }
    if (this.candidateHeld) releaseIdupCtx(this.candidate, this.span);
    const next = this.max[0]!;
    this.candidateHeld = holdIdupCtx(next, this.proposed, this.span);
    if (next !== this.proposed) releaseIdupCtx(this.proposed, this.span);
    this.candidate = next;
    this.attempt(!this.candidateHeld);
  }
}

function idup(this: Comm, info?: InfoArg): [Comm, Request] {
  const core = this.coreFor('Idup');
  this.checkInfoArg('Idup', info);
  const world: World = runtime.requireRunning('Idup');
  const { p, span } = this instanceof Intercomm ? this.ctxAgreement(core) : { p: allMembers(core), span: 2 as const };
  const made = this.twin({ ...core, ctx: -1 });
  this.inherit(made, info);
  made.awaitCtx();
  // The schedule addresses members by their index in p (a core of p's shape) on p's context.
  const members: CommCore = { rank: p.index, size: p.worldRanks.length, worldRanks: p.worldRanks, ctx: p.ctx - 1 };
  const s = new Schedule(members, world.engine, nextCollTag(core), 'Idup');
  const agreement = new IdupAgreement(s, p, span, made);
  beginIdup();
  try {
    agreement.attempt(true);
  } catch (e) {
    if (e instanceof MPIException) this.fail('Idup', e.error_class, e.message);
    throw e;
  }
  launch(world, s);
  return [made, new CollRequest(s, this, 'Idup')];
}

function idupWithInfo(this: Comm, info: InfoArg): [Comm, Request] {
  this.coreFor('Idup_with_info');
  this.checkInfoArg('Idup_with_info', info);
  return idup.call(this, info ?? INFO_NULL);
}

for (const [name, value] of [['Idup', idup], ['Idup_with_info', idupWithInfo]] as const) {
  Object.defineProperty(Comm.prototype, name, { value, writable: true, configurable: true });
}
