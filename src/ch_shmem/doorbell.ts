import { addon } from '../native/addon.js';
import type { WakeHandle } from '../mpid/device.js';
import { WORD_DOORBELL, WORD_SLEEPING } from './rank-segment.js';

/**
 * Sleeping on a rank's doorbell without missing a wake-up:
 *
 *   owner:  SLEEPING += 1; seen = DOORBELL; check every queue; futex_wait(DOORBELL, seen); SLEEPING -= 1
 *   peer:   publish packet; if SLEEPING: DOORBELL += 1; futex_wake(DOORBELL)
 *
 * SLEEPING counts sleepers, since a blocking call and the async waiter may sleep at once.
 * Both sides use sequentially consistent atomics, so either the owner's re-check sees the
 * packet or the peer sees SLEEPING and bumps DOORBELL (then futex_wait returns at once).
 * Peers pay one atomic load per packet and a system call only when the owner sleeps.
 */
export class DoorbellWake implements WakeHandle {
  constructor(private readonly words: Int32Array) {}

  announce(): number {
    Atomics.add(this.words, WORD_SLEEPING, 1);
    return Atomics.load(this.words, WORD_DOORBELL);
  }

  sleep(seen: number, timeoutMs: number): void {
    addon.futexWait(this.words, WORD_DOORBELL, seen, timeoutMs);
  }

  sleepAsync(seen: number, timeoutMs: number): Promise<unknown> {
    return addon.futexWaitAsync(this.words, WORD_DOORBELL, seen, timeoutMs);
  }

  retract(): void {
    Atomics.sub(this.words, WORD_SLEEPING, 1);
  }

  /** How many waiters of this process announced sleep. */
  sleepers(): number {
    return Atomics.load(this.words, WORD_SLEEPING);
  }

  poke(): void {
    Atomics.add(this.words, WORD_DOORBELL, 1);
    addon.futexWake(this.words, WORD_DOORBELL, Infinity);
  }
}

/** Wakes the owner of `words` if it sleeps; returns whether it had to. */
export function ringDoorbell(words: Int32Array): boolean {
  if (Atomics.load(words, WORD_SLEEPING) === 0) return false;
  Atomics.add(words, WORD_DOORBELL, 1);
  addon.futexWake(words, WORD_DOORBELL, Infinity);
  return true;
}
