// Two processes on this host talk through the UCX binding over TCP (UCX_TLS=tcp), each a peer
// program (peer.ts) that the test starts and bounds in time: messages of odd sizes both ways,
// a rendezvous received later, put/get with traded keys, atomics from both sides on one word,
// sleeping on the event fd and on a doorbell, and a partner killed with SIGKILL.
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

  it('put and get reach a window mapped by the other process through its packed remote key', { timeout: 100_000 }, async () => {
    checkRma(await runPair({ scenario: 'rma', limitMs: 90_000 }));
  });

  it('10,000 fetch-and-adds from each side on one word (64 and 32 bit), compare-and-swap, swap, and, or, xor', { timeout: 200_000 }, async () => {
    checkAtomics(await runPair({ scenario: 'atomics', limitMs: 180_000 }));
  });

  it('a receiver asleep on the event fd or on a doorbell wakes for a message and uses almost no CPU meanwhile', { timeout: 100_000 }, async () => {
    checkWake(await runPair({ scenario: 'wake', limitMs: 90_000 }), 100);
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
