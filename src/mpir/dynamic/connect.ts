import fs from 'node:fs';
import type { World } from '../../mpid/world.js';
import { allMembers, allreduceMaxInt } from '../coll-internal.js';
import type { Comm, Intracomm } from '../comm.js';
import { nextFreeCtx, takeAgreedCtx } from '../comm-manage.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { Intercomm } from '../intercomm.js';
import { derived } from '../lineage.js';
import { runtime } from '../runtime.js';
import { bcastFromRoot, gatherAtRoot, receiveFromRoot } from './local-group.js';
import { acceptOn, connectToPort, openedPort, parsePortName, receiveMessage, sendMessage } from './port.js';

/**
 * Accept and Connect: two groups of (usually) different jobs become the two sides of an
 * intercommunicator. Their processes never met at Init, so each side learns the other's device
 * addresses through the roots, who meet on the acceptor's port (port.ts):
 *
 *   every member opens its network device (ch_ucx; a single-host job opens it now) and gives
 *   the root its address, the peer number the remote processes will get here (`base`: remote
 *   rank r becomes peer base + r) and its next free context id
 *   → the connecting root sends its group's list and the maximum of its ids (Hello); the
 *   accepting root answers with its own list and the agreed id (Welcome)
 *   → each root gives its members the other list; each member makes an endpoint to every
 *   remote process, telling the device the number it is known by there (that process's base
 *   + our rank)
 *   → a barrier in each group, a "ready" swapped by the roots, a barrier again: no message
 *   travels before every process of both groups can place its sender.
 *
 * The accepting group comes first wherever the union of the groups is ordered (Merge, the
 * intercommunicator's own collectives): world ranks cannot say, as each job numbers its own.
 */

/** Internal tags on the local communicator's collective context (above intercomm.ts's). */
const TAG_GATHER = 0x7fff1010;
const TAG_RESULT = 0x7fff1011;
const TAG_SYNC = 0x7fff1012;

/** What a member tells its root. */
interface Member {
  readonly address: string;
  readonly base: number;
  readonly node: string;
  readonly job: string;
  readonly pid: number;
  readonly ctx: number;
}

/** What the root tells its members: the remote group and the agreed context id, or why it failed. */
type Outcome =
  | { readonly ok: true; readonly remote: readonly Member[]; readonly ctx: number }
  | { readonly ok: false; readonly errorClass: number; readonly message: string };

/** An error at a root, to be raised by every member alike. */
class RootError extends Error {
  constructor(readonly errorClass: number, message: string) {
    super(message);
  }
}

/** Which side of the meeting a group is on; the root's part of it (its socket to the other root). */
export interface Side {
  readonly kind: 'accept' | 'connect';
  readonly port: string;
  /**
   * The root's checks of its arguments (significant at the root only): run inside the root's
   * part, so a failure reaches every member as the same error instead of leaving them waiting.
   */
  readonly rootCheck?: () => void;
}

/**
 * Collective over `comm`: the intercommunicator between its group and the group on the other
 * side of the port. `side` matters at the root only (the others pass the same kind).
 */
export function meet(comm: Intracomm, call: string, root: number, side: Side): Intercomm {
  const local = comm.coreFor(call);
  const world = runtime.requireRunning(call);
  const device = world.remoteDevice();
  if (device === null || device.remote === undefined) {
    comm.fail(call, ErrorClass.ERR_OTHER, 'no device here reaches processes of other jobs: dynamic processes need UCX ' +
      '(Debian: apt-get install libucx0) on every host');
  }
  const me: Member = { address: device.remote!.address, base: world.nextPeer, node: world.nodeId, job: world.jobId, pid: process.pid, ctx: nextFreeCtx() };
  const members = gatherAtRoot(world, local, root, me, TAG_GATHER);
  let outcome: Outcome;
  let socket = -1;
  if (members !== null) {
    try {
      side.rootCheck?.();
      const met = side.kind === 'accept' ? acceptSide(world, side.port, members) : connectSide(world, side.port, members);
      socket = met.socket;
      outcome = { ok: true, remote: met.remote, ctx: met.ctx };
    } catch (e) {
      outcome = e instanceof RootError ? { ok: false, errorClass: e.errorClass, message: e.message }
        : e instanceof MPIException ? { ok: false, errorClass: e.error_class, message: e.message }
        : { ok: false, errorClass: ErrorClass.ERR_OTHER, message: (e as Error).message };
    }
    bcastFromRoot(world, local, root, outcome, TAG_RESULT);
  } else {
    outcome = receiveFromRoot<Outcome>(world, local, root, TAG_RESULT);
  }
  if (!outcome.ok) comm.fail(call, outcome.errorClass, outcome.message);
  const remote = outcome.remote;
  const first = world.addRemotePeers(device!, remote.map((m) => ({
    address: m.address, usThere: m.base + local.rank, nodeId: m.node, jobId: m.job, pid: m.pid,
  })), me.base);
  // No message may travel before every process of both groups has its endpoints (a packet
  // from a peer a process cannot place would be lost).
  allreduceMaxInt(world, allMembers(local), 0, TAG_SYNC);
  if (socket >= 0) {
    try {
      sendMessage(socket, { ready: true });
      receiveMessage(world, socket);
    } finally {
      fs.closeSync(socket);
    }
  }
  allreduceMaxInt(world, allMembers(local), 0, TAG_SYNC);
  const ctx = takeAgreedCtx(comm, call, outcome.ctx, 4);
  const worldRanks = new Int32Array(remote.length);
  for (let i = 0; i < remote.length; i++) worldRanks[i] = first + i;
  const inter = new Intercomm(`intercomm#${ctx}`, { rank: local.rank, size: remote.length, worldRanks, ctx },
    { rank: local.rank, size: local.size, worldRanks: local.worldRanks, ctx }, side.kind === 'accept');
  inter.Set_errhandler(comm.Get_errhandler());
  return derived(inter, comm);
}

/** The accepting root: waits for a connection that presents the port's secret, answers it. */
function acceptSide(world: World, portName: string, members: readonly Member[]): { socket: number; remote: Member[]; ctx: number } {
  const port = openedPort(portName);
  if (port === undefined) {
    throw new RootError(ErrorClass.ERR_PORT, `port_name ${JSON.stringify(portName)} is not a port this process opened ` +
      '(MPI.Open_port gives one; the root of Accept must be its owner)');
  }
  for (;;) {
    const socket = acceptOn(world, port);
    let hello: { secret?: unknown; members?: unknown; ctx?: unknown };
    try {
      hello = receiveMessage(world, socket) as typeof hello;
    } catch {
      fs.closeSync(socket);
      continue; // a stray connection: wait for the real one
    }
    if (hello.secret !== port.secret || !isMemberList(hello.members) || typeof hello.ctx !== 'number') {
      fs.closeSync(socket);
      continue;
    }
    const ctx = Math.max(hello.ctx, maxCtx(members));
    sendMessage(socket, { members, ctx });
    return { socket, remote: hello.members, ctx };
  }
}

/** The connecting root: reaches the port, introduces its group, reads the answer. */
function connectSide(world: World, portName: string, members: readonly Member[]): { socket: number; remote: Member[]; ctx: number } {
  const parsed = parsePortName(portName);
  if (parsed === null) throw new RootError(ErrorClass.ERR_PORT, `port_name ${JSON.stringify(portName)} is not a port name (MPI.Open_port gives one)`);
  let socket: number;
  try {
    socket = connectToPort(portName);
  } catch (e) {
    throw new RootError(ErrorClass.ERR_PORT, `port_name: ${(e as Error).message}`);
  }
  try {
    sendMessage(socket, { secret: parsed.secret, members, ctx: maxCtx(members) });
    const welcome = receiveMessage(world, socket) as { members?: unknown; ctx?: unknown };
    if (!isMemberList(welcome.members) || typeof welcome.ctx !== 'number') throw new Error('the accepting side answered in a form tsmpi does not know');
    return { socket, remote: welcome.members, ctx: welcome.ctx };
  } catch (e) {
    fs.closeSync(socket);
    throw new RootError(ErrorClass.ERR_PORT, `the accepting side of ${JSON.stringify(portName)}: ${(e as Error).message}`);
  }
}

function maxCtx(members: readonly Member[]): number {
  let max = 0;
  for (const m of members) if (m.ctx > max) max = m.ctx;
  return max;
}

function isMemberList(x: unknown): x is Member[] {
  return Array.isArray(x) && x.length > 0 && x.every((m) => typeof m === 'object' && m !== null &&
    typeof (m as Member).address === 'string' && Number.isInteger((m as Member).base) && typeof (m as Member).node === 'string' && typeof (m as Member).job === 'string' &&
    Number.isInteger((m as Member).pid) && Number.isInteger((m as Member).ctx));
}

// ---------------------------------------------------------------- Disconnect

/**
 * Comm.Disconnect: waits until the other processes are done with the communicator (a barrier
 * over it), makes sure what we sent them has left and tells the device their loss is no error
 * from now on (release), then a second barrier: a process leaves it only once every process
 * has released it, so none can end (and close its endpoints) while another would still take
 * that for a failure. Then it frees the communicator. Collective.
 */
export function disconnect(comm: Comm, call: string): void {
  // An intercommunicator's core holds the remote group, an intracommunicator's every member.
  const core = comm.coreFor(call);
  const world = runtime.requireRunning(call);
  comm.Barrier();
  for (const peer of core.worldRanks) if (peer >= world.size) world.releasePeer(peer);
  comm.Barrier();
  comm.Free();
}
