import type net from 'node:net';
import { acceptAuthenticated } from './auth.js';
import type { PmiServer } from './server.js';
import { formatLine, parseLine } from './wire.js';

/** Most characters read from a new connection before its first line must have ended. */
const FIRST_LINE_MAX = 1024;

/**
 * One PMI_PORT for every job of a launcher. A spawned job has its own PMI server (its own
 * key-value space and barrier), but its ranks reach the launcher at the same address as the
 * first job's, on one host or across hosts; PMI_IDs are unique over all jobs (each server has a
 * range, firstId .. firstId+size-1), so a connection's first line, `cmd=initack pmiid=<id>`,
 * says which server it belongs to. A connection that starts with anything else (a client
 * without PMI_ID) goes to the first job's server, as before spawn existed.
 */
export class PmiRouter {
  private readonly servers: PmiServer[] = [];

  add(server: PmiServer): void {
    this.servers.push(server);
  }

  /** Serves connections on a private socket (a Unix socket only this user can reach). */
  listen(listener: net.Server): void {
    listener.on('connection', (socket) => this.route(socket, ''));
  }

  /** Serves connections that first present the launcher's secret (TCP across hosts; see auth.ts). */
  listenAuthenticated(listener: net.Server, secret: string, onRefused?: (why: string) => void): void {
    acceptAuthenticated(listener, secret, 'rank', (socket, rest) => {
      socket.write(formatLine('auth_result', { rc: 0 }));
      this.route(socket, rest);
    }, onRefused);
  }

  /** The server that owns PMI_ID `id`, or undefined. */
  serverOf(id: number): PmiServer | undefined {
    return this.servers.find((s) => id >= s.firstId && id < s.firstId + s.size);
  }

  private route(socket: net.Socket, already: string): void {
    let text = already;
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl < 0) {
        if (text.length > FIRST_LINE_MAX) socket.destroy();
        return;
      }
      socket.off('data', onData);
      let target = this.servers[0];
      try {
        const first = parseLine(text.slice(0, nl + 1));
        if (first.cmd === 'initack') target = this.serverOf(Number(first.fields.get('pmiid'))) ?? target;
      } catch {
        // The first job's server reports the malformed line as a protocol error.
      }
      target?.attach(socket, null, text);
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
    if (already !== '') onData('');
  }
}
