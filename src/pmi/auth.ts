import { equalConstantTime, randomBytes } from '../common/ids.js';
import type net from 'node:net';
import { formatLine, parseLine } from './wire.js';

/**
 * The job's secret on tsmpiexec's TCP channels (PMI for the ranks, the control channel of the
 * host agents). A TCP port is open to every process on the cluster; hydra serves PMI to whoever
 * connects, so another user could join the job or read its keys. tsmpiexec draws a random secret
 * per job and hands it to agents on their stdin and to ranks in their environment (never on a
 * command line, which `ps` shows to everyone); the first line on a connection must carry it,
 * else the connection is closed without a byte of reply.
 */
export const SECRET_ENV = 'TSMPI_PMI_SECRET';

/** A new secret: 32 random bytes in hex (fits a PMI value: no spaces, no '='). */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

/** The line a client sends first. */
export function authLine(secret: string, role: 'rank' | 'agent'): string {
  return formatLine('auth', { role, secret });
}

/** How long a new connection may take to present the secret before it is closed. */
const AUTH_WAIT_MS = 10_000;

/** Most bytes read before the auth line must have ended (a PMI line's limit, with room). */
const AUTH_LINE_MAX = 1024;

/**
 * Serves `server`'s connections only after they present `secret` for `role`: then `onAccepted`
 * gets the socket and whatever arrived after the auth line. A wrong, missing or late secret
 * closes the connection unanswered; `onRefused` hears why (for a trace, never for the peer).
 */
export function acceptAuthenticated(server: net.Server, secret: string, role: 'rank' | 'agent',
                                    onAccepted: (socket: net.Socket, rest: string) => void,
                                    onRefused: (why: string) => void = () => {}): void {
  const expected = Buffer.from(secret);
  server.on('connection', (socket) => {
    let received = Buffer.alloc(0);
    const refuse = (why: string) => {
      cleanup();
      socket.destroy();
      onRefused(why);
    };
    const timer = setTimeout(() => refuse(`no secret within ${AUTH_WAIT_MS} ms`), AUTH_WAIT_MS);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const nl = received.indexOf(0x0a);
      if (nl < 0) {
        if (received.length > AUTH_LINE_MAX) refuse('first line too long');
        return;
      }
      cleanup();
      let ok = false;
      try {
        const msg = parseLine(received.subarray(0, nl).toString('utf8'));
        const presented = Buffer.from(msg.fields.get('secret') ?? '');
        ok = msg.cmd === 'auth' && msg.fields.get('role') === role &&
          presented.length === expected.length && equalConstantTime(presented, expected);
      } catch {
        ok = false;
      }
      if (!ok) {
        socket.destroy();
        onRefused('wrong or missing secret');
        return;
      }
      onAccepted(socket, received.subarray(nl + 1).toString('utf8'));
    };
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  });
}
