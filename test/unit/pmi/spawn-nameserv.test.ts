import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PmiError } from '../../../src/common/errors.js';
import {
  formatSpawnBlocks, NameService, PmiClient, PmiRouter, PmiServer, SpawnAssembler,
  type LineChannel, type SpawnRequest,
} from '../../../src/pmi/index.js';
import { RawClient } from './raw-client.js';

/** A channel that records what the client sent and answers each command from a queue, by command name. */
class ScriptedChannel implements LineChannel {
  readonly sent: string[] = [];
  constructor(private readonly replies: Record<string, string[]>) {}
  send(line: string): void {
    this.sent.push(line);
  }
  receive(): string {
    const last = this.sent[this.sent.length - 1] ?? '';
    const cmd = /^m?cmd=(\S+)/.exec(last)?.[1] ?? '';
    const queue = this.replies[cmd];
    if (!queue || queue.length === 0) throw new Error(`script has no reply for ${JSON.stringify(last)}`);
    return queue.shift()!;
  }
  close(): void {}
}

function client(replies: Record<string, string[]>): { c: PmiClient; ch: ScriptedChannel } {
  const ch = new ScriptedChannel({
    init: ['cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n'],
    get_maxes: ['cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n'],
    get_my_kvsname: ['cmd=my_kvsname kvsname=kvs_1\n'],
    ...replies,
  });
  const c = PmiClient.handshake(ch, 0, 1);
  ch.sent.length = 0;
  return { c, ch };
}

const REQUEST: SpawnRequest = {
  blocks: [
    { command: '/usr/bin/node', args: ['child.js', 'two words', 'k=v'], maxprocs: 2, info: [['wdir', '/tmp'], ['env', 'A=1 B=2']] },
    { command: 'other', args: [], maxprocs: 1, info: [] },
  ],
  preput: [['PARENT_ROOT_PORT_NAME', 'tag#0$port#1']],
};

/** The request as MPICH's simple_pmi.c PMI_Spawn_multiple writes it, field by field. */
const EXPECTED_BLOCKS = [
  'mcmd=spawn\nnprocs=2\nexecname=/usr/bin/node\ntotspawns=2\nspawnssofar=1\n' +
    'arg1=child.js\narg2=two words\narg3=k=v\nargcnt=3\n' +
    'preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\npreput_val_0=tag#0$port#1\n' +
    'info_num=2\ninfo_key_0=wdir\ninfo_val_0=/tmp\ninfo_key_1=env\ninfo_val_1=A=1 B=2\nendcmd\n',
  'mcmd=spawn\nnprocs=1\nexecname=other\ntotspawns=2\nspawnssofar=2\nargcnt=0\n' +
    'preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\npreput_val_0=tag#0$port#1\ninfo_num=0\nendcmd\n',
];

describe('PMI spawn wire format', () => {
  it('writes one block per command, one field per line, as simple PMI does', () => {
    assert.deepEqual(formatSpawnBlocks(REQUEST), EXPECTED_BLOCKS);
  });

  it('reassembles the blocks line by line into the same request, only after the last block', () => {
    const a = new SpawnAssembler();
    const lines = EXPECTED_BLOCKS.join('').split('\n').slice(0, -1).map((l) => `${l}\n`);
    const results = lines.map((l) => a.push(l));
    assert.equal(results.slice(0, -1).every((r) => r === null), true);
    assert.deepEqual(results.at(-1), REQUEST);
    assert.equal(a.active, false);
  });

  it('refuses a block with a missing argument or a bad count', () => {
    const a = new SpawnAssembler();
    for (const l of ['mcmd=spawn', 'nprocs=1', 'execname=x', 'totspawns=1', 'spawnssofar=1', 'argcnt=2', 'arg1=a']) a.push(`${l}\n`);
    assert.throws(() => a.push('endcmd\n'), /has no arg2/);
    const b = new SpawnAssembler();
    for (const l of ['mcmd=spawn', 'nprocs=zero', 'execname=x', 'totspawns=1', 'argcnt=0']) b.push(`${l}\n`);
    assert.throws(() => b.push('endcmd\n'), /nprocs="zero" is not an integer/);
    const none = new SpawnAssembler();
    for (const l of ['mcmd=spawn', 'nprocs=0', 'execname=x', 'totspawns=1', 'argcnt=0']) none.push(`${l}\n`);
    assert.throws(() => none.push('endcmd\n'), /every command asks for 0 processes/);
  });

  it('refuses an argument with a newline before sending anything', () => {
    const { c, ch } = client({});
    assert.throws(() => c.spawn({ blocks: [{ command: 'x', args: ['a\nb'], maxprocs: 1, info: [] }], preput: [] }), /contains a newline/);
    assert.throws(() => c.spawn({ blocks: [{ command: 'x', args: [], maxprocs: 1, info: [] }], preput: [['K', 'a b']] }), /white space/);
    assert.throws(() => c.spawn({ blocks: [{ command: 'x', args: [], maxprocs: 0, info: [] }], preput: [] }), /no process to start/);
    assert.throws(() => c.spawn({ blocks: [{ command: 'x', args: [], maxprocs: -1, info: [] }], preput: [] }), /integer >= 0/);
    assert.deepEqual(ch.sent, []);
  });
});

describe('PMI client: spawn and the name service', () => {
  it('sends the blocks and returns the errcodes of spawn_result', () => {
    const { c, ch } = client({ spawn: ['cmd=spawn_result rc=0 errcodes=0,0,5\n'] });
    assert.deepEqual(c.spawn(REQUEST), [0, 0, 5]);
    assert.deepEqual(ch.sent, EXPECTED_BLOCKS);
  });

  it('reads a spawn_result without errcodes (hydra) as all started', () => {
    const { c } = client({ spawn: ['cmd=spawn_result rc=0\n'] });
    assert.deepEqual(c.spawn(REQUEST), [0, 0, 0]);
  });

  it('raises PmiError with the server\'s message on rc != 0, and on a wrong number of errcodes', () => {
    const { c } = client({ spawn: ['cmd=spawn_result rc=1 msg=cannot find an executable "x" on PATH\n', 'cmd=spawn_result rc=0 errcodes=0,0\n'] });
    assert.throws(() => c.spawn(REQUEST), (e: unknown) => e instanceof PmiError && /failed: cannot find an executable "x" on PATH$/.test(e.message));
    assert.throws(() => c.spawn(REQUEST), /errcodes must be 3 integers/);
  });

  it('publishes, looks up and unpublishes with hydra\'s replies', () => {
    const { c, ch } = client({
      publish_name: ['cmd=publish_result info=ok rc=0 msg=success\n', 'cmd=publish_result info=ok rc=1 msg=key_already_present\n'],
      lookup_name: ['cmd=lookup_result port=tag#0$port#9 info=ok rc=0 msg=success\n', 'cmd=lookup_result rc=1 msg=service_not_found\n'],
      unpublish_name: ['cmd=unpublish_result info=ok rc=0 msg=success\n', 'cmd=unpublish_result info=ok rc=1 msg=service_not_found\n'],
    });
    c.publishName('svc', 'tag#0$port#9');
    assert.throws(() => c.publishName('svc', 'p'), /cannot publish the service "svc": key_already_present/);
    assert.equal(c.lookupName('svc'), 'tag#0$port#9');
    assert.equal(c.lookupName('svc'), undefined);
    c.unpublishName('svc');
    assert.throws(() => c.unpublishName('svc'), /cannot unpublish the service "svc": service_not_found/);
    assert.deepEqual(ch.sent.slice(0, 3), ['cmd=publish_name service=svc port=tag#0$port#9\n', 'cmd=publish_name service=svc port=p\n', 'cmd=lookup_name service=svc\n']);
    assert.equal(ch.sent[4], 'cmd=unpublish_name service=svc\n');
    assert.throws(() => c.publishName('my service', 'p'), /cannot travel over PMI/);
    assert.throws(() => c.lookupName(''), /cannot travel over PMI/);
  });

  it('parentValue is a get in the job\'s own space', () => {
    const { c, ch } = client({ get: ['cmd=get_result rc=0 msg=success value=port-7\n', 'cmd=get_result rc=-1 msg=key_not_found\n'] });
    assert.equal(c.parentValue('PARENT_ROOT_PORT_NAME'), 'port-7');
    assert.equal(c.parentValue('PARENT_ROOT_PORT_NAME'), undefined);
    assert.equal(ch.sent[0], 'cmd=get kvsname=kvs_1 key=PARENT_ROOT_PORT_NAME\n');
  });
});

describe('PMI server: spawn, preput, appnum, the name service and routing', { timeout: 20_000 }, () => {
  const fail = (what: string) => () => assert.fail(what);

  async function listening(router: PmiRouter): Promise<{ connect(): Promise<RawClient>; close(): void }> {
    const sockPath = path.join(os.tmpdir(), `tsmpi-test-spawn-${process.pid}-${Math.random().toString(36).slice(2)}.sock`);
    const listener = net.createServer();
    router.listen(listener);
    await new Promise<void>((r) => listener.listen(sockPath, r));
    const sockets: net.Socket[] = [];
    return {
      async connect() {
        const socket = net.connect(sockPath);
        sockets.push(socket);
        await new Promise<void>((r) => socket.once('connect', () => r()));
        return new RawClient(socket);
      },
      close() {
        for (const s of sockets) s.destroy();
        listener.close();
      },
    };
  }

  it('takes the client\'s exact bytes, hands the whole request to onSpawn and answers after it', async () => {
    const requests: SpawnRequest[] = [];
    let release: () => void = () => {};
    const names = new NameService();
    const parent = new PmiServer({
      size: 1, kvsname: 'kvs_p', names, onAbort: fail('abort'), onProtocolError: fail('protocol error'),
      onSpawn: async (rank, request) => {
        assert.equal(rank, 0);
        requests.push(request);
        await new Promise<void>((r) => (release = r));
        return { errcodes: [0, 0, 0] };
      },
    });
    const router = new PmiRouter();
    router.add(parent);
    const net1 = await listening(router);
    const c = await net1.connect();
    assert.equal(await c.ask('cmd=initack pmiid=0\n'), 'cmd=initack\n');
    for (let i = 0; i < 3; i++) await c.next();
    // The client's spawn, written the way the client writes it: a block per write.
    const { c: pc, ch } = client({ spawn: ['cmd=spawn_result rc=0\n'] });
    pc.spawn(REQUEST);
    let answered = false;
    const reply = c.ask(ch.sent[0]!).then((l) => {
      answered = true;
      return l;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(requests.length, 0, 'onSpawn ran before the last block');
    c.socket.write(ch.sent[1]!);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(requests, [REQUEST]);
    assert.equal(answered, false, 'answered before the processes were started');
    release();
    assert.equal(await reply, 'cmd=spawn_result rc=0 errcodes=0,0,0\n');
    net1.close();
    parent.close();
  });

  it('answers a refused spawn with rc=1 and a one-line message without "="', async () => {
    const server = new PmiServer({
      size: 1, kvsname: 'kvs_p', onAbort: fail('abort'), onProtocolError: fail('protocol error'),
      onSpawn: async () => ({ error: 'cannot find "x" on PATH=/bin\nreally' }),
    });
    const router = new PmiRouter();
    router.add(server);
    const l = await listening(router);
    const c = await l.connect();
    c.socket.write('cmd=initack pmiid=0\n');
    for (let i = 0; i < 4; i++) await c.next();
    const { c: pc, ch } = client({ spawn: ['cmd=spawn_result rc=0\n'] });
    pc.spawn({ blocks: [{ command: 'x', args: [], maxprocs: 1, info: [] }], preput: [] });
    assert.equal(await c.ask(ch.sent[0]!), 'cmd=spawn_result rc=1 msg=cannot find "x" on PATH:/bin really\n');
    l.close();
    server.close();
  });

  it('routes PMI_PORT connections by PMI_ID to each job\'s server: own size, rank, appnum, preput and space; names shared', async () => {
    const names = new NameService();
    const parent = new PmiServer({ size: 2, kvsname: 'kvs_p', names, onAbort: fail('abort'), onProtocolError: fail('protocol error') });
    const child = new PmiServer({
      size: 3, kvsname: 'kvs_c', names, firstId: 2, preput: [['PARENT_PORT', 'port-x']], appnumOf: (r) => [0, 0, 1][r]!,
      onAbort: fail('abort'), onProtocolError: fail('protocol error'),
    });
    const router = new PmiRouter();
    router.add(parent);
    router.add(child);
    const l = await listening(router);
    const p0 = await l.connect();
    const c2 = await l.connect();
    assert.equal(await p0.ask('cmd=initack pmiid=0\n'), 'cmd=initack\n');
    assert.deepEqual([await p0.next(), await p0.next(), await p0.next()], ['cmd=set size=2\n', 'cmd=set rank=0\n', 'cmd=set debug=0\n']);
    // PMI_ID 4 is the spawned job's rank 2.
    assert.equal(await c2.ask('cmd=initack pmiid=4\n'), 'cmd=initack\n');
    assert.deepEqual([await c2.next(), await c2.next(), await c2.next()], ['cmd=set size=3\n', 'cmd=set rank=2\n', 'cmd=set debug=0\n']);
    assert.equal(await c2.ask('cmd=get_my_kvsname\n'), 'cmd=my_kvsname kvsname=kvs_c\n');
    assert.equal(await c2.ask('cmd=get_appnum\n'), 'cmd=appnum appnum=1\n');
    assert.equal(await c2.ask('cmd=get kvsname=kvs_c key=PARENT_PORT\n'), 'cmd=get_result rc=0 msg=success value=port-x\n');
    assert.equal(await p0.ask('cmd=get kvsname=kvs_p key=PARENT_PORT\n'), 'cmd=get_result rc=-1 msg=key_PARENT_PORT_not_found\n');
    assert.equal(await p0.ask('cmd=put kvsname=kvs_p key=k value=parent\n'), 'cmd=put_result rc=0 msg=success\n');
    assert.equal(await c2.ask('cmd=get kvsname=kvs_c key=k\n'), 'cmd=get_result rc=-1 msg=key_k_not_found\n');
    // One name service across the jobs.
    assert.equal(await p0.ask('cmd=publish_name service=svc port=p-1\n'), 'cmd=publish_result info=ok rc=0 msg=success\n');
    assert.equal(await c2.ask('cmd=publish_name service=svc port=p-2\n'), 'cmd=publish_result info=ok rc=1 msg=key_already_present\n');
    assert.equal(await c2.ask('cmd=lookup_name service=svc\n'), 'cmd=lookup_result port=p-1 info=ok rc=0 msg=success\n');
    assert.equal(await c2.ask('cmd=unpublish_name service=svc\n'), 'cmd=unpublish_result info=ok rc=0 msg=success\n');
    assert.equal(await p0.ask('cmd=lookup_name service=svc\n'), 'cmd=lookup_result rc=1 msg=service_not_found\n');
    assert.equal(await p0.ask('cmd=unpublish_name service=svc\n'), 'cmd=unpublish_result info=ok rc=1 msg=service_not_found\n');
    l.close();
    parent.close();
    child.close();
  });

  it('refuses spawn without a launcher behind it, and reports a malformed spawn line as a protocol error', async () => {
    const errors: string[] = [];
    const server = new PmiServer({ size: 1, kvsname: 'k', onAbort: fail('abort'), onProtocolError: (_r, m) => errors.push(m) });
    const router = new PmiRouter();
    router.add(server);
    const l = await listening(router);
    const c = await l.connect();
    c.socket.write('cmd=initack pmiid=0\n');
    for (let i = 0; i < 4; i++) await c.next();
    assert.equal(await c.ask('mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\nspawnssofar=1\nargcnt=0\ninfo_num=0\nendcmd\n'),
      'cmd=spawn_result rc=1 msg=this process manager cannot spawn\n');
    c.socket.write('mcmd=spawn\nthis line has no equals sign\n');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(errors, ['PMI spawn: line "this line has no equals sign" is not key=value']);
    l.close();
    server.close();
  });
});
