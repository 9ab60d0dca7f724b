import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { authLine, newSecret, SECRET_ENV } from '../../../src/pmi/auth.js';
import { PmiServer } from '../../../src/pmi/index.js';
import { DIST } from '../../helpers.js';

/**
 * PMI over TCP with the job's secret (tsmpiexec --hosts): the server answers nothing to a
 * connection until it presented the secret, and closes any that presents another; the client
 * presents TSMPI_PMI_SECRET when its environment has one and says what went wrong when it is
 * refused. The server runs here; each client is a raw socket or a real PmiClient in a child
 * process (its calls block, so it cannot share this event loop).
 */
describe('PMI over TCP with the job\'s secret', { timeout: 30_000 }, () => {
  const secret = newSecret();
  const aborts: string[] = [];
  const server = new PmiServer({
    size: 1, kvsname: 'kvs_secret_test',
    onAbort: (rank, code, message) => aborts.push(`${rank} ${code} ${message}`),
    onProtocolError: (rank, message) => aborts.push(`protocol ${rank} ${message}`),
  });
  const tcp = net.createServer();
  let port = 0;
  const refusals: string[] = [];

  before(async () => {
    server.listenAuthenticated(tcp, secret, (why) => refusals.push(why));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    port = (tcp.address() as net.AddressInfo).port;
  });
  after(() => {
    server.close();
    tcp.close();
  });

  /** Sends `text`, returns what came back within `ms` and whether the server closed. */
  function knock(text: string, ms = 1500): Promise<{ received: string; closed: boolean }> {
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
      let received = '';
      let closed = false;
      socket.on('data', (d) => (received += d.toString()));
      socket.on('error', () => {});
      socket.on('close', () => {
        closed = true;
        finish();
      });
      const timer = setTimeout(finish, ms);
      function finish(): void {
        clearTimeout(timer);
        socket.destroy();
        resolve({ received, closed });
      }
    });
  }

  const PMI = 'cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_my_kvsname\n';

  it('closes a connection that speaks PMI without the secret, answering nothing', async () => {
    assert.deepEqual(await knock(PMI), { received: '', closed: true });
  });

  it('closes a connection with a wrong secret, a secret of another length, or the agent role', async () => {
    const wrong = secret.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    assert.deepEqual(await knock(`${authLine(wrong, 'rank')}${PMI}`), { received: '', closed: true });
    assert.deepEqual(await knock(`${authLine(secret.slice(1), 'rank')}${PMI}`), { received: '', closed: true });
    assert.deepEqual(await knock(`${authLine(secret, 'agent')}${PMI}`), { received: '', closed: true });
    assert.ok(refusals.length >= 4, refusals.join('; '));
  });

  it('serves PMI after the secret, including lines that came in the same packet', async () => {
    const r = await knock(`${authLine(secret, 'rank')}${PMI}`);
    assert.match(r.received, /^cmd=auth_result rc=0\ncmd=response_to_init .*\ncmd=my_kvsname kvsname=kvs_secret_test\n$/);
  });

  function client(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const script = `import { PmiClient } from ${JSON.stringify(path.join(DIST, 'src', 'pmi', 'index.js'))};
      const c = PmiClient.fromEnvironment(process.env);
      console.log('rank', c.rank, 'of', c.size, 'kvs', c.kvsname);
      c.finalize();`;
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH ?? '', PMI_PORT: `127.0.0.1:${port}`, PMI_ID: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  }

  it('a rank with the secret in its environment joins the job', async () => {
    const r = await client({ [SECRET_ENV]: secret });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^rank 0 of 1 kvs kvs_secret_test$/m);
  });

  it('a rank with another secret is told it was refused and why', async () => {
    const r = await client({ [SECRET_ENV]: newSecret() });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /PMI: the process manager at PMI_PORT=127\.0\.0\.1:\d+ refused this rank: the job's secret \(TSMPI_PMI_SECRET in the environment\) is not the one it expects/);
  });

  it('a rank without a secret (as under hydra) speaks plain PMI, and this server refuses it', async () => {
    const r = await client({});
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /PMI: the process manager \(PMI_PORT=127\.0\.0\.1:\d+\) closed the connection/);
  });
});
