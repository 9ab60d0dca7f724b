import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PmiServer } from '../../../src/pmi/index.js';
import { RawClient } from './raw-client.js';

describe('PMI-1 server', { timeout: 20_000 }, () => {
  const events: string[] = [];
  const options = (size: number) => ({
    size,
    kvsname: 'kvs_t',
    onAbort: (rank: number, code: number, message: string) => events.push(`abort ${rank} ${code} ${message}`),
    onProtocolError: (rank: number | null, message: string) => events.push(`error ${rank} ${message}`),
  });

  async function connected(server: PmiServer, rank: number | null): Promise<RawClient> {
    const sockPath = path.join(os.tmpdir(), `tsmpi-test-pmi-${process.pid}-${Math.random().toString(36).slice(2)}.sock`);
    const tcp = net.createServer();
    server.listen(tcp);
    if (rank !== null) {
      tcp.removeAllListeners('connection');
      tcp.on('connection', (s) => server.attach(s, rank));
    }
    await new Promise<void>((r) => tcp.listen(sockPath, r));
    const socket = net.connect(sockPath);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const client = new RawClient(socket);
    tcp.close();
    return client;
  }

  it('answers init, maxes, kvsname, appnum and universe size', async () => {
    const server = new PmiServer(options(1));
    const c = await connected(server, 0);
    assert.equal(await c.ask('cmd=init pmi_version=1 pmi_subversion=1\n'), 'cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n');
    assert.equal(await c.ask('cmd=get_maxes\n'), 'cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n');
    assert.equal(await c.ask('cmd=get_my_kvsname\n'), 'cmd=my_kvsname kvsname=kvs_t\n');
    assert.equal(await c.ask('cmd=get_appnum\n'), 'cmd=appnum appnum=0\n');
    assert.equal(await c.ask('cmd=get_universe_size\n'), 'cmd=universe_size size=1\n');
    assert.equal(server.isActive(0), true);
    assert.equal(await c.ask('cmd=finalize\n'), 'cmd=finalize_ack\n');
    assert.equal(server.isActive(0), false);
    server.close();
  });

  it('releases a barrier only when every rank entered it, and serves puts after it', async () => {
    const server = new PmiServer(options(3));
    const clients = [await connected(server, 0), await connected(server, 1), await connected(server, 2)];
    for (const [r, c] of clients.entries()) {
      assert.equal(await c.ask(`cmd=put kvsname=kvs_t key=card-${r} value=v${r}\n`), 'cmd=put_result rc=0 msg=success\n');
    }
    let released = 0;
    const outs = clients.map((c) => c.ask('cmd=barrier_in\n').then((l) => {
      released++;
      return l;
    }));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(released, 3);
    assert.deepEqual(await Promise.all(outs), ['cmd=barrier_out\n', 'cmd=barrier_out\n', 'cmd=barrier_out\n']);
    assert.equal(await clients[1]!.ask('cmd=get kvsname=kvs_t key=card-2\n'), 'cmd=get_result rc=0 msg=success value=v2\n');
    assert.equal(await clients[1]!.ask('cmd=get kvsname=kvs_t key=nope\n'), 'cmd=get_result rc=-1 msg=key_nope_not_found\n');
    assert.equal(await clients[1]!.ask('cmd=get kvsname=other key=card-2\n'), 'cmd=get_result rc=-1 msg=key_card-2_not_found\n');
    server.close();
  });

  it('holds a partial barrier', async () => {
    const server = new PmiServer(options(2));
    const a = await connected(server, 0);
    await connected(server, 1);
    const timeout = new Promise((r) => setTimeout(() => r('still waiting'), 100));
    assert.equal(await Promise.race([a.ask('cmd=barrier_in\n'), timeout]), 'still waiting');
    server.close();
  });

  it('identifies a PMI_PORT client by initack and sends size, rank and debug', async () => {
    const server = new PmiServer(options(4));
    const c = await connected(server, null);
    assert.equal(await c.ask('cmd=initack pmiid=2\n'), 'cmd=initack\n');
    assert.deepEqual([await c.next(), await c.next(), await c.next()], ['cmd=set size=4\n', 'cmd=set rank=2\n', 'cmd=set debug=0\n']);
    server.close();
  });

  it('reports abort with its exit code and message, and protocol errors', async () => {
    events.length = 0;
    const server = new PmiServer(options(2));
    const c = await connected(server, 1);
    c.socket.write('cmd=abort exitcode=7 message=it broke down\n');
    c.socket.write('cmd=frobnicate\n');
    c.socket.write('not a pmi line\n');
    const bad = await connected(server, null);
    bad.socket.write('cmd=initack pmiid=9\n');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(events, [
      'abort 1 7 it broke down',
      'error 1 unknown PMI command "frobnicate"',
      'error 1 malformed PMI line "not a pmi line\\n"',
      'error null initack with a bad or duplicate pmiid "9"',
    ]);
    server.close();
  });
});
