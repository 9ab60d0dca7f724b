import { nodeV8 } from '../common/node-v8.js';
import { MODE_STANDARD, type CoreRequest } from '../mpid/index.js';
import type { World } from '../mpid/world.js';
import { describe } from './buffer.js';
import { allMembers, allgatherInts, allreduceMaxInt, type Participants } from './coll-internal.js';
import { Comm, Intracomm, type CommCore } from './comm.js';
import { nextFreeCtx, takeAgreedCtx } from './comm-manage.js';
import { CONGRUENT, IDENT, SIMILAR, TAG_UB_VALUE, UNEQUAL } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { Group, compareMembers } from './group.js';
import { derived } from './lineage.js';
import { runtime } from './runtime.js';
import type { Request } from './request.js';
import { type Op, SUM } from './op.js';
import * as inter from './coll/inter.js';
import type { InterCall } from './coll/inter.js';
import type { BufSpec, BufSpecV, BufSpecW, InPlace, InfoArg, IntList } from './types.js';

/**
 * Intercommunicators, mpi4py-style: comm.Create_intercomm(local_leader, peer_comm, remote_leader,
 * tag) joins two disjoint groups; intercomm.Merge(high) makes one Intracomm of both.
 *
 * Point-to-point on an intercommunicator addresses the remote group: Send(buf, r) goes to rank r
 * of the other group, a receive from r matches what rank r of the other group sent. That is the
 * Comm machinery unchanged, given the right core: an Intercomm's CommCore holds the *remote*
 * group (size, worldRanks) with our *local* rank, which is what a message carries as its source.
 * rank, size and Get_group report the local group from `local`, a core of our own group.
 *
 * Calls of both groups (Dup, Merge, Barrier, Free) run over the union of the groups on the
 * intercommunicator's ctx + 1, ordered canonically (the group whose rank 0 has the lower world
 * rank first) and addressed by union index. The collectives of MPI-3.1 §5.2.2 and their object
 * forms work on it (coll/inter.ts, coll/objects.ts); what `live` does not admit (the calls
 * below), Split and Create on it, scan and exscan among them, raises MPI.ERR_UNSUPPORTED_OPERATION.
 */

/**
 * Internal tags (on a local communicator's ctx + 1 for creation, the intercomm's ctx + 1
 * otherwise), above the collectives' sequence tags (coll/schedule.ts: 16 .. 0x7fff000f).
 */
const TAG_INTER_BASE = 0x7fff1000;
const TAG_CREATE_MAX = TAG_INTER_BASE;
const TAG_CREATE_BCAST = TAG_INTER_BASE + 1;
const TAG_DUP = TAG_INTER_BASE + 2;
const TAG_MERGE = TAG_INTER_BASE + 3;
const TAG_BARRIER = TAG_INTER_BASE + 4;

/** The Comm calls that are right on an intercommunicator core (point-to-point, attributes, Free). */
const SUPPORTED = new Set([
  'Send', 'Ssend', 'Bsend', 'Rsend', 'Recv', 'Isend', 'Issend', 'Ibsend', 'Irsend', 'Irecv',
  'Send_init', 'Ssend_init', 'Bsend_init', 'Rsend_init', 'Recv_init', 'Sendrecv', 'Sendrecv_replace',
  'Isendrecv', 'Isendrecv_replace', 'Psend_init', 'Precv_init',
  'Probe', 'Iprobe', 'Mprobe', 'Improbe', 'irecv', 'sendrecv', 'Message.Recv', 'Message.Irecv', 'Message.Probe',
  'Message.Iprobe', 'Message.irecv', 'Set_name', 'Dup_with_info', 'Idup', 'Idup_with_info',
  'Get_attr', 'Set_attr', 'Delete_attr', 'Free', 'Disconnect', 'Get_topology', 'Dup', 'Merge', 'Barrier', 'Compare', 'Set_info', 'Get_info',
  'Get_remote_size', 'Get_remote_group', 'Get_group', 'Get_rank', 'Get_size', 'rank', 'size', 'Is_inter', 'Is_intra',
  // The object forms (coll/objects.ts: over the buffer collectives below, with the remote group).
  'bcast', 'gather', 'scatter', 'allgather', 'alltoall', 'reduce', 'allreduce',
  ...['barrier', 'bcast', 'gather', 'gatherv', 'scatter', 'scatterv', 'allgather', 'allgatherv', 'alltoall', 'alltoallv',
    'alltoallw', 'reduce', 'allreduce', 'reduce_scatter_block', 'reduce_scatter']
    .flatMap((n) => {
      const name = n.charAt(0).toUpperCase() + n.slice(1);
      return [name, `I${n}`, `${name}_init`];
    }),
]);

/** A communicator between two disjoint groups; ranks of point-to-point calls are ranks of the remote group. */
export class Intercomm extends Comm {
  /** This group on the context reserved for its part of collectives (ctx + 2, see coll/inter.ts). */
  private localColl: CommCore;

  /**
   * @internal Intercommunicators come from Create_intercomm, Dup, Idup, Accept/Connect and Spawn.
   * `localFirst` orders the union of the groups when world ranks cannot (the groups of two jobs
   * number their processes each its own way): whether our group comes first on both sides.
   */
  constructor(name: string, core: CommCore, private local: CommCore, private readonly localFirst: boolean | null = null) {
    super(name, core);
    this.localColl = { rank: local.rank, size: local.size, worldRanks: local.worldRanks, ctx: core.ctx + 1 };
  }

  /** @internal The call descriptor of coll/inter.ts (also for the persistent forms: persistent-coll.ts). */
  interCall(call: string, persistent = false): InterCall {
    return { comm: this, core: this.live(call), world: runtime.requireRunning(call), name: call, local: this.localColl, persistent };
  }

  private inter(call: string): InterCall {
    return this.interCall(call);
  }

  // Collectives over both groups (MPI-3.1 §5.2.2; coll/inter.ts). Rooted calls take MPI.ROOT at
  // the root, MPI.PROC_NULL in the rest of its group and the root's remote rank in the other;
  // a buffer a process's part does not use may be null. The parameter types keep MPI.IN_PLACE
  // where Comm has it (an override accepts what the base does), but it raises MPI.ERR_BUFFER here.
  override Ibarrier(): Request { return inter.interBarrier(this.inter('Ibarrier'), true)!; }
  override Bcast(buf: BufSpec | null, root = 0): void { inter.interBcast(this.inter('Bcast'), buf, root, false); }
  override Ibcast(buf: BufSpec | null, root = 0): Request { return inter.interBcast(this.inter('Ibcast'), buf, root, true)!; }
  override Gather(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, root = 0): void {
    inter.interGather(this.inter('Gather'), sendbuf, recvbuf, root, false);
  }
  override Igather(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, root = 0): Request {
    return inter.interGather(this.inter('Igather'), sendbuf, recvbuf, root, true)!;
  }
  override Gatherv(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpecV | null, root = 0): void {
    inter.interGatherv(this.inter('Gatherv'), sendbuf, recvbuf, root, false);
  }
  override Igatherv(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpecV | null, root = 0): Request {
    return inter.interGatherv(this.inter('Igatherv'), sendbuf, recvbuf, root, true)!;
  }
  override Scatter(sendbuf: BufSpec | null, recvbuf: BufSpec | InPlace | null, root = 0): void {
    inter.interScatter(this.inter('Scatter'), sendbuf, recvbuf, root, false);
  }
  override Iscatter(sendbuf: BufSpec | null, recvbuf: BufSpec | InPlace | null, root = 0): Request {
    return inter.interScatter(this.inter('Iscatter'), sendbuf, recvbuf, root, true)!;
  }
  override Scatterv(sendbuf: BufSpecV | null, recvbuf: BufSpec | InPlace | null, root = 0): void {
    inter.interScatterv(this.inter('Scatterv'), sendbuf, recvbuf, root, false);
  }
  override Iscatterv(sendbuf: BufSpecV | null, recvbuf: BufSpec | InPlace | null, root = 0): Request {
    return inter.interScatterv(this.inter('Iscatterv'), sendbuf, recvbuf, root, true)!;
  }
  override Allgather(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): void { inter.interAllgather(this.inter('Allgather'), sendbuf, recvbuf, false); }
  override Iallgather(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): Request {
    return inter.interAllgather(this.inter('Iallgather'), sendbuf, recvbuf, true)!;
  }
  override Allgatherv(sendbuf: BufSpec | InPlace, recvbuf: BufSpecV): void {
    inter.interAllgatherv(this.inter('Allgatherv'), sendbuf, recvbuf, false);
  }
  override Iallgatherv(sendbuf: BufSpec | InPlace, recvbuf: BufSpecV): Request {
    return inter.interAllgatherv(this.inter('Iallgatherv'), sendbuf, recvbuf, true)!;
  }
  override Alltoall(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): void { inter.interAlltoall(this.inter('Alltoall'), sendbuf, recvbuf, false); }
  override Ialltoall(sendbuf: BufSpec | InPlace, recvbuf: BufSpec): Request {
    return inter.interAlltoall(this.inter('Ialltoall'), sendbuf, recvbuf, true)!;
  }
  override Alltoallv(sendbuf: BufSpecV | InPlace, recvbuf: BufSpecV): void { inter.interAlltoallv(this.inter('Alltoallv'), sendbuf, recvbuf, false); }
  override Ialltoallv(sendbuf: BufSpecV | InPlace, recvbuf: BufSpecV): Request {
    return inter.interAlltoallv(this.inter('Ialltoallv'), sendbuf, recvbuf, true)!;
  }
  override Alltoallw(sendbuf: BufSpecW | InPlace, recvbuf: BufSpecW): void { inter.interAlltoallw(this.inter('Alltoallw'), sendbuf, recvbuf, false); }
  override Ialltoallw(sendbuf: BufSpecW | InPlace, recvbuf: BufSpecW): Request {
    return inter.interAlltoallw(this.inter('Ialltoallw'), sendbuf, recvbuf, true)!;
  }
  override Reduce(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, op: Op = SUM, root = 0): void {
    inter.interReduce(this.inter('Reduce'), sendbuf, recvbuf, op, root, false);
  }
  override Ireduce(sendbuf: BufSpec | InPlace | null, recvbuf: BufSpec | null, op: Op = SUM, root = 0): Request {
    return inter.interReduce(this.inter('Ireduce'), sendbuf, recvbuf, op, root, true)!;
  }
  override Allreduce(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): void {
    inter.interAllreduce(this.inter('Allreduce'), sendbuf, recvbuf, op, false);
  }
  override Iallreduce(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): Request {
    return inter.interAllreduce(this.inter('Iallreduce'), sendbuf, recvbuf, op, true)!;
  }
  override Reduce_scatter_block(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): void {
    inter.interReduceScatterBlock(this.inter('Reduce_scatter_block'), sendbuf, recvbuf, op, false);
  }
  override Ireduce_scatter_block(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, op: Op = SUM): Request {
    return inter.interReduceScatterBlock(this.inter('Ireduce_scatter_block'), sendbuf, recvbuf, op, true)!;
  }
  override Reduce_scatter(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, recvcounts: IntList, op: Op = SUM): void {
    inter.interReduceScatter(this.inter('Reduce_scatter'), sendbuf, recvbuf, recvcounts, op, false);
  }
  override Ireduce_scatter(sendbuf: BufSpec | InPlace, recvbuf: BufSpec, recvcounts: IntList, op: Op = SUM): Request {
    return inter.interReduceScatter(this.inter('Ireduce_scatter'), sendbuf, recvbuf, recvcounts, op, true)!;
  }
  /** Prefix reductions are not defined on intercommunicators (MPI-3.1 §5.11): MPI.ERR_COMM. */
  override Scan(..._args: unknown[]): void { this.noScan('Scan'); }
  override Iscan(..._args: unknown[]): Request { return this.noScan('Iscan'); }
  override Exscan(..._args: unknown[]): void { this.noScan('Exscan'); }
  override Iexscan(..._args: unknown[]): Request { return this.noScan('Iexscan'); }
  override scan(..._args: unknown[]): never { return this.noScan('scan'); }
  override exscan(..._args: unknown[]): never { return this.noScan('exscan'); }

  private noScan(call: string): never {
    return this.fail(call, ErrorClass.ERR_COMM, 'is not defined on an intercommunicator (MPI defines prefix reductions ' +
      'on intracommunicators only; Merge the groups first)');
  }

  /** @internal */
  protected override live(call: string): CommCore {
    const core = super.live(call);
    if (!SUPPORTED.has(call)) {
      this.fail(call, ErrorClass.ERR_UNSUPPORTED_OPERATION, 'is not implemented on an intercommunicator (point-to-point, ' +
        'Dup, Merge, the collectives of MPI-3.1 §5.2.2 and their object forms, Free and attributes are)');
    }
    return core;
  }

  override get rank(): number { this.live('rank'); return this.local.rank; }
  override get size(): number { this.live('size'); return this.local.size; }
  override Get_rank(): number { this.live('Get_rank'); return this.local.rank; }
  override Get_size(): number { this.live('Get_size'); return this.local.size; }

  /** The local group. */
  override Get_group(): Group {
    this.live('Get_group');
    return derived(Group.ofWorldRanks(this.local.worldRanks, this.local.worldRanks[this.local.rank]!), this);
  }

  /** The size of the remote group. */
  Get_remote_size(): number {
    return this.live('Get_remote_size').size;
  }

  /** The remote group. */
  Get_remote_group(): Group {
    const core = this.live('Get_remote_group');
    return derived(Group.ofWorldRanks(core.worldRanks, -1), this);
  }

  /** @internal Whether the intercommunicator is still usable (not freed, nor disconnected): Finalize's check. */
  get isLive(): boolean { return this.core !== null; }

  get remote_size(): number { return this.Get_remote_size(); }
  get remote_group(): Group { return this.Get_remote_group(); }

  /** IDENT, CONGRUENT (same local and remote groups, same order), SIMILAR or UNEQUAL. */
  override Compare(comm: Comm): number {
    const core = this.live('Compare');
    if ((comm as unknown) === this) return IDENT;
    if (!(comm instanceof Comm)) this.fail('Compare', ErrorClass.ERR_COMM, `comm must be an MPI.Comm, got ${describe(comm)}`);
    if (!(comm instanceof Intercomm)) {
      comm.coreFor('Compare');
      return UNEQUAL;
    }
    const other = comm.live('Compare');
    const a = compareMembers(this.local.worldRanks, comm.local.worldRanks);
    const b = compareMembers(core.worldRanks, other.worldRanks);
    if (a === IDENT && b === IDENT) return CONGRUENT;
    return a <= SIMILAR && b <= SIMILAR ? SIMILAR : UNEQUAL;
  }

  /** Collective over both groups: the same groups on a new context, with the attributes copy_fn keeps. */
  override Dup(info?: InfoArg): this {
    const core = this.live('Dup');
    this.checkInfoArg('Dup', info);
    const world = runtime.requireRunning('Dup');
    const u = this.union(core);
    const ctx = takeAgreedCtx(this, 'Dup', allreduceMaxInt(world, u.p, nextFreeCtx(), TAG_DUP), 4);
    const made = this.twin({ ...core, ctx });
    this.inherit(made, info);
    return made;
  }

  /** @internal The same groups on `core`'s context (Dup, Idup). */
  override twin(core: CommCore): this {
    const made = new Intercomm(`intercomm#${core.ctx}`, core, { ...this.local, ctx: core.ctx }, this.localFirst);
    made.Set_errhandler(this.Get_errhandler());
    return derived(made, this) as this;
  }

  /** @internal Idup: the local group moves to the agreed context too. */
  override ctxAgreed(ctx: number): void {
    super.ctxAgreed(ctx);
    this.local = { ...this.local, ctx };
    this.localColl = { ...this.localColl, ctx: ctx + 1 };
  }

  /** @internal Who agrees on a new context id (Idup): the union of both groups, taking 4 ids. */
  ctxAgreement(core: CommCore): { p: Participants; span: 2 | 4 } {
    return { p: this.union(core).p, span: 4 };
  }

  /** Collective over both groups (a dissemination barrier over their union). */
  override Barrier(): void {
    const core = this.live('Barrier');
    allreduceMaxInt(runtime.requireRunning('Barrier'), this.union(core).p, 0, TAG_BARRIER);
  }

  /**
   * Collective over both groups: one Intracomm of all their processes, the group passing
   * high = false first (the same high in both groups: the group whose rank 0 has the lower world
   * rank first; of two jobs, the accepting or spawning group); each group keeps its order.
   */
  Merge(high = false): Intracomm {
    const core = this.live('Merge');
    const world = runtime.requireRunning('Merge');
    const u = this.union(core);
    const all = allgatherInts(world, u.p, Int32Array.of(high ? 1 : 0, nextFreeCtx()), TAG_MERGE);
    const n = u.p.worldRanks.length;
    let agreed = 0;
    for (let i = 0; i < n; i++) if (all[2 * i + 1]! > agreed) agreed = all[2 * i + 1]!;
    const ctx = takeAgreedCtx(this, 'Merge', agreed);
    // Union index 0 is in the first canonical group, index n - 1 in the second.
    const firstHigh = all[0]!;
    const secondHigh = all[2 * (n - 1)]!;
    const swap = firstHigh > secondHigh;
    const firstSize = u.localFirst ? this.local.size : core.size;
    const worldRanks = new Int32Array(n);
    if (swap) {
      worldRanks.set(u.p.worldRanks.subarray(firstSize), 0);
      worldRanks.set(u.p.worldRanks.subarray(0, firstSize), n - firstSize);
    } else {
      worldRanks.set(u.p.worldRanks);
    }
    const localFirstNow = u.localFirst !== swap;
    const rank = localFirstNow ? this.local.rank : core.size + this.local.rank;
    const merged = new Intracomm(`comm#${ctx}`, { rank, size: n, worldRanks, ctx });
    merged.Set_errhandler(this.Get_errhandler());
    return derived(merged, this);
  }

  /** The union of both groups, canonical order, on our ctx + 1, addressed by union index. */
  private union(core: CommCore): { p: Participants; localFirst: boolean } {
    const local = this.local;
    const localFirst = this.localFirst ?? local.worldRanks[0]! < core.worldRanks[0]!;
    const n = local.size + core.size;
    const worldRanks = new Int32Array(n);
    worldRanks.set(localFirst ? local.worldRanks : core.worldRanks, 0);
    worldRanks.set(localFirst ? core.worldRanks : local.worldRanks, localFirst ? local.size : core.size);
    const commRanks = new Int32Array(n);
    for (let i = 0; i < n; i++) commRanks[i] = i;
    const index = localFirst ? local.rank : core.size + local.rank;
    return { p: { ctx: core.ctx + 1, index, worldRanks, commRanks }, localFirst };
  }
}

// ------------------------------------------------------------------ Create_intercomm

function show(x: unknown): string {
  return typeof x === 'number' ? String(x) : describe(x);
}

/**
 * comm.Create_intercomm: collective over this communicator (the local group) and, through the
 * two leaders talking on peer_comm with `tag`, over the remote group. Steps: each group agrees
 * on the maximum of its next free context ids; the leaders swap (member world ranks, maximum)
 * on peer_comm; each leader sends the remote members and the larger maximum to its group; all
 * take that id, above every id either group used.
 */
function createIntercomm(this: Intracomm, local_leader: number, peer_comm: Comm, remote_leader: number, tag = 0): Intercomm {
  const call = 'Create_intercomm';
  const local = this.coreFor(call);
  if (!(Number.isInteger(local_leader) && local_leader >= 0 && local_leader < local.size)) {
    this.fail(call, ErrorClass.ERR_RANK, `local_leader ${show(local_leader)} is out of range (expected 0..${local.size - 1})`);
  }
  if (!(Number.isInteger(tag) && tag >= 0 && tag <= TAG_UB_VALUE)) {
    this.fail(call, ErrorClass.ERR_TAG, `tag ${show(tag)} is invalid (expected 0..${TAG_UB_VALUE})`);
  }
  const world = runtime.requireRunning(call);
  const localMax = allreduceMaxInt(world, allMembers(local), nextFreeCtx(), TAG_CREATE_MAX);
  let remoteRanks: Int32Array;
  let agreed: number;
  if (local.rank === local_leader) {
    if (!(peer_comm instanceof Comm)) this.fail(call, ErrorClass.ERR_COMM, `peer_comm must be an MPI.Comm, got ${describe(peer_comm)}`);
    const peerCore = peer_comm.coreFor(call);
    if (!(Number.isInteger(remote_leader) && remote_leader >= 0 && remote_leader < peerCore.size)) {
      this.fail(call, ErrorClass.ERR_RANK, `remote_leader ${show(remote_leader)} is out of range for peer_comm ` +
        `(expected 0..${peerCore.size - 1})`);
    }
    const theirs = peer_comm.sendrecv({ ranks: Array.from(local.worldRanks), ctx: localMax }, remote_leader, tag,
      remote_leader, tag) as { ranks: number[]; ctx: number };
    remoteRanks = Int32Array.from(theirs.ranks);
    for (const r of remoteRanks) {
      if (local.worldRanks.includes(r)) {
        this.fail(call, ErrorClass.ERR_COMM, `the local and remote groups overlap (world rank ${r} is in both)`);
      }
    }
    agreed = Math.max(localMax, theirs.ctx);
    const bytes = nodeV8().serialize({ ranks: theirs.ranks, ctx: agreed });
    const sends: CoreRequest[] = [];
    for (let r = 0; r < local.size; r++) {
      if (r !== local.rank) sends.push(world.engine.isend(bytes, local.worldRanks[r]!, local.ctx + 1, local.rank, TAG_CREATE_BCAST, MODE_STANDARD));
    }
    for (const s of sends) waitFree(world, s);
  } else {
    const r = world.engine.irecvAllocating(local.ctx + 1, local_leader, TAG_CREATE_BCAST);
    world.progress.wait(r);
    const got = nodeV8().deserialize(r.buf) as { ranks: number[]; ctx: number };
    world.engine.free(r);
    remoteRanks = Int32Array.from(got.ranks);
    agreed = got.ctx;
  }
  const ctx = takeAgreedCtx(this, call, agreed, 4);
  const inter = new Intercomm(`intercomm#${ctx}`, { rank: local.rank, size: remoteRanks.length, worldRanks: remoteRanks, ctx },
    { rank: local.rank, size: local.size, worldRanks: local.worldRanks, ctx });
  inter.Set_errhandler(this.Get_errhandler());
  return derived(inter, this);
}

function waitFree(world: World, r: CoreRequest): void {
  world.progress.wait(r);
  world.engine.free(r);
}

declare module './comm.js' {
  interface Comm {
    /** Whether this is an intercommunicator. */
    Is_inter(): boolean;
    /** Whether this is an intracommunicator. */
    Is_intra(): boolean;
  }
  interface Intracomm {
    /**
     * Collective over this communicator and the remote group: an Intercomm between them, the
     * leaders (local_leader here, remote_leader in peer_comm) talking on peer_comm with tag.
     */
    Create_intercomm(local_leader: number, peer_comm: Comm, remote_leader: number, tag?: number): Intercomm;
  }
}

Comm.prototype.Is_inter = function (this: Comm): boolean {
  this.coreFor('Is_inter');
  return this instanceof Intercomm;
};
Comm.prototype.Is_intra = function (this: Comm): boolean {
  this.coreFor('Is_intra');
  return !(this instanceof Intercomm);
};
Intracomm.prototype.Create_intercomm = createIntercomm;
