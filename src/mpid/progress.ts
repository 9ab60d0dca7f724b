import { ranksOutnumberCores } from '../common/cores.js';
import { addon } from '../native/addon.js';
import type { WakeHandle } from './device.js';
import type { Engine } from './engine.js';
import { STATE_DONE, type Request } from './request.js';
import { answerStateRequest, stateRequestFlag } from './state-request.js';

/** Spin budgets: a rank with a core of its own spins long; an oversubscribed one yields soon. */
const SPIN_DEDICATED = 20_000;
const SPIN_SHARED = 50;
/**
 * A rank with the short budget (ranks outnumber cores, or TSMPI_SPIN_POLLS of 50 or less) gives
 * its core away this many times, a spin budget apart, before it sleeps: the peer it waits for is
 * often runnable on the same core, and a yield hands over in a microsecond where a futex wake
 * costs 25 us or more on a VM.
 */
const YIELDS_SHARED = 16;

/**
 * How a rank waits. Blocking calls drive the engine themselves: poll; after `spinBudget`
 * idle polls announce sleep on the rank's doorbell, poll once more, and sleep on the futex
 * until a peer rings. Awaited requests use the same doorbell through a native waiter thread,
 * so the event loop stays free and an idle rank uses no CPU.
 */
export class Progress {
  private idlePolls = 0;
  private readonly waiters: { check: () => boolean; resolve: () => void }[] = [];
  private driving = false;
  private yields = 0;
  private readonly yieldBudget: number;
  sleeps = 0;

  constructor(private readonly engine: Engine, private readonly wake: WakeHandle | null,
              readonly spinBudget: number, private readonly sleepTimeoutMs: number) {
    this.yieldBudget = spinBudget <= SPIN_SHARED ? YIELDS_SHARED : 0;
  }

  /** Whether this rank spins with the long budget: it has a core to itself (ranks do not outnumber cores). */
  get hasOwnCore(): boolean {
    return this.spinBudget > SPIN_SHARED;
  }

  static spinBudgetFor(localRanks: number, configured: number): number {
    if (configured > 0) return configured;
    return ranksOutnumberCores(localRanks) ? SPIN_SHARED : SPIN_DEDICATED;
  }

  /** One step of a blocking wait: progress, or after the spin budget, sleep until woken. */
  step(): void {
    if (this.engine.progress() > 0) {
      this.idlePolls = 0;
      this.yields = 0;
      return;
    }
    if (++this.idlePolls < this.spinBudget || this.wake === null) return;
    this.idlePolls = 0;
    if (this.yields < this.yieldBudget) {
      this.yields++;
      addon.schedYield();
      return;
    }
    this.yields = 0;
    const seen = this.wake.announce();
    if (this.engine.progress() === 0) {
      // A state request (state-request.ts) is answered here, from inside the blocked call: a
      // request that came before the announce is seen now; one that comes later rings the bell,
      // so the sleep ends at once and it is seen after. Nothing on the message path pays for it.
      if (Atomics.load(stateRequestFlag, 0) !== 0) answerStateRequest('blocked');
      this.sleeps++;
      this.wake.sleep(seen, this.sleepTimeoutMs);
      if (Atomics.load(stateRequestFlag, 0) !== 0) answerStateRequest('blocked');
    }
    this.wake.retract();
  }

  /**
   * Ends the sleep of the awaiting loop (drive): a request was completed outside progress, by
   * the program (Grequest.Complete), and no packet will ring the doorbell for it.
   */
  wakeAwaiters(): void {
    if (this.waiters.length > 0 && this.wake !== null) this.wake.poke();
  }

  /** Requests awaited now (whenDone, waitUntil): what a state report says of an idle event loop. */
  get awaitedCount(): number {
    return this.waiters.length;
  }

  /** Blocks until `r` is complete. */
  wait(r: Request): void {
    while (r.state !== STATE_DONE) this.step();
  }

  /** Resolves when `r` completes, without blocking the event loop. */
  whenDone(r: Request): Promise<void> {
    return this.waitUntil(() => r.state === STATE_DONE);
  }

  /**
   * Resolves once `check()` holds; checked after every bit of progress and every wake-up of
   * the rank's doorbell, never by a timer.
   */
  waitUntil(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ check, resolve });
      if (!this.driving) void this.drive();
    });
  }

  private settle(): void {
    let kept = 0;
    for (const w of this.waiters) {
      if (w.check()) w.resolve();
      else this.waiters[kept++] = w;
    }
    this.waiters.length = kept;
  }

  /** The asynchronous waiting loop: runs while any request is awaited. */
  private async drive(): Promise<void> {
    this.driving = true;
    try {
      while (this.waiters.length > 0) {
        const moved = this.engine.progress();
        this.settle();
        if (this.waiters.length === 0) break;
        if (moved > 0 || this.wake === null) {
          await yieldToEventLoop();
          continue;
        }
        const seen = this.wake.announce();
        if (this.engine.progress() === 0) await this.wake.sleepAsync(seen, this.sleepTimeoutMs);
        this.wake.retract();
        this.settle();
      }
    } finally {
      this.driving = false;
    }
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
