// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { WindowChannel } from './channel.js';
import type { LockAreas } from './lock-area.js';

/**
 * The target's side of its window lock under policy cpu (research 004's two-sided path): ranks
 * of other nodes, which cannot take the lock with CPU atomics, send LOCK to our agent; it takes
 * our own lock for them in arrival order and answers when it has it. A request that must wait
 * stays queued, and the lock area records that the agent waits, so a releaser of our node
 * wakes us (lock-area.ts).
 */
export class LockGrants {
  /** Lock requests not granted yet, in arrival order. */
  private readonly waiting: { origin: number; type: number; tag: number }[] = [];

  constructor(private readonly locks: LockAreas, private readonly channel: WindowChannel) {}

  get pending(): boolean {
    return this.waiting.length > 0;
  }

  /** LOCK from `origin` (reply tag `tag`). */
  request(origin: number, lockType: number, tag: number): void {
    this.waiting.push({ origin, type: lockType, tag });
    this.grant();
  }

  /** UNLOCK from a rank we granted the lock to. */
  release(lockType: number): void {
    this.locks.agentRelease(lockType);
    this.grant();
  }

  /**
   * Grants queued requests in order, taking our lock for each (ranks of our node may hold it);
   * stops at the first that must wait. Returns the grants made.
   */
  grant(): number {
    let granted = 0;
    while (this.waiting.length > 0) {
      const w = this.waiting[0]!;
      if (!this.locks.agentTryTake(w.type)) return granted;
      this.waiting.shift();
      this.channel.reply(w.origin, w.tag, new Uint8Array(0));
      granted++;
    }
    this.locks.agentIdle();
    return granted;
  }
}
