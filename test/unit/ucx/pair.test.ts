// Two processes on this host talk through the UCX binding over TCP (UCX_TLS=tcp), each a peer
// program (peer.ts) that the test starts and bounds in time: messages of odd sizes both ways,
// a rendezvous received later, put/get with traded keys, atomics from both sides on one word,
// sleeping on the event fd and on a doorbell, the peer watch's heartbeats, and a partner killed
// with SIGKILL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ucxProbe } from '../../../src/native/addon.js';
import { checkAtomics, checkKill, checkMessages, checkRma, checkRndvLater, checkWake } from './checks.js';
import { runPair } from './harness.js';

const probe = ucxProbe();
const skip = probe.available ? false : `UCX is not usable here: ${probe.reason}`;

describe('UCX binding between two processes over TCP', { skip }, () => {
  it('240 messages each way (0 B to 64 MiB, headers 0-256 B, eager and rendezvous) arrive whole and in order', { timeout: 200_000 }, async () => {
    checkMessages(await runPair({ scenario: 'messages', limitMs: 180_000 }));
  });

  it('a rendezvous message waits at the sender until the receiver takes it into a buffer it picks later, or drops it', { timeout: 100_000 }, async () => {
    checkRndvLater(await runPair({ scenario: 'rndv-later', limitMs: 90_000 }));
  });

  it('a message gathered from pieces of memory (ucxAmSendIov) lands scattered into other pieces (ucxAmRecvIov), rendezvous and eager, gaps untouched', { timeout: 100_000 }, async () => {
    const r = await runPair({ scenario: 'iov', limitMs: 90_000 });
    assert.equal(r.a.fatal, undefined, `a failed: ${r.a.fatal}`);
    assert.equal(r.b.fatal, undefined, `b failed: ${r.b.fatal}`);
    assert.deepEqual(r.b.results, [
      { m: 0, rndv: true, wrong: 0, gapsWritten: 0 },
      { m: 1, rndv: true, wrong: 0, gapsWritten: 0 },
      { m: 2, rndv: true, wrong: 0, gapsWritten: 0 },
      { m: 3, rndv: false, wrong: 0, gapsWritten: 0 },
    ]);
  });

  it('put and get reach a window mapped by the other process through its packed remote key', { timeout: 100_000 }, async () => {
    checkRma(await runPair({ scenario: 'rma', limitMs: 90_000 }));
  });

  it('10,000 fetch-and-adds from each side on one word (64 and 32 bit), compare-and-swap, swap, and, or, xor', { timeout: 200_000 }, async () => {
    checkAtomics(await runPair({ scenario: 'atomics', limitMs: 180_000 }));
  });

  it('a receiver asleep on the event fd or on a doorbell wakes for a message and uses almost no CPU meanwhile', { timeout: 100_000 }, async () => {
    checkWake(await runPair({ scenario: 'wake', limitMs: 90_000 }), 100);
  });

  it('the peer watch: a partner that computes still beats, one that falls silent is reported lost within its timeout to a sleeper, one that says goodbye is not', { timeout: 60_000 }, async () => {
    const r = await runPair({ scenario: 'watch', limitMs: 50_000 });
    assert.equal(r.a.fatal, undefined, `a failed: ${r.a.fatal}`);
    assert.equal(r.b.fatal, undefined, `b failed: ${r.b.fatal}`);
    assert.equal(r.b.failuresWhileComputing, 0, 'A was reported lost while it computed (its relay did not beat)');
    assert.deepEqual(r.b.lost, { userId: 0, status: 'UCS_ERR_ENDPOINT_TIMEOUT' });
    assert.ok(r.b.detectedMs >= 400 && r.b.detectedMs < 2000, `the silence was reported after ${r.b.detectedMs} ms (timeout 600)`);
    assert.ok(r.b.sleeps >= 1, 'B was asleep on its doorbell when the report came');
    assert.equal(r.b.failuresAfterBye, 0, 'a partner that said goodbye was reported lost');
    assert.ok(r.b.heard >= 2, `B heard ${r.b.heard} beats after the restart`);
  });

  it('a partner killed with SIGKILL makes the survivor\'s endpoint report the failure, naming the peer, while it sleeps', { timeout: 100_000 }, async () => {
    const t0 = Date.now();
    let killedAt = -1;
    const r = await runPair({
      scenario: 'kill', limitMs: 90_000,
      onMessage: (from, m, children) => {
        if (from !== 'b' || m.sleeping !== true) return;
        killedAt = Date.now() - t0;
        children.a.kill('SIGKILL');
      },
    });
    checkKill(r, killedAt, 5_000);
  });
});
