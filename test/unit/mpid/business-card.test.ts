// Business cards (src/mpid/business-card.ts): what a rank publishes through PMI at Init, with a
// field per device that runs on it, survives the round trip, and a card tsmpi cannot read (or
// one that would break the encoding) is refused with a message naming it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BootstrapError } from '../../../src/common/errors.js';
import { decodeCard, encodeCard, type BusinessCard } from '../../../src/mpid/business-card.js';

describe('business cards', () => {
  it('round-trips node, kernel, pid, doorbell and every device field', () => {
    const card: BusinessCard = {
      rank: 3, nodeId: 'host-1.abcd1234#sci2', kernelId: '0123456789ab', pid: 4242, bell: 'tsmpi-job-3-bell-0a1b2c',
      fenceCores: 2, devices: new Map([['self', '1'], ['ch_shmem', 'tsmpi-job-3-rank-ffee'], ['ch_sci', '12']]),
    };
    const text = encodeCard(card);
    assert.ok(!/\s/.test(text), 'PMI values may not contain spaces');
    const back = decodeCard(3, text);
    assert.equal(back.rank, 3);
    assert.equal(back.nodeId, card.nodeId);
    assert.equal(back.kernelId, '0123456789ab');
    assert.equal(back.pid, 4242);
    assert.equal(back.bell, card.bell);
    assert.equal(back.fenceCores, 2);
    assert.deepEqual([...back.devices], [...card.devices]);
  });

  it('a rank that runs no device but self publishes no other field', () => {
    const text = encodeCard({ rank: 0, nodeId: 'h', kernelId: 'k', pid: 1, bell: 'b', fenceCores: null, devices: new Map([['self', '1']]) });
    assert.ok(!text.includes('fence='), text);
    const back = decodeCard(0, text);
    assert.deepEqual([...back.devices.keys()], ['self']);
    assert.equal(back.fenceCores, null);
  });

  it('refuses fields that would break the encoding, and cards of another version or without a doorbell', () => {
    assert.throws(() => encodeCard({ rank: 0, nodeId: 'h', kernelId: 'k', pid: 1, bell: 'b', fenceCores: null, devices: new Map([['ch_sci', '1,2']]) }),
      (e: unknown) => e instanceof BootstrapError && /"1,2"/.test(e.message));
    assert.throws(() => decodeCard(5, 'v=1,node=h,pid=1,shm=x,sci=0'),
      (e: unknown) => e instanceof BootstrapError && /rank 5 published a business card tsmpi cannot read/.test(e.message));
    assert.throws(() => decodeCard(5, 'v=3,node=h,pid=1'), BootstrapError);
    // A card of the previous version (no kernel id) is refused, not read with a guess.
    assert.throws(() => decodeCard(5, 'v=2,node=h,pid=1,bell=b'), BootstrapError);
    assert.throws(() => decodeCard(5, 'v=3,node=h,pid=1,bell=b'), BootstrapError);
    for (const fence of ['0', '-2', '1.5', 'x', '']) {
      assert.throws(() => decodeCard(6, `v=3,node=h,kernel=k,pid=1,bell=b,fence=${fence}`),
        (e: unknown) => e instanceof BootstrapError && /rank 6 .*bad fence field/.test(e.message), fence);
    }
  });
});
