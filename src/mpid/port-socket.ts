import { addon } from '../native/addon.js';

/**
 * The sockets of MPI's ports (mpir/dynamic/port.ts): mpir reaches the native addon only through
 * mpid. Every descriptor is blocking and close-on-exec; MPI's calls that use them are
 * synchronous and progress the world between short waits.
 */

/** A TCP socket listening on every address of the host, on a port the kernel chose: [fd, port]. */
export function listenOnAnyPort(): [number, number] {
  return addon.listenTcp();
}

/** The next connection on listening socket `fd`, or -1 when none came within timeoutMs. */
export function acceptWithin(fd: number, timeoutMs: number): number {
  return addon.acceptTcp(fd, timeoutMs);
}

/** A socket connected to host:port (throws, naming the address, when nobody listens). */
export function connectTo(host: string, port: number, timeoutMs: number): number {
  return addon.connectTcp(host, port, timeoutMs);
}

/** Whether `fd` has data to read (or its peer closed) within timeoutMs. */
export function readableWithin(fd: number, timeoutMs: number): boolean {
  return addon.waitReadable(fd, timeoutMs);
}
