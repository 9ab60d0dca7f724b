// RankWake (src/mpid/rank-wake.ts) over a real doorbell: devices that cannot ring the doorbell
// are told when the first waiter announces sleep and when the last one retracts, once each,
// after the doorbell counts the sleeper (so a peer that sees the request also finds it counted);
// devices without announceSleep are left alone.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { Doorbell } from '../../../src/common/doorbell.js';
import type { Device } from '../../../src/mpid/device.js';
import { RankWake } from '../../../src/mpid/rank-wake.js';
import { SelfDevice } from '../../../src/mpid/self-device.js';

const bell = Doorbell.create(`rankwake${process.pid}`, 0);
after(() => bell.unlink());

describe('RankWake', () => {
  it('tells devices once per sleep, nested waiters included, and after the doorbell counted the sleeper', () => {
    const told: [boolean, number][] = [];
    const self = new SelfDevice(bell);
    const remote = Object.assign(new SelfDevice(bell), {
      announceSleep: (asleep: boolean) => { told.push([asleep, bell.sleepers()]); },
    }) as Device;
    const wake = new RankWake(bell, [self, remote]);
    wake.announce();
    wake.announce();
    assert.deepEqual(told, [[true, 1]]);
    wake.retract();
    assert.deepEqual(told, [[true, 1]], 'a waiter still sleeps');
    wake.retract();
    assert.deepEqual(told, [[true, 1], [false, 1]], 'told before the doorbell forgets the last sleeper');
    assert.equal(bell.sleepers(), 0);
  });

  it('a poke ends a sleep at once', () => {
    const wake = new RankWake(bell, []);
    const seen = wake.announce();
    wake.poke();
    const t0 = Date.now();
    wake.sleep(seen, 5000);
    wake.retract();
    assert.ok(Date.now() - t0 < 1000, 'the poked doorbell does not sleep');
  });
});
