// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { RmaSyncError } from '../common/errors.js';
import type { ExposedMemory } from '../mpid/memory.js';
import type { Request as CoreRequest } from '../mpid/request.js';
import type { World } from '../mpid/world.js';
import { AgentAccess, type HeldRequest } from './agent.js';
import { AttachedMemory } from './attached.js';
import { WindowChannel, type WindowComm } from './channel.js';
import { LOCK_SHARED, type Reducer } from './codes.js';
import { DeviceAccess } from './device-rma.js';
import { deviceWindow, deviceWindowPossible, type DeviceWindowMemory } from './device-window.js';
import { DirectAccess } from './direct.js';
import { EpochTracker } from './epoch.js';
import { exposedMemoryOf } from './exposed.js';
import { GatheredRequests } from './gathered.js';
import { LockAreas } from './lock-area.js';
import type { LockPolicy } from './select.js';
import { LockGrants } from './lock-grants.js';
import { RemotePut } from './remote-put.js';
import {
  ACCESS_DEVICE, ACCESS_DIRECT, ACCESS_GATHERED, DEVICE, DEVICE_AGENT_UPDATES, type MethodSetting, selectMethod,
  type TargetMethod, UPDATES_AGENT, UPDATES_DEVICE,
} from './select.js';
import { WindowTarget } from './target.js';
import { nodeSegmentWindow, type SharedSegment, spreadWindow, type WindowMemory } from './window-memory.js';
import { COMPLETE, GET, headerOnly, LOCK, PUT, UNLOCK } from './wire.js';

/**
 * One window of the one-sided layer (MPI-3.1 ch. 11, SCI-MPICH's access methods, 003b §3.2),
 * below the API face (src/mpir/rma/win.ts), which checks arguments, decodes buffers and
 * datatypes, and maps errors. Here: where the memory lies (window-memory.ts), the access method
 * of each target (select.ts: direct.ts, agent.ts, gathered.ts, remote-put.ts), the epochs
 * (epoch.ts), the lock (lock-area.ts, research 004's hybrid lock made one-sided) and the
 * target's agent (target.ts, lock-grants.ts).
 *
 * Synchronisation: Fence flushes every target touched since the last sync, then a barrier (the
 * flush replies arrive before anyone enters the barrier, so no fast barrier overtakes data: the
 * double barrier's point in 003b §3.4.1); Post/Start/Complete/Wait/Test with POSTED and COMPLETE
 * messages (strict, or loose); Lock/Unlock and Lock_all/Unlock_all on the lock areas; Flush*.
 */

export interface WindowSettings {
  readonly method: MethodSetting;
  /** Largest Put or Accumulate the gathered method gathers. */
  readonly gatherMax: number;
  readonly lockPolicy: LockPolicy;
  /** Post/start without waiting for POSTED in Start (TSMPI_RMA_PSCW=loose). */
  readonly loosePscw: boolean;
  /** Smallest Get served by remote-put (0: never). */
  readonly remotePutMin: number;
}

/** What the face lends the window layer besides the group (WindowComm). */
export interface WindowHooks {
  readonly reducer: Reducer;
  /** A reply arrived and its request is about to be freed (the face unpacks a non-contiguous result). */
  replyArrived(r: CoreRequest): void;
  /** Ends the job with `message` (an erroneous access the agent cannot report to the caller). */
  fatal(message: string): never;
}

export const ADMIT_NOW = 0;
export const ADMIT_DEFER = 1;
export const ADMIT_NO_EPOCH = 2;

/** Longest nap of a waiter on a lock (a release does not notify across processes; this bounds the miss). */
const LOCK_NAP_MS = 1;
const NAP = new Int32Array(new SharedArrayBuffer(4));

export class Window {
  /** Byte size and displacement unit of every rank's part. */
  readonly sizes: Float64Array;
  readonly units: Float64Array;
  /** This rank's part. */
  readonly memory: Uint8Array;
  /** Allocate_shared (and node-segment Allocate): the segment every rank maps, with each part's offset. */
  readonly shared: SharedSegment | null;
  /** Dynamic windows: the memory attached (null for the other flavors). */
  readonly attached: AttachedMemory | null;
  private readonly channel: WindowChannel;
  private readonly epoch: EpochTracker;
  private readonly methods: readonly TargetMethod[];
  private readonly direct: DirectAccess;
  private readonly device: DeviceAccess;
  private readonly agent: AgentAccess;
  private readonly locks: LockAreas;
  private readonly target: WindowTarget;
  private readonly remotePutMin: number;
  private readonly loosePscw: boolean;
  /** Gathered method's counters (zero when no target uses it). */
  readonly gathered: GatheredRequests['counters'];

  /** Collective: a window on `bytes` (Win.Create), direct where they lie in exported memory. */
  static create(world: World, comm: WindowComm, bytes: Uint8Array, dispUnit: number, dynamic: boolean, settings: WindowSettings,
                hooks: WindowHooks): Window {
    const exposed = exposedMemoryOf(bytes.buffer);
    if (exposed === null && viaDevice(world, comm)) {
      const wm = deviceWindow(world, comm, bytes, bytes.length, settings.lockPolicy, dynamic);
      return new Window(world, comm, wm, dispUnit, dynamic, settings, hooks);
    }
    const wm = spreadWindow(world, comm, bytes, exposed, settings.lockPolicy);
    return new Window(world, comm, wm, dispUnit, dynamic, settings, hooks);
  }

  /**
   * Collective: `size` bytes of window memory the devices expose: one node segment when every
   * rank of the window is on our node (Put and Get go by stores and loads), else memory a
   * device exports to other nodes (direct access, 003b §3.2a), else process memory.
   */
  static allocate(world: World, comm: WindowComm, size: number, dispUnit: number, settings: WindowSettings, hooks: WindowHooks): Window {
    if (viaDevice(world, comm)) {
      return new Window(world, comm, deviceWindow(world, comm, null, size, settings.lockPolicy), dispUnit, false, settings, hooks);
    }
    if (ranksApart(world, comm.worldRanks).length === 0 && world.nodeMemory !== null) {
      return new Window(world, comm, nodeSegmentWindow(world, comm, size, settings.lockPolicy), dispUnit, false, settings, hooks);
    }
    const exposed: ExposedMemory | null = settings.method === 'auto' ? world.exposeMemory(Math.max(size, 1)) : null;
    const memory = exposed !== null ? exposed.bytes.subarray(0, size) : new Uint8Array(new SharedArrayBuffer(size));
    const wm = spreadWindow(world, comm, memory, exposed, settings.lockPolicy);
    return new Window(world, comm, wm, dispUnit, false, settings, hooks);
  }

  /** Collective: `size` bytes per rank in one node segment every rank maps (all ranks on our node: ranksApart). */
  static allocateShared(world: World, comm: WindowComm, size: number, dispUnit: number, settings: WindowSettings,
                        hooks: WindowHooks): Window {
    return new Window(world, comm, nodeSegmentWindow(world, comm, size, settings.lockPolicy), dispUnit, false, settings, hooks);
  }

  private constructor(private readonly world: World, private readonly comm: WindowComm, private readonly wm: WindowMemory,
                      dispUnit: number, dynamic: boolean, settings: WindowSettings, hooks: WindowHooks) {
    this.memory = wm.bytes;
    this.shared = wm.shared;
    this.attached = dynamic ? new AttachedMemory() : null;
    this.channel = new WindowChannel(world, comm);
    this.epoch = new EpochTracker(this.channel);
    const remote = (wm as Partial<DeviceWindowMemory>).remote ?? null;
    const atomicParts = (wm as Partial<DeviceWindowMemory>).atomicParts ?? null;
    this.methods = wm.parts.map((p, t) => (remote?.[t] && settings.method === 'auto' ? (atomicParts![t] ? DEVICE : DEVICE_AGENT_UPDATES)
      : selectMethod(p !== null ? p.reach : null, settings.method, settings.lockPolicy)));
    this.locks = new LockAreas(wm.areas, comm.rank, comm.size, settings.lockPolicy, () => this.idle(), remote !== null);
    this.direct = new DirectAccess(wm.parts, this.locks, hooks.reducer);
    this.device = new DeviceAccess(remote ?? new Array(comm.size).fill(null), hooks.reducer);
    const gathered = new GatheredRequests(this.channel, this.methods.some((m) => m.access === ACCESS_GATHERED) ? settings.gatherMax : -1);
    this.gathered = gathered.counters;
    const remotePut = new RemotePut(world, this.channel);
    this.remotePutMin = settings.remotePutMin;
    this.loosePscw = settings.loosePscw;
    this.agent = new AgentAccess(this.channel, gathered, remotePut, hooks.replyArrived);
    this.sizes = new Float64Array(comm.size);
    this.units = new Float64Array(comm.size);
    const all = new Float64Array(2 * comm.size);
    comm.allgather(Float64Array.of(this.memory.length, dispUnit), all);
    for (let r = 0; r < comm.size; r++) {
      this.sizes[r] = all[2 * r]!;
      this.units[r] = all[2 * r + 1]!;
    }
    // Everything the agent needs exists before it serves: its hook may run from the first
    // progress on, and other ranks may already send it requests.
    const ownDirect = this.methods[comm.rank]!.access === ACCESS_DIRECT;
    this.target = new WindowTarget(this.channel, this.memory, this.attached, ownDirect ? this.direct : null, this.epoch,
      new LockGrants(this.locks, this.channel), remotePut, hooks.reducer, hooks.fatal);
    world.engine.addProgressHook(this.target.hook);
  }

  /** Our rank in the window. */
  get rank(): number {
    return this.comm.rank;
  }

  /** Gets served by remote-put (origin side), and remote-puts written (target side). */
  get remotePut(): RemotePut['counters'] {
    return this.agent.remotePut.counters;
  }

  /** Mode changes of our own part's lock (research 004's migrations). */
  get lockMigrations(): number {
    return this.locks.migrations;
  }

  /** The access method chosen for window rank `t` (select.ts). */
  methodOf(t: number): TargetMethod {
    return this.methods[t]!;
  }


  // ---------------------------------------------------------------- operations

  /**
   * One operation (wire.ts request `kind`) on `t`'s part: `count` elements of `elemKind`,
   * `bytes` in all, at byte `offset` (`list`: a derived target type's blocks), op code `op`;
   * `data` the payload, `into` where a result goes. admit() must have said ADMIT_NOW.
   * Returns null when the operation is complete as far as the caller's buffers go (direct
   * access, or no result), else the request its result arrives on: waited for at the next
   * synchronisation, or by the user when `held` (then the caller hands it back with hold()).
   */
  operate(kind: number, t: number, offset: number, list: Float64Array | null, elemKind: number, op: number, count: number,
          bytes: number, data: Uint8Array | null, into: Uint8Array | null, held: boolean): CoreRequest | null {
    // Put and Get by direct access first and alone: the common case stays small enough to inline.
    if ((kind === PUT || kind === GET) && this.methods[t]!.access === ACCESS_DIRECT) {
      this.direct.transfer(t, kind === PUT, offset, list, bytes, data, into);
      return null;
    }
    if ((kind === PUT || kind === GET) && this.methods[t]!.access === ACCESS_DEVICE) {
      this.device.transfer(t, kind === PUT, offset, list, bytes, data, into);
      return null;
    }
    return this.operateOther(kind, t, offset, list, elemKind, op, count, bytes, data, into, held);
  }

  /** Updates by direct access, and everything the target's agent applies (remote-put and gathered included). */
  private operateOther(kind: number, t: number, offset: number, list: Float64Array | null, elemKind: number, op: number,
                       count: number, bytes: number, data: Uint8Array | null, into: Uint8Array | null, held: boolean): CoreRequest | null {
    const m = this.methods[t]!;
    if (m.access === ACCESS_DIRECT && m.updates !== UPDATES_AGENT &&
        this.direct.update(t, kind, offset, list, elemKind, op, bytes, data, into)) return null;
    if (m.updates === UPDATES_DEVICE && this.device.update(t, kind, offset, list, elemKind, op, bytes, data, into)) return null;
    let reply: CoreRequest | null = null;
    const mem = kind === GET && list === null && this.remotePutMin > 0 && bytes >= this.remotePutMin ? exposedMemoryOf(into!.buffer) : null;
    if (mem !== null) reply = this.agent.getInto(t, offset, count, elemKind, mem.id, into!.byteOffset - mem.bytes.byteOffset);
    else reply = this.agent.issue(t, kind, offset, list, elemKind, op, count, bytes, data, into, m.access === ACCESS_GATHERED);
    if (reply !== null && !held) this.agent.track(t, reply);
    return reply;
  }

  /** A result request handed to the user (Rget): the next flush waits for it without freeing it. */
  hold(r: HeldRequest): void {
    this.agent.hold(r);
  }

  /**
   * Before an operation to `t`, in one call (this is every operation's path): ADMIT_NOW, or
   * ADMIT_DEFER (loose post/start, `t` has not posted: keep it with defer()), or
   * ADMIT_NO_EPOCH (no access epoch to `t`: accessError() says why). Frees finished replies.
   */
  admit(t: number): number {
    this.channel.reap();
    if (!this.epoch.canAccess(t, this.comm.worldRanks[t]!)) return ADMIT_NO_EPOCH;
    return this.epoch.mustDefer(t) ? ADMIT_DEFER : ADMIT_NOW;
  }

  accessError(t: number): RmaSyncError {
    return this.epoch.accessError(t);
  }

  checkRequestEpoch(t: number): void {
    this.channel.reap();
    this.epoch.checkRequestEpoch(t);
  }

  defer(t: number, issue: () => void): void {
    this.epoch.defer(t, issue);
  }

  // ---------------------------------------------------------------- active target

  /** `open`: a new epoch follows (no MODE_NOSUCCEED). */
  fence(open: boolean): void {
    this.channel.reap();
    this.epoch.checkFence();
    this.device.flushAll();
    this.agent.flushAll();
    this.comm.barrier();
    this.epoch.fenced(open);
  }

  /** Before start(): no access epoch may be open. */
  checkStart(): void {
    this.channel.reap();
    this.epoch.checkStart();
  }

  /** After checkStart(). `group`: world ranks, all of the window; `nocheck`: MODE_NOCHECK (the targets posted already). */
  start(group: Int32Array, nocheck: boolean): void {
    // Strict variant: wait for every target's POSTED; loose: only post the receives.
    if (!nocheck) {
      for (const w of group) {
        const t = this.comm.worldRanks.indexOf(w);
        const r = this.channel.expectPosted(t);
        if (this.loosePscw) this.epoch.awaitLater(t, r);
        else this.channel.wait(r);
      }
    }
    this.epoch.started(group);
  }

  complete(): void {
    this.channel.reap();
    this.epoch.checkComplete();
    for (const w of this.epoch.startMembers) {
      const t = this.comm.worldRanks.indexOf(w);
      this.epoch.awaitPosted(t, true);
      this.device.flush(t);
      this.agent.flush(t);
      this.channel.send(t, COMPLETE, headerOnly(0));
    }
    this.epoch.completed();
  }

  /** Before post(): no exposure epoch may be open. */
  checkPost(): void {
    this.channel.reap();
    this.epoch.checkPost();
  }

  /** After checkPost(). */
  post(group: Int32Array): void {
    this.epoch.posted(group);
    for (const w of group) this.channel.sendPosted(w);
  }

  wait(): void {
    this.channel.reap();
    this.epoch.checkExposure('Wait');
    while (!this.epoch.tryEndExposure()) this.world.progress.step();
  }

  test(): boolean {
    this.channel.reap();
    this.epoch.checkExposure('Test');
    this.world.engine.progress();
    return this.epoch.tryEndExposure();
  }

  // ---------------------------------------------------------------- passive target

  lock(t: number, lockType: number, nocheck: boolean): void {
    this.channel.reap();
    this.epoch.checkLock(t, this.agent.unflushed);
    if (!nocheck) this.acquire(t, lockType);
    this.epoch.locked.set(t, lockType);
  }

  unlock(t: number): void {
    this.channel.reap();
    this.epoch.checkUnlock(t);
    this.device.flush(t);
    this.agent.flush(t);
    this.release(t, this.epoch.locked.get(t)!);
    this.epoch.locked.delete(t);
  }

  lockAll(nocheck: boolean): void {
    this.channel.reap();
    this.epoch.checkLockAll();
    if (!nocheck) for (let r = 0; r < this.comm.size; r++) this.acquire(r, LOCK_SHARED);
    this.epoch.lockAll = true;
  }

  unlockAll(): void {
    this.channel.reap();
    this.epoch.checkUnlockAll();
    this.device.flushAll();
    this.agent.flushAll();
    for (let r = 0; r < this.comm.size; r++) this.release(r, LOCK_SHARED);
    this.epoch.lockAll = false;
  }

  flush(t: number): void {
    this.channel.reap();
    this.epoch.checkPassive('Flush', t);
    this.device.flush(t);
    this.agent.flush(t);
  }

  flushAll(): void {
    this.channel.reap();
    this.device.flushAll();
    this.agent.flushAll();
  }

  flushLocal(t: number): void {
    this.channel.reap();
    this.epoch.checkPassive('Flush_local', t);
    this.device.flush(t);
    this.agent.waitReplies(t);
  }

  flushLocalAll(): void {
    this.channel.reap();
    this.device.flushAll();
    this.agent.waitAllReplies();
  }

  /** Collective: completes everything, drops the memory, stops the agent, frees the group. */
  free(): void {
    this.channel.reap();
    this.epoch.checkFree();
    this.device.flushAll();
    this.agent.flushAll();
    this.comm.barrier();
    // Nobody touches another part any more: drop our mappings, then (all dropped) remove ours.
    this.wm.release();
    this.comm.barrier();
    this.wm.remove();
    this.world.engine.removeProgressHook(this.target.hook);
    this.target.stop();
    this.comm.free();
  }

  /**
   * Takes the lock of `t`'s part (lock-area.ts: CPU compare-exchange in cpu mode, Lamport's
   * mutex and loads and stores in device mode; nothing needs the target). Under policy cpu a
   * rank of another node asks the target's agent instead (004's two-sided path).
   */
  private acquire(t: number, lockType: number): void {
    if (this.locks.viaAgent(t)) this.channel.roundTrip(t, LOCK, lockType);
    else this.locks.acquire(t, lockType);
  }

  private release(t: number, lockType: number): void {
    if (this.locks.viaAgent(t)) {
      this.channel.send(t, UNLOCK, headerOnly(lockType));
      return;
    }
    // The lock is the same whoever granted it; wake the target's agent if it waits for it on behalf of others.
    if (this.locks.release(t, lockType)) this.world.wakeLocal(this.comm.worldRanks[t]!);
  }

  /** One step of a wait on a lock area: progress, and a nap when nothing moved. */
  private idle(): void {
    if (this.world.engine.progress() === 0) Atomics.wait(NAP, 0, 0, LOCK_NAP_MS);
  }
}

/**
 * Collective: whether the window goes across hosts by a network device's RMA (device-window.ts):
 * no device exporting memory (SCI keeps its direct access), and a network device reaching every
 * rank we share no memory with. Its lock areas serve every method; TSMPI_RMA_METHOD=emulated or
 * gather still sends the operations to the agents.
 */
function viaDevice(world: World, comm: WindowComm): boolean {
  return world.exportedMemoryCaps === null && deviceWindowPossible(world, comm);
}

/** World ranks of `worldRanks` not on our node (they cannot map a node segment with us). */
export function ranksApart(world: World, worldRanks: Int32Array): number[] {
  return Array.from(worldRanks).filter((w) => !world.onSameNode(w));
}
