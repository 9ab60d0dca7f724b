// The two-process UCX scenarios of pair.test.ts with each process on an emulated host of its
// own (../shared/tools/netns-hosts.sh: its own network stack, hostname and /dev/shm), so only
// TCP/IP between two addresses reaches across. Needs root; brings the hosts up (idempotent) and
// leaves them up for other tests.
import { before, describe, it } from 'node:test';

import { ucxProbe } from '../../../src/native/addon.js';
import { checkAtomics, checkKill, checkMessages, checkRma, checkRndvLater, checkWake } from './checks.js';
import { bringHostsUp, whyNoHosts } from '../../emulated-hosts.js';
import { runPair } from './harness.js';

const probe = ucxProbe();
const skip = !probe.available ? `UCX is not usable here: ${probe.reason}` : (whyNoHosts() ?? false);
const HOSTS = ['h1', 'h2'] as const;

describe('UCX binding between two emulated hosts over TCP', { skip }, () => {
  before(() => bringHostsUp(HOSTS.length));

  it('messages of odd sizes both ways', { timeout: 200_000 }, async () => {
    checkMessages(await runPair({ scenario: 'messages', limitMs: 180_000, hosts: HOSTS }));
  });

  it('a rendezvous received later', { timeout: 100_000 }, async () => {
    checkRndvLater(await runPair({ scenario: 'rndv-later', limitMs: 90_000, hosts: HOSTS }));
  });

  it('put and get', { timeout: 100_000 }, async () => {
    checkRma(await runPair({ scenario: 'rma', limitMs: 90_000, hosts: HOSTS }));
  });

  it('atomics from both hosts on one word', { timeout: 200_000 }, async () => {
    checkAtomics(await runPair({ scenario: 'atomics', limitMs: 180_000, hosts: HOSTS }));
  });

  it('waking a sleeper on the other host', { timeout: 100_000 }, async () => {
    checkWake(await runPair({ scenario: 'wake', limitMs: 90_000, hosts: HOSTS }), 100);
  });

  it('a peer on the other host killed with SIGKILL', { timeout: 100_000 }, async () => {
    const t0 = Date.now();
    let killedAt = -1;
    const r = await runPair({
      scenario: 'kill', limitMs: 90_000, hosts: HOSTS,
      onMessage: (from, m, children) => {
        if (from !== 'b' || m.sleeping !== true) return;
        killedAt = Date.now() - t0;
        children.a.kill('SIGKILL');
      },
    });
    checkKill(r, killedAt, 5_000);
  });
});
