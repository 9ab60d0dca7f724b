import { KIND_GREQ, MODE_STANDARD, STATE_DONE, type CoreRequest, type Engine, type ProgressHook } from '../../mpid/index.js';
import type { World } from '../../mpid/world.js';
import type { CommCore } from '../comm.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';

/**
 * Collective schedules. Every collective, blocking or not, is built as a list of rounds; a
 * round posts its receives, then its sends (engine irecv/isend on the communicator's
 * collective context, ctx + 1), and when all of them have completed runs its local steps
 * (reductions, copies) and starts the next round. The schedule is advanced by the collective
 * scheduler, a progress hook of the engine, so a non-blocking collective moves whenever
 * anything drives progress (Wait, Test, another blocking call, an awaited request).
 *
 * Matching: each collective call on a communicator takes the next sequence number of that
 * communicator and uses the tag TAG_COLL_BASE + sequence, so collectives in flight on one
 * communicator never match each other's messages. All members call collectives in the same
 * order, so they agree on the sequence. Within a schedule no round receives twice from one
 * peer, and rounds run in order, so messages between two ranks match in the order sent.
 * Tags 1..4 of the collective context belong to Comm.Barrier's basic form and coll-internal.ts.
 *
 * A schedule can run more than once (persistent collectives, MPI-4 §6.13: built at *_init, run
 * at every Start). So nothing a run depends on may happen while it is built: data moves that
 * must precede the first round (copying the own block into place, a copy of sendbuf to reduce
 * into) are `prepare` steps, run at each start before the first round is posted; rounds keep
 * their messages, polls and local steps; and each run takes the tag chosen when it was built
 * (runs never overlap, and every run exchanges the same messages between the same ranks in the
 * same order, so non-overtaking keeps runs apart).
 */
export const TAG_COLL_BASE = 16;
const TAG_SPAN = 0x7fff0000;

const EMPTY = new Uint8Array(0);

interface Transfer {
  bytes: Uint8Array;
  peer: number;
  /** The communicator core the peer's rank belongs to: null for the schedule's own. */
  via: CommCore | null;
}

class Round {
  readonly sends: Transfer[] = [];
  readonly recvs: Transfer[] = [];
  /** Conditions on shared memory, checked after the messages completed and before `after`. */
  readonly polls: (() => boolean)[] = [];
  readonly after: (() => void)[] = [];
}

const sequences = new WeakMap<CommCore, { next: number }>();

/** The tag of the next collective on `core`. */
export function nextCollTag(core: CommCore): number {
  let s = sequences.get(core);
  if (s === undefined) {
    s = { next: 0 };
    sequences.set(core, s);
  }
  const tag = TAG_COLL_BASE + (s.next % TAG_SPAN);
  s.next++;
  return tag;
}

export class Schedule {
  private readonly rounds: Round[] = [];
  private current = -1;
  private readonly inFlight: CoreRequest[] = [];
  private readonly expected: Transfer[] = [];
  /** Steps run at every start, before the first round is posted. */
  private readonly setup: (() => void)[] = [];
  /** Polls of the current round that have held (a poll is not asked again once it held). */
  private pollsHeld = 0;
  /** The engine request that stands for the whole collective (kind GREQ), one per run; done at the end of the run. */
  request!: CoreRequest;
  error: MPIException | null = null;
  done = false;

  constructor(readonly core: CommCore, private readonly engine: Engine, readonly tag: number, readonly call: string) {}

  /** Starts a new round; later send/recv/local calls add to it. */
  round(): this {
    this.rounds.push(new Round());
    return this;
  }

  private last(): Round {
    if (this.rounds.length === 0) this.round();
    return this.rounds[this.rounds.length - 1]!;
  }

  send(bytes: Uint8Array, peer: number): this {
    if (peer !== this.core.rank) this.last().sends.push({ bytes, peer, via: null });
    return this;
  }

  /**
   * A transfer with rank `peer` of another core, on that core's collective context with this
   * schedule's tag (intercommunicator collectives: `via` is the remote group, where our own rank
   * number names someone else).
   */
  sendVia(via: CommCore, bytes: Uint8Array, peer: number): this {
    this.last().sends.push({ bytes, peer, via });
    return this;
  }

  recvVia(via: CommCore, bytes: Uint8Array, peer: number): this {
    this.last().recvs.push({ bytes, peer, via });
    return this;
  }

  recv(bytes: Uint8Array, peer: number): this {
    if (peer !== this.core.rank) this.last().recvs.push({ bytes, peer, via: null });
    return this;
  }

  /**
   * A condition the round waits for besides its messages (a flag in shared memory), checked on
   * every progress call until it holds; it may act once it holds (it is not called again).
   * Whoever makes it true must wake this rank (World.wakeLocal), as a sleeping rank re-checks
   * its schedules only when woken.
   */
  poll(fn: () => boolean): this {
    this.last().polls.push(fn);
    return this;
  }

  /** A local step, run once the current round's messages have completed. */
  local(fn: () => void): this {
    this.last().after.push(fn);
    return this;
  }

  /**
   * A step run at every start before the first round (`first`: before the steps given so far).
   * It may read the user's buffers: a start is when MPI reads them.
   */
  prepare(fn: () => void, first = false): this {
    if (first) this.setup.unshift(fn);
    else this.setup.push(fn);
    return this;
  }

  /** Runs the prepare steps, posts the first round; the scheduler advances the rest. */
  start(): void {
    this.request = this.engine.requests.acquire(KIND_GREQ);
    this.done = false;
    this.error = null;
    try {
      for (const fn of this.setup) fn();
    } catch (e) {
      this.error = e instanceof MPIException ? e : new MPIException(ErrorClass.ERR_OTHER, `${this.call}: ${String(e)}`, { cause: e });
    }
    this.startRound(0);
    this.advance();
  }

  private startRound(i: number): void {
    this.current = i;
    this.pollsHeld = 0;
    if (i >= this.rounds.length) {
      this.finish();
      return;
    }
    const r = this.rounds[i]!;
    for (const t of r.recvs) {
      const core = t.via ?? this.core;
      this.inFlight.push(this.engine.irecv(t.bytes, core.ctx + 1, t.peer, this.tag));
      this.expected.push(t);
    }
    for (const t of r.sends) {
      const core = t.via ?? this.core;
      this.inFlight.push(this.engine.isend(t.bytes, core.worldRanks[t.peer]!, core.ctx + 1, core.rank, this.tag, MODE_STANDARD));
      this.expected.push(EMPTY_TRANSFER);
    }
  }

  /** Moves through every round whose messages are complete; returns the rounds completed. */
  advance(): number {
    let moved = 0;
    while (!this.done) {
      const reqs = this.inFlight;
      for (let i = 0; i < reqs.length; i++) if (reqs[i]!.state !== STATE_DONE) return moved;
      for (let i = 0; i < reqs.length; i++) {
        const q = reqs[i]!;
        const t = this.expected[i]!;
        if (t !== EMPTY_TRANSFER && (q.truncated || q.statusCount !== t.bytes.length) && this.error === null) {
          this.error = new MPIException(q.truncated ? ErrorClass.ERR_TRUNCATE : ErrorClass.ERR_COUNT,
            `${this.call}: rank ${t.peer} sent ${q.incomingBytes} bytes where ` +
            `${t.bytes.length} were expected (do all ranks pass matching counts and datatypes?)`);
        }
        this.engine.free(q);
      }
      reqs.length = 0;
      this.expected.length = 0;
      const round = this.rounds[this.current]!;
      const polls = round.polls;
      while (this.pollsHeld < polls.length) {
        if (!polls[this.pollsHeld]!()) return moved;
        this.pollsHeld++;
      }
      if (this.error === null) {
        try {
          for (const fn of round.after) fn();
        } catch (e) {
          this.error = e instanceof MPIException ? e : new MPIException(ErrorClass.ERR_OTHER, `${this.call}: ${String(e)}`, { cause: e });
        }
      }
      moved++;
      this.startRound(this.current + 1);
    }
    return moved;
  }

  private finish(): void {
    this.done = true;
    const r = this.request;
    this.engine.complete(r);
  }
}

const EMPTY_TRANSFER: Transfer = { bytes: EMPTY, peer: -1, via: null };

/** The progress hook that advances every schedule in flight in one process. */
class Scheduler implements ProgressHook {
  private active: Schedule[] = [];

  add(s: Schedule): void {
    this.active.push(s);
  }

  advance(): number {
    const list = this.active;
    if (list.length === 0) return 0;
    let n = 0;
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      n += s.advance();
      if (!s.done) list[kept++] = s;
    }
    list.length = kept;
    return n;
  }
}

const schedulers = new WeakMap<Engine, Scheduler>();

/** Starts a schedule and hands it to the scheduler of the world's engine. */
export function launch(world: World, s: Schedule): void {
  let sched = schedulers.get(world.engine);
  if (sched === undefined) {
    sched = new Scheduler();
    schedulers.set(world.engine, sched);
    world.engine.addProgressHook(sched);
  }
  s.start();
  if (!s.done) sched.add(s);
}

/** Runs a schedule to completion (blocking collectives); throws its error, if any. */
export function runBlocking(world: World, s: Schedule): void {
  launch(world, s);
  world.progress.wait(s.request);
  world.engine.free(s.request);
  if (s.error !== null) throw s.error;
}
