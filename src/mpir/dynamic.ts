import type { SpawnCommand } from '../mpid/process-manager.js';
import { describe } from './buffer.js';
import { COMM_NULL, Comm, Intracomm, type CommCore } from './comm.js';
import { disconnect, meet } from './dynamic/connect.js';
import { bcastFromRoot, receiveFromRoot } from './dynamic/local-group.js';
import { closePort, openPort, receiveMessage, sendMessage } from './dynamic/port.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { INFO_NULL, Info, checkInfo } from './info.js';
import type { Intercomm } from './intercomm.js';
import { runtime } from './runtime.js';

/**
 * Dynamic processes, mpi4py's names (MPI-4.1 chapter 11): Spawn and Spawn_multiple, Get_parent,
 * ports (Open_port, Accept, Connect), the name service (Publish_name, Lookup_name), Join and
 * Disconnect. Every one of them ends in dynamic/connect.ts's meeting of two groups; Spawn asks
 * the process manager (PMI's spawn) for the children first and hands them its port, under
 * PARENT_ROOT_PORT_NAME, which their MPI.Init connects to.
 */

/** Where a spawning job leaves its port in its children's key-value space (MPICH's key). */
const PARENT_PORT_KEY = 'PARENT_ROOT_PORT_NAME';
/** Spawn's result at its root, sent to the other members of the spawning communicator. */
const TAG_SPAWNED = 0x7fff1018;

/** The intercommunicator to the job that spawned this one, once MPI.Init connected to it. */
let parent: Intercomm | null = null;
/** Every intercommunicator to another job made here, in the order made (Finalize disconnects the live ones). */
const connected: Intercomm[] = [];

/** Records an intercommunicator made by meeting another group. */
function met(inter: Intercomm): Intercomm {
  connected.push(inter);
  return inter;
}

/** MPI.COMM_SELF (mpi.ts makes the predefined communicators): Join's local group. */
let commSelf: Intracomm | null = null;

/** MPI.Init's step for a spawned job: every process connects to the parent's port (collective over COMM_WORLD). */
export function connectToParent(commWorld: Intracomm, self: Intracomm): void {
  commSelf = self;
  const world = runtime.requireRunning('MPI.Init');
  const port = world.pm.parentValue(PARENT_PORT_KEY);
  if (port === undefined) return;
  parent = met(meet(commWorld, 'MPI.Init', 0, { kind: 'connect', port }));
}

/**
 * MPI.Finalize's first step: MPI_FINALIZE is collective over every process connected to this
 * one, so each intercommunicator to another job still live is disconnected, in the order they
 * were made (the same order on both sides, as each was made by both together).
 */
export function disconnectAll(): void {
  for (const inter of connected) if (inter.isLive) disconnect(inter, 'Disconnect');
  connected.length = 0;
  parent = null;
}

function fail(call: string, errorClass: number, message: string): never {
  throw new MPIException(errorClass, `${call}: ${message}`);
}

function checkString(call: string, what: string, value: unknown, errorClass: number): string {
  if (typeof value !== 'string' || value === '') fail(call, errorClass, `${what} must be a non-empty string, got ${describe(value)}`);
  return value;
}

function checkInfoArgument(call: string, info: unknown): Info | null {
  const bad = checkInfo(info);
  if (bad !== null) fail(call, ErrorClass.ERR_INFO, bad);
  return info === undefined || info === null || info === INFO_NULL ? null : info as Info;
}

function checkRoot(comm: Comm, call: string, core: CommCore, root: unknown): number {
  if (!(Number.isInteger(root) && (root as number) >= 0 && (root as number) < core.size)) {
    comm.fail(call, ErrorClass.ERR_ROOT, `root ${describe(root)} is out of range (expected 0..${core.size - 1})`);
  }
  return root as number;
}

// ---------------------------------------------------------------- ports and names

function Open_port(info: Info = INFO_NULL): string {
  runtime.requireRunning('MPI.Open_port');
  checkInfoArgument('MPI.Open_port', info);
  return openPort();
}

function Close_port(port_name: string): void {
  runtime.requireRunning('MPI.Close_port');
  checkString('MPI.Close_port', 'port_name', port_name, ErrorClass.ERR_PORT);
  if (!closePort(port_name)) fail('MPI.Close_port', ErrorClass.ERR_PORT, `port_name ${JSON.stringify(port_name)} is not a port this process has open`);
}

/** Publish_name's and Unpublish_name's common part: checks, then the process manager's answer. */
function changeName(call: string, service_name: unknown, port_name: unknown, info: unknown, verb: string,
                    change: (world: ReturnType<typeof runtime.requireRunning>, service: string, port: string) => void): void {
  const world = runtime.requireRunning(call);
  const service = checkString(call, 'service_name', service_name, ErrorClass.ERR_SERVICE);
  const port = checkString(call, 'port_name', port_name, ErrorClass.ERR_PORT);
  checkInfoArgument(call, info);
  try {
    change(world, service, port);
  } catch (e) {
    fail(call, ErrorClass.ERR_SERVICE, `cannot ${verb} ${JSON.stringify(service)}: ${(e as Error).message}`);
  }
}

function Publish_name(service_name: string, port_name: string, info: Info = INFO_NULL): void {
  changeName('MPI.Publish_name', service_name, port_name, info, 'publish', (w, service, port) => w.pm.publishName(service, port));
}

function Unpublish_name(service_name: string, port_name: string, info: Info = INFO_NULL): void {
  changeName('MPI.Unpublish_name', service_name, port_name, info, 'unpublish', (w, service) => w.pm.unpublishName(service));
}

function Lookup_name(service_name: string, info: Info = INFO_NULL): string {
  const call = 'MPI.Lookup_name';
  const world = runtime.requireRunning(call);
  checkString(call, 'service_name', service_name, ErrorClass.ERR_NAME);
  checkInfoArgument(call, info);
  let port: string | undefined;
  try {
    port = world.pm.lookupName(service_name);
  } catch (e) {
    fail(call, ErrorClass.ERR_NAME, `cannot look up ${JSON.stringify(service_name)}: ${(e as Error).message}`);
  }
  if (port === undefined) fail(call, ErrorClass.ERR_NAME, `no port is published under the service name ${JSON.stringify(service_name)}`);
  return port;
}

export const dynamicProcessCalls = { Open_port, Close_port, Publish_name, Unpublish_name, Lookup_name } as const;

// ---------------------------------------------------------------- Accept, Connect, Spawn

/** Accept's and Connect's arguments at their root. */
function checkPortArgs(call: string, port_name: unknown, info: unknown): void {
  checkString(call, 'port_name', port_name, ErrorClass.ERR_PORT);
  checkInfoArgument(call, info);
}

function accept(this: Intracomm, port_name: string, info: Info = INFO_NULL, root = 0): Intercomm {
  const core = this.coreFor('Accept');
  checkRoot(this, 'Accept', core, root);
  return met(meet(this, 'Accept', root, { kind: 'accept', port: String(port_name), rootCheck: () => checkPortArgs('Intracomm.Accept', port_name, info) }));
}

function connect(this: Intracomm, port_name: string, info: Info = INFO_NULL, root = 0): Intercomm {
  const core = this.coreFor('Connect');
  checkRoot(this, 'Connect', core, root);
  return met(meet(this, 'Connect', root, { kind: 'connect', port: String(port_name), rootCheck: () => checkPortArgs('Intracomm.Connect', port_name, info) }));
}

/** mpi4py's errcodes argument: a list that receives an error code per process (filled in place). */
type Errcodes = number[] | null;

function spawn(this: Intracomm, command: string, args: readonly string[] | null = null, maxprocs = 1, info: Info = INFO_NULL,
               root = 0, errcodes: Errcodes = null): Intercomm {
  return spawnCommands(this, 'Spawn', root, errcodes, () => [commandOf('Spawn', command, args, maxprocs, info, '')]);
}

function spawnMultiple(this: Intracomm, command: readonly string[], args: readonly (readonly string[] | null)[] | null = null,
                       maxprocs: readonly number[] | null = null, info: Info | readonly Info[] = INFO_NULL, root = 0,
                       errcodes: Errcodes = null): Intercomm {
  return spawnCommands(this, 'Spawn_multiple', root, errcodes, () => {
    const call = 'Spawn_multiple';
    if (!Array.isArray(command) || command.length === 0) {
      fail(`Intracomm.${call}`, ErrorClass.ERR_ARG, `command must be a non-empty list of programs, got ${describe(command)}`);
    }
    const n = command.length;
    const listOf = <T>(what: string, x: unknown, fallback: T): T[] => {
      if (x === null || x === undefined) return new Array<T>(n).fill(fallback);
      if (!Array.isArray(x) || x.length !== n) {
        fail(`Intracomm.${call}`, ErrorClass.ERR_ARG, `${what} must be a list of ${n} (one per command), got ${describe(x)}`);
      }
      return x as T[];
    };
    const argv = listOf<readonly string[] | null>('args', args, null);
    const counts = listOf<number>('maxprocs', maxprocs, 1);
    const infos = info instanceof Info || info === null || info === undefined ? new Array<Info>(n).fill(info ?? INFO_NULL)
      : listOf<Info>('info', info, INFO_NULL);
    return command.map((c, i) => commandOf(call, c, argv[i]!, counts[i]!, infos[i]!, `[${i}]`));
  });
}

function commandOf(call: string, command: unknown, args: unknown, maxprocs: unknown, info: unknown, which: string): SpawnCommand {
  const name = `Intracomm.${call}`;
  checkString(name, `command${which}`, command, ErrorClass.ERR_SPAWN);
  if (args !== null && args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) {
    fail(name, ErrorClass.ERR_ARG, `args${which} must be a list of strings or null, got ${describe(args)}`);
  }
  if (!(Number.isInteger(maxprocs) && (maxprocs as number) >= 1 && (maxprocs as number) <= 0x7fffffff)) {
    fail(name, ErrorClass.ERR_ARG, `maxprocs${which} must be an integer 1..2^31-1, got ${describe(maxprocs)}`);
  }
  const hints = checkInfoArgument(name, info);
  return { command: command as string, args: (args as string[] | null) ?? [], maxprocs: maxprocs as number, info: new Map(hints?.items() ?? []) };
}

/**
 * Spawn's common part. At the root: check the commands, open a port, have the process
 * manager start the children with the port in their key-value space; the outcome goes to
 * every member; then all accept the children's connection (their MPI.Init).
 */
function spawnCommands(comm: Intracomm, call: string, root: number, errcodes: Errcodes,
                       commands: () => SpawnCommand[]): Intercomm {
  const core = comm.coreFor(call);
  const world = runtime.requireRunning(call);
  checkRoot(comm, call, core, root);
  if (errcodes !== null && errcodes !== undefined && !Array.isArray(errcodes)) {
    comm.fail(call, ErrorClass.ERR_ARG, `errcodes must be a list to fill or null, got ${describe(errcodes)}`);
  }
  let outcome: { codes: number[]; error: string | null; errorClass: number };
  let port = '';
  if (core.rank === root) {
    try {
      const list = commands();
      port = openPort();
      try {
        outcome = { codes: world.pm.spawn(list, new Map([[PARENT_PORT_KEY, port]])), error: null, errorClass: 0 };
      } catch (e) {
        closePort(port);
        outcome = { codes: [], error: `the process manager could not start the processes: ${(e as Error).message}`, errorClass: ErrorClass.ERR_SPAWN };
      }
      if (outcome.error === null && outcome.codes.some((c) => c !== 0)) {
        closePort(port);
        outcome = { ...outcome, error: `${outcome.codes.filter((c) => c !== 0).length} of ${outcome.codes.length} processes ` +
          `did not start (error codes ${outcome.codes.join(', ')})`, errorClass: ErrorClass.ERR_SPAWN };
      }
    } catch (e) {
      outcome = { codes: [], error: e instanceof MPIException ? e.message : String(e), errorClass: e instanceof MPIException ? e.error_class : ErrorClass.ERR_OTHER };
    }
    bcastFromRoot(world, core, root, outcome, TAG_SPAWNED);
  } else {
    outcome = receiveFromRoot<typeof outcome>(world, core, root, TAG_SPAWNED);
  }
  if (Array.isArray(errcodes)) errcodes.splice(0, errcodes.length, ...outcome.codes);
  if (outcome.error !== null) comm.fail(call, outcome.errorClass, outcome.error);
  try {
    return met(meet(comm, call, root, { kind: 'accept', port }));
  } finally {
    if (core.rank === root) closePort(port);
  }
}

// ---------------------------------------------------------------- Join, Disconnect, Get_parent

/**
 * Comm.Join(fd): the intercommunicator between this process and the one at the other end of
 * the connected socket `fd` (a number). Each opens a port and writes its name on the socket;
 * the one whose name sorts first accepts, the other connects.
 */
function join(fd: number): Intercomm {
  const call = 'Comm.Join';
  runtime.requireRunning(call);
  if (!(Number.isInteger(fd) && fd >= 0)) fail(call, ErrorClass.ERR_ARG, `fd must be the file descriptor of a connected socket, got ${describe(fd)}`);
  const world = runtime.requireRunning(call);
  const mine = openPort();
  try {
    let theirs: unknown;
    try {
      sendMessage(fd, { join: mine });
      theirs = (receiveMessage(world, fd) as { join?: unknown }).join;
    } catch (e) {
      fail(call, ErrorClass.ERR_ARG, `cannot swap port names on fd ${fd}: ${(e as Error).message} ` +
        '(the other process must call Comm.Join on its end of the same connection; a Node socket must be paused)');
    }
    if (typeof theirs !== 'string') fail(call, ErrorClass.ERR_ARG, `the process at the other end of fd ${fd} did not answer as Comm.Join does`);
    if (commSelf === null) fail(call, ErrorClass.ERR_OTHER, 'needs MPI.Init (a Session alone has no MPI.COMM_SELF)');
    return met(mine < theirs ? meet(commSelf, call, 0, { kind: 'accept', port: mine }) : meet(commSelf, call, 0, { kind: 'connect', port: theirs }));
  } finally {
    closePort(mine);
  }
}

function disconnectComm(this: Comm): void {
  disconnect(this, 'Disconnect');
  if ((this as unknown) === parent) parent = null;
}

declare module './comm.js' {
  interface Comm {
    /**
     * Collective: waits until every process is done with the communicator, then frees it; for
     * one to processes of another job, their loss is no error from here on.
     */
    Disconnect(): void;
  }
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Comm {
    /** The intercommunicator to the job that spawned this one, or MPI.COMM_NULL. */
    let Get_parent: () => Comm;
    /** The intercommunicator to the process at the other end of the connected socket `fd`. */
    let Join: (fd: number) => Intercomm;
  }
  interface Intracomm {
    /** Starts maxprocs processes of `command` (collective; args, info and errcodes count at the root). */
    Spawn(command: string, args?: readonly string[] | null, maxprocs?: number, info?: Info, root?: number, errcodes?: number[] | null): Intercomm;
    /** Starts the processes of several commands as one job (its processes' MPI.APPNUM says which command). */
    Spawn_multiple(command: readonly string[], args?: readonly (readonly string[] | null)[] | null, maxprocs?: readonly number[] | null,
                   info?: Info | readonly Info[], root?: number, errcodes?: number[] | null): Intercomm;
    /** Waits for a Connect on port_name (opened at the root with MPI.Open_port). Collective. */
    Accept(port_name: string, info?: Info, root?: number): Intercomm;
    /** Connects to the group accepting on port_name. Collective. */
    Connect(port_name: string, info?: Info, root?: number): Intercomm;
  }
}

function define(target: object, methods: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(methods)) {
    Object.defineProperty(target, name, { value, writable: true, configurable: true });
  }
}

define(Comm.prototype, { Disconnect: disconnectComm });
define(Comm, { Get_parent: (): Comm => parent ?? COMM_NULL, Join: join });
define(Intracomm.prototype, { Spawn: spawn, Spawn_multiple: spawnMultiple, Accept: accept, Connect: connect });
