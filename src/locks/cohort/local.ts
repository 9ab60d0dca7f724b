/**
 * Local levels of the cohort locks (research 000 §2.1, §2.8, §2.9): TTS with backoff and
 * successor-exists detection, TKT with a top-granted status word, MCS, and CLH. All live in a
 * NodeSharedWindow over ctx.node and use JS Atomics only (the thesis' std::atomic versions,
 * 000 §1.7); no RMA. Every wait loop calls waiter.pause(). Node ranks stand in for pointers, -1 =
 * NULL. Each field is an Int32 on its own 64-byte line.
 *
 * TTS ([DMS12] via 000 §2.9; [repo] status.exchange(WAIT) as the TAS): part(0) = state | succ.
 *   state: WAIT (255) while held, otherwise the status left by the last release (0 = the next
 *   holder must take the global lock, 1..254 = pass count). acquire: succ = 1 (a waiter
 *   exists), then test (load != WAIT) and test-and-set (exchange WAIT); a failed round backs
 *   off (Backoff, default 1..16 pauses: the thesis' 2^10..2^14 ns keeps its 1:16 ratio; a pause
 *   is an Iprobe or a nap, much longer than the thesis' nanoseconds) and re-sets succ = 1
 *   whenever it reads it as 0; on success succ = 0. release(s): state = s. alone(): succ == 0.
 *   A rank that set succ = 1 is committed to acquire, so a local pass (state = s > 0) always
 *   has a taker; any rank of the node may take it (thread-oblivious global level).
 * TKT (Fig. 5.4 + [DMS12] top-granted widened to the status byte): part(0) = next | serving |
 *   top. acquire: t = add(next, 1); wait until serving == t; return top. release(s): top = s;
 *   add(serving, 1). alone(): next == serving + 1. (The [repo]'s packed ticket+count variant
 *   is not built: the thesis reports no gain over top-granted.)
 * MCS ([repo] McsLockAtomicWithCohortDetection, D-MCS 000 §2.3 in shared memory): part(r) =
 *   status | next per node rank, part(0) also tail. acquire: status = WAIT, next = -1;
 *   pred = exchange(tail, me); none: return 0; else store(pred.next, me), wait while status
 *   == WAIT, return it. release(s): succ = next; if -1: CAS(tail, me, -1) succeeds: done; else
 *   wait for next; store(succ.status, s). alone(): next == -1.
 * CLH (Fig. 5.1, rotating nodes): node i = an Int32 status in part(i) for i < nodeSize, and a
 *   dummy node nodeSize in part(0) (p+1 nodes); part(0) also holds tail (a node id).
 *   acquire: mine.status = WAIT; watch = exchange(tail, mine); wait while watch.status ==
 *   WAIT; return it. release(s): mine.status = s; mine = watch. alone(): tail == mine. The
 *   status written into the released node is the hand-over byte, so CLH carries the inline
 *   counter directly (000 §2.9: "applies directly to TAS, TTS, CLH and MCS").
 *
 * Deviations: statuses are Int32 words, not bytes; the local TTS backoff is counted in
 * Waiter pauses, not nanoseconds (this machine has more ranks than cores: a time spin would
 * steal the holder's CPU); TTS's successor-exists flag is written with Atomics (seq-cst) like
 * every shared word here.
 *
 * Research ids cited here: see docs/references.md.
 */
import { type LockContext, NodeSharedWindow, WindowLayout } from '../context.js';
import { Backoff, type Waiter } from '../wait.js';
import { ACQUIRE_GLOBAL, type LocalLevel, WAIT, word } from './levels.js';

export class LocalTts implements LocalLevel {
  readonly kind = 'tts';
  immediate = false;
  private readonly shm: NodeSharedWindow;
  private readonly m: Int32Array;
  private readonly stateIx: number;
  private readonly succIx: number;
  private readonly backoff: Backoff;

  constructor(ctx: LockContext, waiter: Waiter, minBackoff = 1, maxBackoff = 16) {
    const layout = new WindowLayout().field('state', 4).field('succ', 4);
    this.stateIx = word(layout.at('state'));
    this.succIx = word(layout.at('succ'));
    this.shm = new NodeSharedWindow(ctx.node, ctx.isLeader ? layout.size : 0);
    this.m = this.shm.part(0);
    if (ctx.isLeader) {
      Atomics.store(this.m, this.stateIx, ACQUIRE_GLOBAL);
      Atomics.store(this.m, this.succIx, 0);
    }
    this.backoff = new Backoff(waiter, minBackoff, maxBackoff);
    ctx.node.Barrier();
  }

  acquire(): number {
    const m = this.m;
    Atomics.store(m, this.succIx, 1);
    let first = true;
    for (;;) {
      // test, then test-and-set
      if (Atomics.load(m, this.stateIx) !== WAIT) {
        const s = Atomics.exchange(m, this.stateIx, WAIT);
        if (s !== WAIT) {
          Atomics.store(m, this.succIx, 0);
          this.backoff.reset();
          this.immediate = first;
          return s;
        }
      }
      first = false;
      if (Atomics.load(m, this.succIx) === 0) Atomics.store(m, this.succIx, 1);
      this.backoff.backoff();
    }
  }

  release(status: number): void {
    Atomics.store(this.m, this.stateIx, status);
  }

  alone(): boolean {
    return Atomics.load(this.m, this.succIx) === 0;
  }

  free(): void {
    this.shm.free();
  }
}

export class LocalTkt implements LocalLevel {
  readonly kind = 'tkt';
  immediate = false;
  private readonly shm: NodeSharedWindow;
  private readonly m: Int32Array;
  private readonly nextIx: number;
  private readonly servingIx: number;
  private readonly topIx: number;

  constructor(ctx: LockContext, private readonly waiter: Waiter) {
    const layout = new WindowLayout().field('next', 4).field('serving', 4).field('top', 4);
    this.nextIx = word(layout.at('next'));
    this.servingIx = word(layout.at('serving'));
    this.topIx = word(layout.at('top'));
    this.shm = new NodeSharedWindow(ctx.node, ctx.isLeader ? layout.size : 0);
    this.m = this.shm.part(0);
    if (ctx.isLeader) {
      Atomics.store(this.m, this.nextIx, 0);
      Atomics.store(this.m, this.servingIx, 0);
      Atomics.store(this.m, this.topIx, ACQUIRE_GLOBAL);
    }
    ctx.node.Barrier();
  }

  acquire(): number {
    const m = this.m;
    const t = Atomics.add(m, this.nextIx, 1);
    this.immediate = Atomics.load(m, this.servingIx) === t;
    if (!this.immediate) {
      this.waiter.reset();
      while (Atomics.load(m, this.servingIx) !== t) this.waiter.pause();
      this.waiter.reset();
    }
    return Atomics.load(m, this.topIx);
  }

  release(status: number): void {
    Atomics.store(this.m, this.topIx, status);
    Atomics.add(this.m, this.servingIx, 1);
  }

  alone(): boolean {
    // (next - serving) | 0: wrap-safe count of ranks that took a ticket, this holder included.
    return ((Atomics.load(this.m, this.nextIx) - Atomics.load(this.m, this.servingIx)) | 0) <= 1;
  }

  free(): void {
    this.shm.free();
  }
}

export class LocalMcs implements LocalLevel {
  readonly kind = 'mcs';
  immediate = false;
  private readonly shm: NodeSharedWindow;
  private readonly parts: Int32Array[] = [];
  private readonly mine: Int32Array;
  private readonly tailHome: Int32Array;
  private readonly statusIx: number;
  private readonly nextIx: number;
  private readonly tailIx: number;
  private readonly me: number;

  constructor(ctx: LockContext, private readonly waiter: Waiter) {
    const layout = new WindowLayout().field('status', 4).field('next', 4).field('tail', 4);
    this.statusIx = word(layout.at('status'));
    this.nextIx = word(layout.at('next'));
    this.tailIx = word(layout.at('tail'));
    this.shm = new NodeSharedWindow(ctx.node, layout.size);
    for (let r = 0; r < ctx.nodeSize; r++) this.parts.push(this.shm.part(r));
    this.me = ctx.nodeRank;
    this.mine = this.parts[this.me]!;
    this.tailHome = this.parts[0]!;
    Atomics.store(this.mine, this.statusIx, WAIT);
    Atomics.store(this.mine, this.nextIx, -1);
    if (ctx.isLeader) Atomics.store(this.tailHome, this.tailIx, -1);
    ctx.node.Barrier();
  }

  acquire(): number {
    const mine = this.mine;
    Atomics.store(mine, this.statusIx, WAIT);
    Atomics.store(mine, this.nextIx, -1);
    const pred = Atomics.exchange(this.tailHome, this.tailIx, this.me);
    if (pred === -1) {
      this.immediate = true;
      return ACQUIRE_GLOBAL;
    }
    this.immediate = false;
    Atomics.store(this.parts[pred]!, this.nextIx, this.me);
    let s: number;
    this.waiter.reset();
    while ((s = Atomics.load(mine, this.statusIx)) === WAIT) this.waiter.pause();
    this.waiter.reset();
    return s;
  }

  release(status: number): void {
    const mine = this.mine;
    let succ = Atomics.load(mine, this.nextIx);
    if (succ === -1) {
      if (Atomics.compareExchange(this.tailHome, this.tailIx, this.me, -1) === this.me) return;
      this.waiter.reset();
      while ((succ = Atomics.load(mine, this.nextIx)) === -1) this.waiter.pause();
      this.waiter.reset();
    }
    Atomics.store(this.parts[succ]!, this.statusIx, status);
  }

  alone(): boolean {
    return Atomics.load(this.mine, this.nextIx) === -1;
  }

  free(): void {
    this.shm.free();
  }
}

export class LocalClh implements LocalLevel {
  readonly kind = 'clh';
  immediate = false;
  private readonly shm: NodeSharedWindow;
  /** Node id → [its Int32Array part, its word index]. */
  private readonly nodeMem: Int32Array[] = [];
  private readonly nodeIx: number[] = [];
  private readonly tailHome: Int32Array;
  private readonly tailIx: number;
  private myreq: number;
  private watch = -1;

  constructor(ctx: LockContext, private readonly waiter: Waiter) {
    const layout = new WindowLayout().field('node', 4).field('tail', 4).field('dummy', 4);
    this.shm = new NodeSharedWindow(ctx.node, layout.size);
    for (let r = 0; r < ctx.nodeSize; r++) {
      this.nodeMem.push(this.shm.part(r));
      this.nodeIx.push(word(layout.at('node')));
    }
    this.tailHome = this.shm.part(0);
    this.tailIx = word(layout.at('tail'));
    // the dummy node, id nodeSize, in part(0)
    this.nodeMem.push(this.tailHome);
    this.nodeIx.push(word(layout.at('dummy')));
    this.myreq = ctx.nodeRank;
    if (ctx.isLeader) {
      Atomics.store(this.tailHome, word(layout.at('dummy')), ACQUIRE_GLOBAL);
      Atomics.store(this.tailHome, this.tailIx, ctx.nodeSize);
    }
    ctx.node.Barrier();
  }

  acquire(): number {
    Atomics.store(this.nodeMem[this.myreq]!, this.nodeIx[this.myreq]!, WAIT);
    const watch = Atomics.exchange(this.tailHome, this.tailIx, this.myreq);
    this.watch = watch;
    const wm = this.nodeMem[watch]!;
    const wi = this.nodeIx[watch]!;
    let s = Atomics.load(wm, wi);
    this.immediate = s !== WAIT;
    if (!this.immediate) {
      this.waiter.reset();
      while ((s = Atomics.load(wm, wi)) === WAIT) this.waiter.pause();
      this.waiter.reset();
    }
    return s;
  }

  release(status: number): void {
    Atomics.store(this.nodeMem[this.myreq]!, this.nodeIx[this.myreq]!, status);
    this.myreq = this.watch;
  }

  alone(): boolean {
    return Atomics.load(this.tailHome, this.tailIx) === this.myreq;
  }

  free(): void {
    this.shm.free();
  }
}
