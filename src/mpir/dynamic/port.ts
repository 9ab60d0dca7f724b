import { randomBytes } from '../../common/ids.js';
import fs from 'node:fs';
import os from 'node:os';
import { acceptWithin, connectTo, listenOnAnyPort, readableWithin } from '../../mpid/port-socket.js';
import type { World } from '../../mpid/world.js';

/**
 * Ports (MPI.Open_port): where an Accept waits for a Connect of another job. A port is a TCP
 * socket listening on every address of the host; its name says how to reach it and holds a
 * secret, so only a process given the name connects:
 *
 *   tsmpi-port/<tcp port>/<secret>/<address>,<address>,...
 *
 * Only the roots of Accept and Connect meet on it, to swap their groups' device addresses
 * (connect.ts); the messages of the new intercommunicator then travel through the device
 * (ch_ucx). A name holds no space, ',' outside the address list or '=', so PMI can carry it
 * (Spawn's PARENT_ROOT_PORT_NAME, Publish_name).
 */
const PREFIX = 'tsmpi-port/';
/** How long a Connect tries each address of the port before the next. */
const CONNECT_TIMEOUT_MS = 5000;

interface OpenPort {
  readonly fd: number;
  readonly secret: string;
}

const open = new Map<string, OpenPort>();

/** The parts of a port name, or null when `name` is not one of ours. */
export function parsePortName(name: string): { port: number; secret: string; hosts: string[] } | null {
  if (!name.startsWith(PREFIX)) return null;
  const [port, secret, hosts, ...rest] = name.slice(PREFIX.length).split('/');
  const portNumber = Number(port);
  if (rest.length > 0 || !Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535 || !secret || !hosts) return null;
  return { port: portNumber, secret, hosts: hosts.split(',').filter((h) => h !== '') };
}

/** A new port on this process: its name. */
export function openPort(): string {
  const [fd, port] = listenOnAnyPort();
  const secret = randomBytes(12).toString('base64url');
  const name = `${PREFIX}${port}/${secret}/${hostAddresses().join(',')}`;
  open.set(name, { fd, secret });
  return name;
}

/** Closes a port this process opened; false when it has none of that name. */
export function closePort(name: string): boolean {
  const p = open.get(name);
  if (p === undefined) return false;
  open.delete(name);
  fs.closeSync(p.fd);
  return true;
}

/** The port of that name, if this process opened it. */
export function openedPort(name: string): OpenPort | undefined {
  return open.get(name);
}

/**
 * The host's addresses a peer may reach us by: other hosts' addresses first (they work from
 * anywhere), loopback last (it works from this host only, and in a namespace with no other).
 */
function hostAddresses(): string[] {
  const outside: string[] = [];
  const inside: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family !== 'IPv4' && a.scopeid !== undefined && a.scopeid !== 0) continue; // link-local IPv6 needs a zone
      (a.internal ? inside : outside).push(a.family === 'IPv6' ? `[${a.address}]` : a.address);
    }
  }
  return [...outside, ...inside];
}

/** Connects to the port `name` names, trying each of its addresses: the socket. */
export function connectToPort(name: string): number {
  const parsed = parsePortName(name);
  if (parsed === null) throw new Error(`${JSON.stringify(name)} is not a port name (MPI.Open_port gives one)`);
  const problems: string[] = [];
  for (const host of parsed.hosts) {
    try {
      return connectTo(host.replace(/^\[(.*)\]$/, '$1'), parsed.port, CONNECT_TIMEOUT_MS);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  throw new Error(`no one listens on port ${JSON.stringify(name)} (${problems.join('; ')}): ` +
    'was it closed, or did its process end?');
}

/** Waits for the next connection on `port`, progressing the world meanwhile. */
export function acceptOn(world: World, port: OpenPort): number {
  for (;;) {
    const fd = acceptWithin(port.fd, 1);
    if (fd >= 0) return fd;
    world.progress.step();
  }
}

/** Sends one message (JSON) on a port's connection: its length in 4 bytes, then the text. */
export function sendMessage(fd: number, message: unknown): void {
  const body = Buffer.from(JSON.stringify(message));
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32LE(body.length, 0);
  body.copy(frame, 4);
  let off = 0;
  while (off < frame.length) off += fs.writeSync(fd, frame, off, frame.length - off);
}

/** The next message on a port's connection, progressing the world while none has come. */
export function receiveMessage(world: World, fd: number): unknown {
  const head = readExactly(world, fd, 4);
  const length = head.readUInt32LE(0);
  if (length > 64 << 20) throw new Error(`a message of ${length} bytes on a port's connection is not ours`);
  return JSON.parse(readExactly(world, fd, length).toString('utf8'));
}

function readExactly(world: World, fd: number, n: number): Buffer {
  const out = Buffer.alloc(n);
  let off = 0;
  while (off < n) {
    if (!readableWithin(fd, 1)) {
      world.progress.step();
      continue;
    }
    const got = fs.readSync(fd, out, off, n - off, null);
    if (got === 0) throw new Error('the other side closed the connection (its process ended, or it refused us)');
    off += got;
  }
  return out;
}
