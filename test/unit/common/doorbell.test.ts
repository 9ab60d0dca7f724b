// The doorbell (src/common/doorbell.ts): a peer wakes a sleeping owner once per announcement,
// not once per packet until the owner runs again; and with two peers ringing one owner that
// sleeps between their packets, no wake-up is lost (a lost one would leave the owner asleep
// until its timeout).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { Doorbell, PeerBell } from '../../../src/common/doorbell.js';
import { addon } from '../../../src/native/addon.js';
import { Child, uniqueName } from '../native/helpers.js';

const DOORBELL_URL = new URL('../../../src/common/doorbell.js', import.meta.url).href;

describe('Doorbell', () => {
  const bell = Doorbell.create(uniqueName('bell'), 0);
  const peer = PeerBell.attach(bell.name, 0);
  after(() => bell.unlink());

  it('a peer wakes once per announcement; the sleep that follows ends at once', () => {
    assert.equal(peer.ring(), false, 'nobody sleeps');
    let seen = bell.announce();
    assert.equal(peer.ring(), true, 'the first packet after the announcement wakes');
    assert.equal(peer.ring(), false, 'the owner is already woken: the next packets do not wake again');
    assert.equal(addon.futexWait(bell.cells, bell.index, seen, 5000), 'not-equal', 'the doorbell moved since the announcement');
    bell.retract();
    assert.equal(peer.ring(), false, 'nobody sleeps after the retraction');
    seen = bell.announce();
    assert.equal(peer.ring(), true, 'a new announcement is woken again');
    bell.retract();
  });

  it('two waiters of one process: one wake serves both, a later announcement is woken again', () => {
    const first = bell.announce();
    const second = bell.announce();
    assert.equal(peer.ring(), true);
    assert.equal(peer.ring(), false);
    assert.equal(addon.futexWait(bell.cells, bell.index, first, 5000), 'not-equal');
    assert.equal(addon.futexWait(bell.cells, bell.index, second, 5000), 'not-equal');
    bell.retract();
    assert.equal(bell.sleepers(), 1);
    const third = bell.announce();
    assert.equal(peer.ring(), true, 'the waiter that announced after the wake is woken');
    assert.equal(addon.futexWait(bell.cells, bell.index, third, 5000), 'not-equal');
    bell.retract();
    bell.retract();
    assert.equal(bell.sleepers(), 0);
  });

  it('loses no wake-up with two peers ringing an owner that sleeps between their packets', { timeout: 60_000 }, async () => {
    const PACKETS = 1500;
    const name = uniqueName('bellstress');
    // Words 0 and 1: packets published by peer 0 and 1; words 16 and 17: packets the owner took.
    const words = new Int32Array(addon.shmCreate(name, 4096));
    const owner = Doorbell.create(uniqueName('bellowner'), 0);
    const peerBody = (i: number) => `
      const { PeerBell } = await import(${JSON.stringify(DOORBELL_URL)});
      const words = new Int32Array(addon.shmOpen(${JSON.stringify(name)}));
      const bell = PeerBell.attach(${JSON.stringify(owner.name)}, 0);
      for (let k = 1; k <= ${PACKETS}; k++) {
        // Wait until the owner took packet k - 1, then a short irregular pause, then packet k.
        for (;;) {
          const took = Atomics.load(words, ${16 + i});
          if (took === k - 1) break;
          addon.futexWait(words, ${16 + i}, took, 1000);
        }
        const until = performance.now() + Math.random() * 0.05;
        while (performance.now() < until);
        Atomics.store(words, ${i}, k);
        bell.ring();
      }
      console.log('done');`;
    const peers = [new Child(peerBody(0), 50_000), new Child(peerBody(1), 50_000)];
    for (const p of peers) p.process.stdin!.end();
    let lost = 0;
    let sleeps = 0;
    const take = (): boolean => {
      let took = false;
      for (let i = 0; i < 2; i++) {
        const published = Atomics.load(words, i);
        if (published !== Atomics.load(words, 16 + i)) {
          Atomics.store(words, 16 + i, published);
          addon.futexWake(words, 16 + i, 1);
          took = true;
        }
      }
      return took;
    };
    try {
      const deadline = Date.now() + 45_000;
      while ((Atomics.load(words, 16) < PACKETS || Atomics.load(words, 17) < PACKETS) && Date.now() < deadline) {
        const seen = owner.announce();
        if (!take()) {
          sleeps++;
          // A correct doorbell ends every sleep well within a second: the peers' next packet
          // follows within microseconds of what we take.
          if (addon.futexWait(owner.cells, owner.index, seen, 1000) === 'timed-out' && !take()) lost++;
        }
        owner.retract();
      }
      const results = await Promise.all(peers.map((p) => p.exited));
      for (const r of results) assert.equal(r.status, 0, r.stderr);
      assert.equal(Atomics.load(words, 16), PACKETS);
      assert.equal(Atomics.load(words, 17), PACKETS);
      assert.equal(lost, 0, `${lost} sleeps ran to their timeout with a packet published (of ${sleeps} sleeps)`);
      assert.ok(sleeps > 100, `the owner slept only ${sleeps} times: the test did not exercise the wake-up`);
    } finally {
      for (const p of peers) p.kill();
      owner.unlink();
      addon.shmUnlink(name);
    }
  });
});
