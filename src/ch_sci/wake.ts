import type { WakeHandle } from '../mpid/device.js';
import type { DoorbellWake } from '../ch_shmem/doorbell.js';
import type { SciMap, Sequence } from '../sisci/index.js';

/** What the wake handle needs of a ch_sci peer: our one-sided area in its segment, a sequence for the barrier. */
export interface SleepNotice {
  readonly osMap: SciMap;
  readonly ringSequence: Sequence;
}

/**
 * The rank's doorbell (ch_shmem's futex cell) extended to ch_sci peers, which cannot touch our
 * memory's futex: a remote interrupt, relayed by a native thread into the same cell, wakes us.
 *
 * Poll mode: before sleeping, the rank stores ASLEEP = 1 into its one-sided area in every
 * ch_sci peer's short segment and issues a store barrier, then re-checks its queues and sleeps;
 * a peer reads that word locally after each message it sends (whose sequence check contained a
 * store barrier) and triggers our interrupt while it is set. So neither side misses the other,
 * and a busy rank costs its peers nothing but a local load per message. Thread mode: peers
 * trigger on every message, no announcement is needed.
 */
export class SciWake implements WakeHandle {
  private announced = 0;

  constructor(private readonly doorbell: DoorbellWake, private readonly threadMode: boolean,
              private readonly peers: () => readonly SleepNotice[], private readonly asleepWord: number) {}

  announce(): number {
    const seen = this.doorbell.announce();
    if (this.announced++ === 0 && !this.threadMode) this.tellPeers(1);
    return seen;
  }

  sleep(seen: number, timeoutMs: number): void {
    this.doorbell.sleep(seen, timeoutMs);
  }

  sleepAsync(seen: number, timeoutMs: number): Promise<unknown> {
    return this.doorbell.sleepAsync(seen, timeoutMs);
  }

  retract(): void {
    if (--this.announced === 0 && !this.threadMode) this.tellPeers(0);
    this.doorbell.retract();
  }

  /** How many waiters of this process announced sleep. */
  sleepers(): number {
    return this.doorbell.sleepers();
  }

  poke(): void {
    this.doorbell.poke();
  }

  private tellPeers(asleep: number): void {
    const peers = this.peers();
    for (let i = 0; i < peers.length; i++) peers[i]!.osMap.words[this.asleepWord] = asleep;
    if (asleep === 1 && peers.length > 0) peers[0]!.ringSequence.storeBarrier();
  }
}
