import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PmiClient, type LineChannel } from '../../../src/pmi/index.js';
import { PmiError } from '../../../src/common/errors.js';

/** A channel that answers from a script and records what the client sent. */
class ScriptedChannel implements LineChannel {
  readonly sent: string[] = [];
  closed = false;
  constructor(private readonly replies: Record<string, string[]>) {}
  send(line: string): void {
    this.sent.push(line);
  }
  receive(): string {
    const last = this.sent[this.sent.length - 1] ?? '';
    const cmd = /^cmd=(\S+)/.exec(last)?.[1] ?? '';
    const queue = this.replies[cmd];
    if (!queue || queue.length === 0) throw new Error(`script has no reply for ${JSON.stringify(last)}`);
    return queue.shift()!;
  }
  close(): void {
    this.closed = true;
  }
}

const handshakeReplies = () => ({
  init: ['cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n'],
  get_maxes: ['cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n'],
  get_my_kvsname: ['cmd=my_kvsname kvsname=kvs_42\n'],
});

describe('PMI-1 client', () => {
  it('performs init, get_maxes and get_my_kvsname', () => {
    const ch = new ScriptedChannel(handshakeReplies());
    const c = PmiClient.handshake(ch, 1, 4);
    assert.deepEqual(ch.sent, ['cmd=init pmi_version=1 pmi_subversion=1\n', 'cmd=get_maxes\n', 'cmd=get_my_kvsname\n']);
    assert.equal(c.kvsname, 'kvs_42');
    assert.deepEqual(c.maxes, { kvsnameMax: 256, keylenMax: 64, vallenMax: 1024 });
    assert.equal(c.rank, 1);
    assert.equal(c.size, 4);
  });

  it('puts and gets with the kvsname; a missing key (rc=1, Slurm style) is undefined', () => {
    const ch = new ScriptedChannel({
      ...handshakeReplies(),
      put: ['cmd=put_result rc=0 msg=success\n'],
      get: ['cmd=get_result rc=0 value=card1\n', 'cmd=get_result rc=1\n', 'cmd=get_result rc=-1 msg=key_x_not_found value=unknown\n'],
      barrier_in: ['cmd=barrier_out\n'],
      finalize: ['cmd=finalize_ack\n'],
    });
    const c = PmiClient.handshake(ch, 0, 2);
    c.put('k', 'card1');
    assert.equal(ch.sent.at(-1), 'cmd=put kvsname=kvs_42 key=k value=card1\n');
    c.barrier();
    assert.equal(c.get('k'), 'card1');
    assert.equal(c.get('nokey'), undefined);
    assert.equal(c.get('x'), undefined);
    c.finalize();
    assert.equal(ch.closed, true);
  });

  it('raises PmiError naming the command and quoting a failed reply', () => {
    const ch = new ScriptedChannel({ ...handshakeReplies(), put: ['cmd=put_result rc=-1 msg=duplicate_key\n'] });
    const c = PmiClient.handshake(ch, 0, 1);
    assert.throws(() => c.put('k', 'v'), (e: unknown) => {
      assert.ok(e instanceof PmiError);
      assert.match(e.message, /^PMI put failed: rc=-1; the server replied 'cmd=put_result rc=-1 msg=duplicate_key'$/);
      return true;
    });
  });

  it('raises on a reply to the wrong command and on a malformed reply', () => {
    const wrong = new ScriptedChannel({ ...handshakeReplies(), barrier_in: ['cmd=finalize_ack\n'] });
    const c = PmiClient.handshake(wrong, 0, 1);
    assert.throws(() => c.barrier(), /PMI barrier_in failed: expected cmd=barrier_out; the server replied 'cmd=finalize_ack'/);
    const bad = new ScriptedChannel({ ...handshakeReplies(), get_appnum: ['no equals sign\n'] });
    const d = PmiClient.handshake(bad, 0, 1);
    assert.throws(() => d.getAppnum(), /PMI get_appnum: malformed reply "no equals sign\\n"/);
  });

  it('rejects a maxes reply without integers and an unusable key or value', () => {
    const ch = new ScriptedChannel({ ...handshakeReplies(), get_maxes: ['cmd=maxes kvsname_max=x\n'] });
    assert.throws(() => PmiClient.handshake(ch, 0, 1), /get_maxes failed: kvsname_max is missing or not an integer/);
    const ok = PmiClient.handshake(new ScriptedChannel(handshakeReplies()), 0, 1);
    assert.throws(() => ok.put('a key', 'v'), /must be 1\.\.64 characters/);
    assert.throws(() => ok.put('k', 'x'.repeat(1025)), /at most 1024 characters/);
  });

  it('reads universe size and appnum', () => {
    const ch = new ScriptedChannel({
      ...handshakeReplies(),
      get_universe_size: ['cmd=universe_size size=-1\n'],
      get_appnum: ['cmd=appnum appnum=0\n'],
    });
    const c = PmiClient.handshake(ch, 0, 1);
    assert.equal(c.getUniverseSize(), -1);
    assert.equal(c.getAppnum(), 0);
  });

  it('sends abort with a one-line message', () => {
    const ch = new ScriptedChannel(handshakeReplies());
    const c = PmiClient.handshake(ch, 0, 1);
    c.abort(9, 'first line\nsecond line');
    assert.equal(ch.sent.at(-1), 'cmd=abort exitcode=9 message=first line second line\n');
  });

  it('is a singleton (null) without PMI variables and rejects a malformed PMI_FD', () => {
    assert.equal(PmiClient.fromEnvironment({}), null);
    assert.throws(() => PmiClient.fromEnvironment({ PMI_FD: 'three' }), /PMI_FD="three" in the environment is not an integer/);
    assert.throws(() => PmiClient.fromEnvironment({ PMI_PORT: 'nohostport' }), /is not host:port or an absolute socket path/);
  });
});
