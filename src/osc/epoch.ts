import { RmaSyncError } from '../common/errors.js';
import { STATE_DONE, type Request as CoreRequest } from '../mpid/request.js';
import type { WindowChannel } from './channel.js';

/**
 * The window's epochs, as MPI-3.1 §11.5 defines them, and the checks that keep calls in them:
 *
 *   access side   none --Fence--> fence --Fence(NOSUCCEED)--> none
 *                 none --Start--> start --Complete--> none
 *                 none --Lock(t)/Lock_all--> lock --Unlock/Unlock_all--> none
 *   exposure side none --Post--> posted --Wait/Test--> none (COMPLETE messages counted)
 *
 * Loose post/start (TSMPI_RMA_PSCW=loose): Start only posts the receives of the targets'
 * POSTED; an operation to a target that has not posted yet is kept (the face copies its data
 * and hands a thunk, defer()) and issued once the POSTED arrives (awaitPosted).
 *
 * Out-of-epoch calls throw RmaSyncError (MPI.ERR_RMA_SYNC at the face).
 */
export class EpochTracker {
  private access: 'none' | 'fence' | 'start' = 'none';
  /** The last Fence opened an epoch (no MODE_NOSUCCEED). */
  private fenceOpen = false;
  /** Targets locked by us, with the lock type. */
  readonly locked = new Map<number, number>();
  lockAll = false;
  /** World ranks of the Start group. */
  private startGroup: Int32Array | null = null;
  /** World ranks of the Post group. */
  private postGroup: Int32Array | null = null;
  private completesSeen = 0;
  /** Loose post/start: per target of the access epoch, its POSTED receive while it has not arrived. */
  private readonly postedWait = new Map<number, CoreRequest>();
  /** Loose post/start: operations kept per target until its POSTED arrives. */
  private readonly deferred = new Map<number, (() => void)[]>();

  constructor(private readonly channel: WindowChannel) {}

  /** The access epoch, for state reports. */
  get state(): 'none' | 'fence' | 'start' | 'lock' {
    return this.lockAll || this.locked.size > 0 ? 'lock' : this.access;
  }

  // ---------------------------------------------------------------- checks

  /** Whether an operation to window rank `t` (world rank `w`) is in an access epoch to it (on every operation: no strings here). */
  canAccess(t: number, w: number): boolean {
    if (this.lockAll || this.locked.has(t)) return true;
    if (this.access === 'fence' && this.fenceOpen) return true;
    return this.access === 'start' && this.startGroup!.includes(w);
  }

  /** What is wrong when canAccess says no. */
  accessError(t: number): RmaSyncError {
    return new RmaSyncError(`no access epoch to rank ${t} is open (call Fence, Start with a group holding it, Lock or Lock_all first)`);
  }

  /** Request-based operations need a passive-target epoch to `t` (MPI-3.1 §11.3.5). */
  checkRequestEpoch(t: number): void {
    if (t !== -1 && !this.lockAll && !this.locked.has(t)) {
      throw new RmaSyncError(`request-based operations need a passive-target epoch (Lock or Lock_all) to rank ${t}`);
    }
  }

  checkPassive(call: string, t: number): void {
    if (!this.lockAll && !this.locked.has(t)) throw new RmaSyncError(`${call} needs a passive-target epoch to rank ${t} (Lock or Lock_all)`);
  }

  checkFence(): void {
    if (this.access === 'start' || this.lockAll) {
      throw new RmaSyncError('a Start or Lock epoch is still open; end it (Complete, Unlock) before Fence');
    }
  }

  checkStart(): void {
    if (this.access === 'start' || this.locked.size > 0 || this.lockAll) {
      throw new RmaSyncError('an access epoch is already open (Complete or Unlock it first)');
    }
  }

  checkComplete(): void {
    if (this.access !== 'start') throw new RmaSyncError('Complete without a matching Start');
  }

  checkPost(): void {
    if (this.postGroup !== null) throw new RmaSyncError('an exposure epoch is already open (Wait for it first)');
  }

  checkExposure(call: 'Wait' | 'Test'): void {
    if (this.postGroup === null) throw new RmaSyncError(`${call} without a matching Post`);
  }

  /** `unflushed`: operations of an open fence epoch still lack remote completion. */
  checkLock(t: number, unflushed: boolean): void {
    if (this.locked.has(t) || this.lockAll) throw new RmaSyncError(`rank ${t} is already locked by this process`);
    if (this.access === 'start' || (this.access === 'fence' && this.fenceOpen && unflushed)) {
      throw new RmaSyncError('an active-target epoch is open (Complete it, or Fence with MPI.MODE_NOSUCCEED)');
    }
  }

  checkUnlock(t: number): void {
    if (!this.locked.has(t)) throw new RmaSyncError(`rank ${t} is not locked by this process`);
  }

  checkLockAll(): void {
    if (this.lockAll || this.locked.size > 0) throw new RmaSyncError('a lock epoch is already open');
  }

  checkUnlockAll(): void {
    if (!this.lockAll) throw new RmaSyncError('Unlock_all without Lock_all');
  }

  checkFree(): void {
    if (this.locked.size > 0 || this.lockAll || this.access === 'start' || this.postGroup !== null) {
      throw new RmaSyncError('an epoch is still open (Unlock, Complete or Wait first)');
    }
  }

  // ---------------------------------------------------------------- transitions

  fenced(open: boolean): void {
    this.access = open ? 'fence' : 'none';
    this.fenceOpen = open;
  }

  started(group: Int32Array): void {
    this.startGroup = group;
    this.access = 'start';
    this.fenceOpen = false;
  }

  /** The Start group, until Complete ends it. */
  get startMembers(): Int32Array {
    return this.startGroup!;
  }

  completed(): void {
    this.startGroup = null;
    this.access = 'none';
  }

  posted(group: Int32Array): void {
    this.postGroup = group;
  }

  /** A COMPLETE arrived (the agent counts it). */
  completeArrived(): void {
    this.completesSeen++;
  }

  /** Ends the exposure epoch when every member of the Post group has completed; false while some have not. */
  tryEndExposure(): boolean {
    const want = this.postGroup!.length;
    if (this.completesSeen < want) return false;
    this.completesSeen -= want;
    this.postGroup = null;
    return true;
  }

  // ---------------------------------------------------------------- loose post/start

  /** Loose Start: `t`'s POSTED is awaited later (awaitPosted), operations to it kept until then. */
  awaitLater(t: number, posted: CoreRequest): void {
    this.postedWait.set(t, posted);
  }

  /** Whether an operation to `t` must be kept now: its POSTED has not arrived (looking once more). */
  mustDefer(t: number): boolean {
    return this.postedWait.size > 0 && this.postedWait.has(t) && !this.awaitPosted(t, false);
  }

  /** Keeps an operation for `t` until its POSTED arrives. */
  defer(t: number, issue: () => void): void {
    let list = this.deferred.get(t);
    if (list === undefined) this.deferred.set(t, (list = []));
    list.push(issue);
  }

  /** Whether `t` has posted (waiting for it when `block`); issues what was kept for it. */
  awaitPosted(t: number, block: boolean): boolean {
    const r = this.postedWait.get(t);
    if (r === undefined) return true;
    const world = this.channel.world;
    if (block) world.progress.wait(r);
    else if (r.state !== STATE_DONE) {
      world.engine.progress();
      if (r.state !== STATE_DONE) return false;
    }
    world.engine.free(r);
    this.postedWait.delete(t);
    const list = this.deferred.get(t);
    if (list !== undefined) {
      this.deferred.delete(t);
      for (const issue of list) issue();
    }
    return true;
  }
}
