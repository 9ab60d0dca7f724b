import { addon } from '../native/addon.js';
import { BootstrapError } from './errors.js';
import { segmentName } from './segment-names.js';
import { loadShared } from './shared-load.js';

/**
 * A rank's doorbell: a small shared segment of its own, so that it belongs to no device. The
 * rank sleeps on it; peers that share memory with it (ch_shmem's, and the memory-based
 * collectives and one-sided locks above) ring it; native threads (ch_sci's interrupt relay, its
 * DMA completion) ring it from inside the process.
 *
 *   word  meaning
 *   0     MAGIC ('TSBL'), written last by the owner: a peer that sees it sees the rest
 *   1     owner's world rank
 *   2     DOORBELL: bumped by whoever wants the owner to look; the owner sleeps on it
 *   3     SLEEPING: how many of the owner's waiters sleep on the doorbell (others ring only then)
 *   4     ARMED: set by each announcement, taken (exchanged for 0) by the one peer that wakes
 *
 * Sleeping without missing a wake-up:
 *
 *   owner:  SLEEPING += 1; seen = DOORBELL; ARMED = 1; check every queue; futex_wait(DOORBELL, seen); SLEEPING -= 1
 *   peer:   publish packet; if SLEEPING and exchange(ARMED, 0): DOORBELL += 1; futex_wake(DOORBELL)
 *
 * SLEEPING counts sleepers, since a blocking call and the async waiter may sleep at once.
 * Both sides use sequentially consistent atomics, so either the owner's re-check sees the
 * packet or the peer sees SLEEPING and goes on to ARMED. Where peers publish with plain stores
 * instead, the owner fences their CPUs after SLEEPING += 1 (mpid/publish-fence.ts), which gives
 * the same either-or.
 *
 * ARMED is why only the first peer after an announcement pays the wake (a system call and, on
 * a VM, an exit: ~3 us here), not every peer until the woken owner runs and retracts: on 4 ranks
 * of 2 cores a rank releasing a Barrier and then broadcasting rang each sleeper twice. A peer
 * that finds ARMED taken may skip the wake: the peer that took it bumped DOORBELL after the
 * owner read `seen` (the owner arms only after reading it), so the owner's sleep ends or never
 * starts and it looks again; and if the owner had not armed yet, the exchange ordered our packet
 * before its check.
 * Peers pay one load per packet and a system call only when the owner sleeps.
 */
const MAGIC = 0x4c425354;
const WORD_MAGIC = 0;
const WORD_RANK = 1;
const WORD_DOORBELL = 2;
/** The word a rank sleeps on (the native state-request handler rings it too). */
export const DOORBELL_WORD = WORD_DOORBELL;
const WORD_SLEEPING = 3;
const WORD_ARMED = 4;
const BELL_BYTES = 64;

/** The calling rank's own doorbell. */
export class Doorbell {
  readonly cells: Int32Array;
  readonly index = WORD_DOORBELL;
  private fenceOthers = false;

  private constructor(readonly name: string, memory: SharedArrayBuffer, private owned: boolean) {
    this.cells = new Int32Array(memory);
  }

  /** Creates the rank's doorbell under the job's segment names; the caller unlinks it once peers attached. */
  static create(jobId: string, rank: number): Doorbell {
    const name = segmentName(jobId, rank, 'bell');
    const bell = new Doorbell(name, addon.shmCreate(name, BELL_BYTES), true);
    bell.cells[WORD_RANK] = rank;
    Atomics.store(bell.cells, WORD_MAGIC, MAGIC);
    return bell;
  }

  /**
   * From now on every announcement fences the CPUs of the peers, which then publish with plain
   * stores (mpid/publish-fence.ts): what they stored before is visible to our last check.
   */
  fenceOthersBeforeSleep(): void {
    this.fenceOthers = true;
  }

  announce(): number {
    Atomics.add(this.cells, WORD_SLEEPING, 1);
    const seen = Atomics.load(this.cells, WORD_DOORBELL);
    Atomics.store(this.cells, WORD_ARMED, 1);
    if (this.fenceOthers) addon.fenceOthers();
    return seen;
  }

  sleep(seen: number, timeoutMs: number): void {
    addon.futexWait(this.cells, WORD_DOORBELL, seen, timeoutMs);
  }

  sleepAsync(seen: number, timeoutMs: number): Promise<unknown> {
    return addon.futexWaitAsync(this.cells, WORD_DOORBELL, seen, timeoutMs);
  }

  retract(): void {
    Atomics.sub(this.cells, WORD_SLEEPING, 1);
  }

  /** How many waiters of this process announced sleep. */
  sleepers(): number {
    return Atomics.load(this.cells, WORD_SLEEPING);
  }

  poke(): void {
    Atomics.add(this.cells, WORD_DOORBELL, 1);
    addon.futexWake(this.cells, WORD_DOORBELL, Infinity);
  }

  /** Removes the name once every peer has attached (the mappings stay valid): nothing is left in /dev/shm. */
  unlink(): void {
    if (!this.owned) return;
    this.owned = false;
    addon.shmUnlink(this.name);
  }
}

/** Another rank's doorbell, mapped: what wakes it. */
export class PeerBell {
  private constructor(private readonly cells: Int32Array) {}

  /** Attaches to rank `rank`'s doorbell and checks that it is the one its business card promised. */
  static attach(name: string, rank: number): PeerBell {
    let memory: SharedArrayBuffer;
    try {
      memory = addon.shmOpen(name);
    } catch (e) {
      throw new BootstrapError(`cannot attach to rank ${rank}'s doorbell ${name}: ${(e as Error).message}`, { cause: e });
    }
    const cells = new Int32Array(memory);
    const magic = Atomics.load(cells, WORD_MAGIC);
    if (magic !== MAGIC || cells[WORD_RANK] !== rank) {
      throw new BootstrapError(`segment ${name} is not rank ${rank}'s doorbell (magic 0x${(magic >>> 0).toString(16)}, ` +
        `rank ${cells[WORD_RANK]})`);
    }
    return new PeerBell(cells);
  }

  ring(): boolean {
    if (loadShared(this.cells, WORD_SLEEPING) === 0 || Atomics.exchange(this.cells, WORD_ARMED, 0) === 0) return false;
    Atomics.add(this.cells, WORD_DOORBELL, 1);
    addon.futexWake(this.cells, WORD_DOORBELL, Infinity);
    return true;
  }
}
