// socketpair / connectTcp / connectUnix / setBlocking: blocking close-on-exec descriptors used
// with fs.readSync/fs.writeSync. Servers run in child processes, because this process blocks in
// connect and read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { addon } from '../../../src/native/addon.js';
import { Child } from './helpers.js';

const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;

/** The open-file flags of one of our descriptors, from /proc/self/fdinfo (octal there). */
function fdFlags(fd: number): number {
  const match = /^flags:\s+([0-7]+)$/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
  assert.ok(match, `no flags for fd ${fd}`);
  return parseInt(match[1]!, 8);
}

/** Sends `line`, reads until a newline arrives; blocks this thread, as the PMI client does. */
function roundTrip(fd: number, line: string): string {
  fs.writeSync(fd, `${line}\n`);
  const buf = Buffer.alloc(256);
  let got = '';
  while (!got.includes('\n')) {
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) throw new Error(`EOF after ${JSON.stringify(got)}`);
    got += buf.toString('utf8', 0, n);
  }
  return got.trimEnd();
}

/** A child running an upper-casing echo server; prints what `listenArgs` bound. */
function echoServer(listenArgs: string): Child {
  return new Child(
    `import net from 'node:net';
     const server = net.createServer((s) => s.on('data', (d) => s.write(d.toString().toUpperCase())));
     server.listen(${listenArgs}, () => console.log(JSON.stringify(server.address())));`,
    30_000,
  );
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('sockets', { timeout: 90_000 }, () => {
  test('socketpair: a blocking close-on-exec pair that carries bytes both ways', { timeout: 5_000 }, () => {
    const [a, b] = addon.socketpair();
    try {
      for (const fd of [a, b]) {
        const flags = fdFlags(fd);
        assert.equal(flags & O_NONBLOCK, 0, 'blocking');
        assert.notEqual(flags & O_CLOEXEC, 0, 'close-on-exec');
      }
      fs.writeSync(a, 'cmd=init pmi_version=1\n');
      const buf = Buffer.alloc(64);
      const n = fs.readSync(b, buf, 0, buf.length, null);
      assert.equal(buf.toString('utf8', 0, n), 'cmd=init pmi_version=1\n');
      fs.writeSync(b, 'rc=0\n');
      assert.equal(fs.readSync(a, buf, 0, buf.length, null), 5);
    } finally {
      fs.closeSync(a);
      fs.closeSync(b);
    }
  });

  test('setBlocking toggles O_NONBLOCK (a non-blocking empty read is EAGAIN)', { timeout: 5_000 }, () => {
    const [a, b] = addon.socketpair();
    try {
      addon.setBlocking(a, false);
      assert.notEqual(fdFlags(a) & O_NONBLOCK, 0);
      assert.throws(() => fs.readSync(a, Buffer.alloc(4), 0, 4, null), { code: 'EAGAIN' });
      addon.setBlocking(a, true);
      assert.equal(fdFlags(a) & O_NONBLOCK, 0);
      assert.throws(() => addon.setBlocking(1_000_000, true), (e: NodeJS.ErrnoException) =>
        e.code === 'EBADF' && e.message.includes('fd 1000000'));
      assert.throws(() => addon.setBlocking(a, 1 as unknown as boolean), TypeError);
    } finally {
      fs.closeSync(a);
      fs.closeSync(b);
    }
  });

  test('connectTcp reaches a server in another process, by address and by name', { timeout: 20_000 }, async () => {
    const server = echoServer(`0, '127.0.0.1'`);
    try {
      const { port } = await server.json<net.AddressInfo>();
      for (const host of ['127.0.0.1', 'localhost']) {
        const fd = addon.connectTcp(host, port, 5_000);
        try {
          const flags = fdFlags(fd);
          assert.equal(flags & O_NONBLOCK, 0, 'blocking');
          assert.notEqual(flags & O_CLOEXEC, 0, 'close-on-exec');
          assert.equal(roundTrip(fd, `cmd=get kvsname via ${host}`), `CMD=GET KVSNAME VIA ${host.toUpperCase()}`);
        } finally {
          fs.closeSync(fd);
        }
      }
    } finally {
      server.kill();
    }
  });

  test('connectTcp to an IPv6 literal', { timeout: 20_000 }, async (t) => {
    const server = echoServer(`0, '::1'`);
    try {
      const address = await server.json<net.AddressInfo>().catch(() => null);
      if (address === null) {
        t.skip('no IPv6 loopback on this machine');
        return;
      }
      const fd = addon.connectTcp('::1', address.port, 5_000);
      try {
        assert.equal(roundTrip(fd, 'v6'), 'V6');
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      server.kill();
    }
  });

  test('connectTcp to a closed port throws ECONNREFUSED naming host:port', { timeout: 10_000 }, async () => {
    const port = await closedPort();
    assert.throws(() => addon.connectTcp('127.0.0.1', port, 5_000), (e: NodeJS.ErrnoException) =>
      e.code === 'ECONNREFUSED' && e.syscall === 'connect' &&
      e.message.startsWith(`connectTcp: cannot connect to 127.0.0.1:${port}: `));
  });

  test('connectTcp gives up with ETIMEDOUT when the handshake cannot finish in time', { timeout: 30_000 }, async () => {
    // A listener whose accept queue is full (its process never accepts) drops further SYNs.
    const server = new Child(
      `import net from 'node:net';
       const server = net.createServer();
       server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         console.log(JSON.stringify(server.address()));
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25000);
       });`,
      30_000,
    );
    const opened: number[] = [];
    try {
      const { port } = await server.json<net.AddressInfo>();
      let timedOut: NodeJS.ErrnoException | undefined;
      let elapsed = 0;
      for (let i = 0; i < 16 && !timedOut; i++) {
        const start = Date.now();
        try {
          opened.push(addon.connectTcp('127.0.0.1', port, 300));
        } catch (e) {
          timedOut = e as NodeJS.ErrnoException;
          elapsed = Date.now() - start;
        }
      }
      assert.ok(timedOut, 'some connect must find the queue full');
      assert.equal(timedOut.code, 'ETIMEDOUT', timedOut.message);
      assert.match(timedOut.message, new RegExp(`^connectTcp: cannot connect to 127\\.0\\.0\\.1:${port}: `));
      assert.ok(elapsed >= 299 && elapsed < 2_000, `gave up after ${elapsed} ms for a 300 ms timeout`);
    } finally {
      for (const fd of opened) fs.closeSync(fd);
      server.kill();
    }
  });

  test('connectTcp argument errors', { timeout: 5_000 }, () => {
    assert.throws(() => addon.connectTcp('127.0.0.1', 0, 100), RangeError);
    assert.throws(() => addon.connectTcp('127.0.0.1', 65_536, 100), RangeError);
    assert.throws(() => addon.connectTcp(1 as unknown as string, 80, 100), TypeError);
  });

  test('connectUnix reaches a server in another process; missing and stale paths fail clearly', { timeout: 20_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-sock-'));
    const socketPath = path.join(dir, 'pmi.sock');
    const server = echoServer(JSON.stringify(socketPath));
    try {
      await server.line();
      const fd = addon.connectUnix(socketPath, 5_000);
      try {
        assert.notEqual(fdFlags(fd) & O_CLOEXEC, 0, 'close-on-exec');
        assert.equal(fdFlags(fd) & O_NONBLOCK, 0, 'blocking');
        assert.equal(roundTrip(fd, 'cmd=barrier_in'), 'CMD=BARRIER_IN');
      } finally {
        fs.closeSync(fd);
      }

      server.kill();
      await server.exited; // SIGKILL leaves the socket file behind, with nobody listening
      assert.ok(fs.existsSync(socketPath));
      assert.throws(() => addon.connectUnix(socketPath, 1_000), (e: NodeJS.ErrnoException) =>
        e.code === 'ECONNREFUSED' && e.message.startsWith(`connectUnix: cannot connect to '${socketPath}': `));

      const missing = path.join(dir, 'missing.sock');
      assert.throws(() => addon.connectUnix(missing, 1_000), (e: NodeJS.ErrnoException) =>
        e.code === 'ENOENT' && e.message.includes(missing));
      assert.throws(() => addon.connectUnix('/x'.repeat(60), 1_000), (e: NodeJS.ErrnoException) =>
        e instanceof RangeError && e.code === 'EINVAL' && /must be 1 to 107 bytes/.test(e.message));
    } finally {
      server.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
