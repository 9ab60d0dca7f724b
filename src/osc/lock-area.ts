// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { ATOMIC_ADD, ATOMIC_CSWAP, type RemoteAccessMemory, type RmaService } from '../mpid/memory.js';
import { LOCK_EXCLUSIVE } from './codes.js';
import { LOCK_AGENT, LOCK_CPU, LOCK_DEVICE, type LockPolicy } from './select.js';
import { oscCounters } from './counters.js';

/**
 * The passive-target lock of one window part and the serialisation of read-modify-writes on
 * it, research 004's hybrid lock made fully one-sided for SCI (003b §3.4.3).
 *
 * Every rank's part has a lock area, in memory its owner exposes (a node segment, or an
 * exported SISCI segment that ranks of other nodes map). The area holds STATE (the window
 * lock: WRITER bit, or the number of readers) and MODE:
 *   cpu    ranks that share memory with the owner take STATE with CPU compare-exchange and
 *          apply accumulates with CPU atomics: a few instructions, no message;
 *   device ranks of other nodes, which have remote loads and stores but no remote atomics
 *          (SCI), get a mutex by Lamport's fast mutual exclusion algorithm [Lamport, TOCS 1987]
 *          on the words X, Y, B[i] (what SCI-MPICH's locks used, 003b §3.4.3) and change STATE
 *          or apply an accumulate by plain loads and stores while they hold it. In device
 *          mode the owner's node uses the mutex too.
 * Migration (004 §3.3) is one-sided here, so no manager and no help from the owner is needed
 * (004 sends a message to the owner's lock manager; then a target that computes would stall
 * every migration, which issue 6 item 4 forbids): a rank of another node takes the mutex,
 * stores MODE = device, then waits until no rank of the owner's node is inside a cpu-mode
 * step (each raises INFLIGHT[i] before it reads MODE and lowers it after its compare-exchange:
 * with sequentially consistent loads and stores either it sees device, or the migrator sees
 * its flag and waits, which takes one step since it runs inside an MPI call). A rank of the
 * owner's node that finds device mode takes the mutex and, when no rank of another node
 * announced that it waits (REMOTE_WAIT), stores MODE = cpu (004's policy: migrate on a
 * mismatch; the waiting check keeps remote waiters from starving). Policies
 * (TSMPI_RMA_LOCK_POLICY): migrate, device (device mode from the start, never back), cpu
 * (cpu mode for good: ranks of other nodes ask the owner's window agent, 004's two-sided
 * path, which needs the owner's progress). Migrations are counted in the area.
 *
 * Which ranks count as "of the owner's node" is the devices' word, not a guess: each area
 * carries the method select.ts chose from the capabilities it is reached with (LOCK_CPU where
 * they include CPU atomics, LOCK_MUTEX, or LOCK_AGENT under policy cpu). ch_sci declares no
 * remote atomics, so across SCI nodes the lock is Lamport's mutex.
 *
 * A network device with atomics (ch_ucx, LOCK_DEVICE: windows across hosts, 004 on a real
 * network): ranks of other hosts take STATE with the device's compare-and-swap (exclusive) or
 * fetch-and-add (shared, undone when a writer holds it), and release it with fetch-and-add;
 * the first one that finds cpu mode swaps MODE to device (a device compare-and-swap) and counts
 * the migration. Ranks of the owner's host keep CPU atomics on the same words in both modes
 * ("mixed" areas): UCX does its atomics over tcp in software at the target, with the target
 * CPU's atomic instructions (ucp's amo_sw), so the two are atomic together, and Lamport's
 * mutex (plain stores) is never used on a word a device atomic may change. In device mode a
 * rank of the owner's host yields to announced remote waiters (REMOTE_WAIT), and moves the
 * area back to cpu mode, counted, when none waits (004's policy).
 */

/** Word offsets in an area. */
const STATE = 0;
const MODE = 1;
const X = 2;
const Y = 3;
const MIGRATIONS = 4;
const REMOTE_WAIT = 5;
/** The owner's agent has requests blocked on STATE (policy cpu): a releaser of its node wakes it. */
const AGENT_WAITING = 6;
/** B[i] at B_AT + i, INFLIGHT[i] at B_AT + n + i. */
const B_AT = 16;

export const WRITER = 1 << 30;
export const MODE_CPU = 0;
export const MODE_DEVICE = 1;

/** Bytes of one area for a window of `n` ranks (whole cache lines). */
export function lockAreaBytes(n: number): number {
  return Math.ceil(((B_AT + 2 * n) * 4) / 64) * 64;
}

/** Sets up a fresh area (before anyone maps it). */
export function initLockArea(words: Int32Array, at: number, policy: LockPolicy): void {
  words[at + MODE] = policy === 'device' ? MODE_DEVICE : MODE_CPU;
}

/** One target's area as this rank reaches it. */
export interface LockArea {
  readonly mem: RemoteAccessMemory;
  /** Word index of the area in mem.words. */
  readonly at: number;
  /** How this rank takes the lock (select.ts: LOCK_CPU, LOCK_MUTEX, LOCK_AGENT or LOCK_DEVICE). */
  readonly method: number;
  /** LOCK_DEVICE: where the area lies for the device's atomics. */
  readonly device?: DeviceArea;
}

/** An area reached by a network device's atomics: `base` is its byte offset in the region of `key`. */
export interface DeviceArea {
  readonly rma: RmaService;
  /** The owner's world rank. */
  readonly target: number;
  readonly key: number;
  readonly base: number;
}

/** How a read-modify-write on a target's part may proceed (see beginUpdate). */
export const UPDATE_CPU = 0;
export const UPDATE_DEVICE = 1;
export const UPDATE_AGENT = 2;

/** Whether STATE value `v` admits a holder of `lockType`. */
export function isFree(v: number, lockType: number): boolean {
  return lockType === LOCK_EXCLUSIVE ? v === 0 : (v & WRITER) === 0;
}

/** Takes STATE at words[at] for `lockType` if it is free now (one compare-exchange). */
export function tryTake(words: Int32Array, at: number, lockType: number): boolean {
  const v = Atomics.load(words, at);
  return isFree(v, lockType) && Atomics.compareExchange(words, at, v, lockType === LOCK_EXCLUSIVE ? WRITER : v + 1) === v;
}

export class LockAreas {
  private readonly inflight: number;
  /** beginBulkUpdate moved the area from cpu mode (endBulkUpdate moves it back). */
  private bulkFlipped = false;
  /** Device areas whose mode this rank asked for at least once. */
  private readonly claimed = new Set<DeviceArea>();

  constructor(
    /** Indexed by window rank. */
    private readonly areas: readonly LockArea[],
    private readonly me: number,
    private readonly n: number,
    readonly policy: LockPolicy,
    /** One step of a wait: drive progress, nap when nothing moved. */
    private readonly idle: () => void,
    /** Ranks of other hosts use device atomics on these areas (see the class comment). */
    private readonly mixed = false,
  ) {
    this.inflight = B_AT + n + me;
  }

  /** Mode changes of our own part's lock so far. */
  get migrations(): number {
    const a = this.areas[this.me]!;
    return Atomics.load(a.mem.words, a.at + MIGRATIONS);
  }

  /** Whether this rank asks `t`'s agent for its lock (a rank of another node, policy cpu). */
  viaAgent(t: number): boolean {
    return this.areas[t]!.method === LOCK_AGENT;
  }

  /** Takes `t`'s window lock for `lockType` (not for viaAgent targets). */
  acquire(t: number, lockType: number): void {
    const a = this.areas[t]!;
    const w = a.mem.words;
    if (a.method === LOCK_DEVICE) {
      this.deviceAcquire(a.device!, lockType);
      return;
    }
    if (a.method === LOCK_CPU && this.mixed) {
      this.mixedAcquire(a, lockType);
      return;
    }
    if (a.method === LOCK_CPU) {
      for (;;) {
        if (this.cpuStep(a)) {
          const ok = tryTake(w, a.at + STATE, lockType);
          Atomics.store(w, a.at + this.inflight, 0);
          if (ok) return;
        } else {
          this.mutexAcquire(a);
          if (this.migrateBack(a)) continue;
          const ok = tryTake(w, a.at + STATE, lockType);
          this.mutexRelease(a);
          if (ok) return;
        }
        this.idle();
      }
    }
    let announced = false;
    for (;;) {
      this.enterDevice(a);
      const v = Atomics.load(w, a.at + STATE);
      if (isFree(v, lockType)) {
        Atomics.store(w, a.at + STATE, lockType === LOCK_EXCLUSIVE ? WRITER : v + 1);
        if (announced) Atomics.store(w, a.at + REMOTE_WAIT, Atomics.load(w, a.at + REMOTE_WAIT) - 1);
        this.mutexRelease(a);
        return;
      }
      if (!announced) Atomics.store(w, a.at + REMOTE_WAIT, Atomics.load(w, a.at + REMOTE_WAIT) + 1);
      announced = true;
      this.mutexRelease(a);
      this.idle();
    }
  }

  /** Releases a hold of `lockType` on `t`'s lock; true when the owner's agent waits for it (wake it). */
  release(t: number, lockType: number): boolean {
    const a = this.areas[t]!;
    const w = a.mem.words;
    const delta = lockType === LOCK_EXCLUSIVE ? WRITER : 1;
    if (a.method === LOCK_DEVICE) {
      // Posted: nothing waits for the release (our next operation on the area follows it on
      // the same endpoint, and the next flush of the target completes it).
      const d = a.device!;
      d.rma.post!(d.target, d.key, d.base + STATE * 4, ATOMIC_ADD, 4, BigInt(-delta));
      return false;
    }
    const local = a.method === LOCK_CPU;
    if (local && this.mixed) {
      Atomics.sub(w, a.at + STATE, delta);
    } else if (local && this.cpuStep(a)) {
      Atomics.sub(w, a.at + STATE, delta);
      Atomics.store(w, a.at + this.inflight, 0);
    } else {
      if (local) this.mutexAcquire(a);
      else this.enterDevice(a);
      Atomics.store(w, a.at + STATE, Atomics.load(w, a.at + STATE) - delta);
      this.mutexRelease(a);
    }
    return local && Atomics.load(w, a.at + AGENT_WAITING) !== 0;
  }

  /**
   * Before a read-modify-write on `t`'s part: UPDATE_CPU (apply with CPU atomics, then
   * endUpdate), UPDATE_DEVICE (the mutex is held: apply with plain loads and stores, then
   * endUpdate), or UPDATE_AGENT (send it to the owner's agent).
   */
  beginUpdate(t: number, cpuCapable: boolean): number {
    const a = this.areas[t]!;
    if (a.method !== LOCK_CPU) {
      if (a.method === LOCK_AGENT) return UPDATE_AGENT;
      this.enterDevice(a);
      return UPDATE_DEVICE;
    }
    // Elements CPU atomics cannot do (pair types, unaligned) take the mutex in either mode:
    // everyone who touches them does, so they stay atomic among themselves.
    // Mixed areas: CPU atomics whatever the mode (they are atomic with the device's); other
    // elements never go by device atomics, so the mutex keeps them atomic among themselves.
    if (this.mixed) {
      if (cpuCapable) return UPDATE_CPU;
      this.mutexAcquire(a);
      return UPDATE_DEVICE;
    }
    for (;;) {
      if (cpuCapable && this.cpuStep(a)) return UPDATE_CPU;
      this.mutexAcquire(a);
      if (!cpuCapable || !this.migrateBack(a)) return UPDATE_DEVICE;
    }
  }

  /**
   * Before a long read-modify-write on `t`'s part, done as one native loop of plain loads and
   * stores (an element-by-element CPU atomic costs ~8 ns, the loop a fraction of that): takes
   * the mutex and holds the area in device mode for its length, cpu-mode steps in flight waited
   * out as enterDevice does, so the loop is atomic with every other update whichever path that
   * takes. endBulkUpdate puts the mode back (no migration: no rank of another node took part).
   * False for areas whose elements other hosts' device atomics update without the mutex
   * (mixed) and for areas not ours to update with the CPU: the caller takes beginUpdate's path.
   */
  beginBulkUpdate(t: number): boolean {
    const a = this.areas[t]!;
    if (this.mixed || a.method !== LOCK_CPU) return false;
    this.mutexAcquire(a);
    const w = a.mem.words;
    this.bulkFlipped = Atomics.load(w, a.at + MODE) === MODE_CPU;
    if (this.bulkFlipped) {
      Atomics.store(w, a.at + MODE, MODE_DEVICE);
      a.mem.storeBarrier();
      for (let i = 0; i < this.n; i++) while (Atomics.load(w, a.at + B_AT + this.n + i) !== 0) this.idle();
    }
    return true;
  }

  endBulkUpdate(t: number): void {
    const a = this.areas[t]!;
    if (this.bulkFlipped) Atomics.store(a.mem.words, a.at + MODE, MODE_CPU);
    this.bulkFlipped = false;
    this.mutexRelease(a);
  }

  endUpdate(t: number, how: number): void {
    const a = this.areas[t]!;
    if (how === UPDATE_CPU) {
      if (!this.mixed) Atomics.store(a.mem.words, a.at + this.inflight, 0);
    }
    else if (how === UPDATE_DEVICE) this.mutexRelease(a);
  }

  // ---------------------------------------------------------------- the owner's agent (policy cpu)

  /** The agent takes our own lock for a rank of another node; on failure it says that it waits. */
  agentTryTake(lockType: number): boolean {
    const a = this.areas[this.me]!;
    if (tryTake(a.mem.words, a.at + STATE, lockType)) return true;
    Atomics.store(a.mem.words, a.at + AGENT_WAITING, 1);
    return false;
  }

  agentRelease(lockType: number): void {
    const a = this.areas[this.me]!;
    Atomics.sub(a.mem.words, a.at + STATE, lockType === LOCK_EXCLUSIVE ? WRITER : 1);
  }

  agentIdle(): void {
    const a = this.areas[this.me]!;
    Atomics.store(a.mem.words, a.at + AGENT_WAITING, 0);
  }

  // ---------------------------------------------------------------- across hosts (device atomics)

  /** A rank of another host: device mode (counted when it changes), then STATE by device atomics. */
  private deviceAcquire(d: DeviceArea, lockType: number): void {
    let announced = false;
    // The mode is asked for device on our first acquire of the area and whenever the lock is
    // taken (contention, where 004's mode matters): an uncontended acquire is one round trip.
    let claim = !this.claimed.has(d);
    this.claimed.add(d);
    for (;;) {
      if (claim && deviceOp(d, ATOMIC_CSWAP, MODE, MODE_DEVICE, MODE_CPU) === MODE_CPU) {
        d.rma.post!(d.target, d.key, d.base + MIGRATIONS * 4, ATOMIC_ADD, 4, 1n);
        oscCounters.lockMigrations++;
      }
      let ok: boolean;
      if (lockType === LOCK_EXCLUSIVE) ok = deviceOp(d, ATOMIC_CSWAP, STATE, WRITER, 0) === 0;
      else {
        ok = (deviceOp(d, ATOMIC_ADD, STATE, 1, 0) & WRITER) === 0;
        if (!ok) deviceOp(d, ATOMIC_ADD, STATE, -1, 0);
      }
      if (ok) {
        if (announced) deviceOp(d, ATOMIC_ADD, REMOTE_WAIT, -1, 0);
        return;
      }
      if (!announced) deviceOp(d, ATOMIC_ADD, REMOTE_WAIT, 1, 0);
      announced = true;
      claim = true;
      this.idle();
    }
  }

  /** A rank of the owner's host, on an area ranks of other hosts reach by device atomics. */
  private mixedAcquire(a: LockArea, lockType: number): void {
    const w = a.mem.words;
    for (;;) {
      if (Atomics.load(w, a.at + MODE) === MODE_DEVICE) {
        const waiting = Atomics.load(w, a.at + REMOTE_WAIT) !== 0;
        if (!waiting && this.policy === 'migrate' &&
            Atomics.compareExchange(w, a.at + MODE, MODE_DEVICE, MODE_CPU) === MODE_DEVICE) {
          Atomics.add(w, a.at + MIGRATIONS, 1);
          oscCounters.lockMigrations++;
        }
        // Device mode with ranks of other hosts waiting: they go first (no starvation behind our CPU atomics).
        if (waiting) {
          this.idle();
          continue;
        }
      }
      if (tryTake(w, a.at + STATE, lockType)) return;
      this.idle();
    }
  }

  // ---------------------------------------------------------------- mechanics

  /** Raises our INFLIGHT flag; true (flag up) when the area is in cpu mode, false (flag down) otherwise. */
  private cpuStep(a: LockArea): boolean {
    const w = a.mem.words;
    Atomics.store(w, a.at + this.inflight, 1);
    if (Atomics.load(w, a.at + MODE) === MODE_CPU) return true;
    Atomics.store(w, a.at + this.inflight, 0);
    return false;
  }

  /**
   * Holding the mutex of a local area: true (mutex released) when the caller should take the
   * cpu path after all, because the area is in cpu mode again or the policy moves it back now.
   */
  private migrateBack(a: LockArea): boolean {
    const w = a.mem.words;
    if (Atomics.load(w, a.at + MODE) === MODE_CPU) {
      this.mutexRelease(a);
      return true;
    }
    if (this.policy !== 'migrate' || Atomics.load(w, a.at + REMOTE_WAIT) !== 0) return false;
    Atomics.store(w, a.at + MODE, MODE_CPU);
    Atomics.store(w, a.at + MIGRATIONS, Atomics.load(w, a.at + MIGRATIONS) + 1);
    oscCounters.lockMigrations++;
    this.mutexRelease(a);
    return true;
  }

  /** Takes the mutex of a remote area and moves it to device mode if it is in cpu mode. */
  private enterDevice(a: LockArea): void {
    this.mutexAcquire(a);
    const w = a.mem.words;
    if (Atomics.load(w, a.at + MODE) === MODE_DEVICE) return;
    Atomics.store(w, a.at + MODE, MODE_DEVICE);
    Atomics.store(w, a.at + MIGRATIONS, Atomics.load(w, a.at + MIGRATIONS) + 1);
    oscCounters.lockMigrations++;
    a.mem.storeBarrier();
    // Ranks of the owner's node inside a cpu-mode step finish it (they are in an MPI call).
    for (let i = 0; i < this.n; i++) while (Atomics.load(w, a.at + B_AT + this.n + i) !== 0) this.idle();
  }

  /** Lamport's fast mutual exclusion: ids 1..n; X, Y and B[i] by loads and stores only. */
  private mutexAcquire(a: LockArea): void {
    const w = a.mem.words;
    const at = a.at;
    const id = this.me + 1;
    const b = at + B_AT + this.me;
    for (;;) {
      Atomics.store(w, b, 1);
      Atomics.store(w, at + X, id);
      a.mem.storeBarrier();
      if (Atomics.load(w, at + Y) !== 0) {
        Atomics.store(w, b, 0);
        a.mem.storeBarrier();
        while (Atomics.load(w, at + Y) !== 0) this.idle();
        continue;
      }
      Atomics.store(w, at + Y, id);
      a.mem.storeBarrier();
      if (Atomics.load(w, at + X) !== id) {
        Atomics.store(w, b, 0);
        a.mem.storeBarrier();
        for (let j = 0; j < this.n; j++) while (Atomics.load(w, at + B_AT + j) !== 0) this.idle();
        if (Atomics.load(w, at + Y) !== id) {
          while (Atomics.load(w, at + Y) !== 0) this.idle();
          continue;
        }
      }
      return;
    }
  }

  private mutexRelease(a: LockArea): void {
    const w = a.mem.words;
    Atomics.store(w, a.at + Y, 0);
    Atomics.store(w, a.at + B_AT + this.me, 0);
    a.mem.storeBarrier();
  }
}

/** One 32-bit device atomic on word `word` of a remote area; the word's old value (signed). */
function deviceOp(d: DeviceArea, op: number, word: number, operand: number, compare: number): number {
  return Number(BigInt.asIntN(32, d.rma.atomic!(d.target, d.key, d.base + word * 4, op, 4, BigInt(operand), BigInt(compare))));
}
