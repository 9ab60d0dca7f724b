// Device selection (src/boot/select.ts) with the registered descriptors: each peer gets the
// highest-priority device that reaches it, both ranks of a pair agree, TSMPI_DEVICE forces one
// device for every other rank (not for ourselves), and an unreachable rank fails with a message
// that says what to do.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DEVICES } from '../../../src/boot/devices.js';
import { checkRegistry, chooseDevices, forcedDevice } from '../../../src/boot/select.js';
import { BootstrapError } from '../../../src/common/errors.js';
import type { BusinessCard } from '../../../src/mpid/business-card.js';
import type { DeviceDescriptor } from '../../../src/mpid/device.js';

/** A card as a rank running `devices` on `nodeId` publishes it. */
function card(rank: number, nodeId: string, devices: Record<string, string>): BusinessCard {
  return { rank, nodeId, kernelId: nodeId, pid: 1000 + rank, bell: `bell${rank}`, fenceCores: null, devices: new Map(Object.entries(devices)) };
}

const byName = (name: string): DeviceDescriptor => DEVICES.find((d) => d.name === name)!;
/** Names of the devices chosen by rank `me` for every rank. */
function names(me: number, cards: BusinessCard[], forced: DeviceDescriptor | null = null): string[] {
  const running = DEVICES.filter((d) => cards[me]!.devices.has(d.name));
  return chooseDevices(me, cards, running, forced, DEVICES).map((d) => d.name);
}

describe('device selection', () => {
  it('the registry has self, ch_shmem, ch_sci and ch_ucx, names usable as card keys, priorities in that order', () => {
    checkRegistry(DEVICES);
    assert.deepEqual(DEVICES.map((d) => d.name), ['self', 'ch_shmem', 'ch_sci', 'ch_ucx']);
    assert.ok(byName('self').priority > byName('ch_shmem').priority && byName('ch_shmem').priority > byName('ch_sci').priority &&
      byName('ch_sci').priority > byName('ch_ucx').priority);
    assert.equal(byName('ch_ucx').onDemand, true, 'ch_ucx must be opened only when the cards show ranks no other device reaches');
  });

  it('one node: self for ourselves, ch_shmem for the others', () => {
    const cards = [0, 1, 2].map((r) => card(r, 'hostA', { self: '1', ch_shmem: `seg${r}` }));
    assert.deepEqual(names(1, cards), ['ch_shmem', 'self', 'ch_shmem']);
  });

  it('two SCI nodes (--sci-nodes 2): ch_shmem within a node, ch_sci between, and every pair agrees', () => {
    const cards = [0, 1, 2, 3].map((r) => card(r, r < 2 ? 'hostA#sci0' : 'hostA#sci1',
      { self: '1', ch_shmem: `seg${r}`, ch_sci: String(r < 2 ? 4 : 8) }));
    assert.deepEqual(names(0, cards), ['self', 'ch_shmem', 'ch_sci', 'ch_sci']);
    assert.deepEqual(names(3, cards), ['ch_sci', 'ch_sci', 'ch_shmem', 'self']);
    for (let a = 0; a < 4; a++) {
      for (let b = 0; b < 4; b++) assert.equal(names(a, cards)[b], names(b, cards)[a], `ranks ${a} and ${b} agree`);
    }
  });

  it('TSMPI_DEVICE=sci: ch_sci for every other rank, even on our node; self stays ours', () => {
    const forced = forcedDevice('sci', DEVICES);
    assert.equal(forced?.name, 'ch_sci');
    assert.equal(forcedDevice('auto', DEVICES), null);
    // ch_shmem declines to open when another device is forced: the cards carry no ch_shmem field.
    const cards = [0, 1, 2].map((r) => card(r, 'hostA', { self: '1', ch_sci: '4' }));
    assert.deepEqual(names(2, cards, forced), ['ch_sci', 'ch_sci', 'self']);
    // Even with a ch_shmem field, a forced device wins for the others.
    const both = [0, 1].map((r) => card(r, 'hostA', { self: '1', ch_shmem: `seg${r}`, ch_sci: '4' }));
    assert.deepEqual(names(0, both, forced), ['self', 'ch_sci']);
  });

  it('a rank on another node without ch_sci on both sides is unreachable, and the message says what to do', () => {
    const cards = [card(0, 'hostA', { self: '1', ch_shmem: 'seg0' }), card(1, 'hostB', { self: '1', ch_shmem: 'seg1', ch_sci: '8' })];
    assert.throws(() => names(0, cards), (e: unknown) => e instanceof BootstrapError &&
      /rank 1 runs on node hostB, which no device reaches from hostA: ranks on different nodes need ch_sci on both/.test(e.message) &&
      /--sci-nodes K/.test(e.message));
  });

  it('a device of higher priority is preferred only where it reaches', () => {
    const wide: DeviceDescriptor = {
      name: 'wide', priority: 200, sharesMemory: false,
      reachable: (me, peer) => me.rank !== peer.rank && peer.rank % 2 === 0,
      open: () => null,
    };
    const registry = [...DEVICES, wide];
    checkRegistry(registry);
    const cards = [0, 1, 2, 3].map((r) => card(r, 'hostA', { self: '1', ch_shmem: `seg${r}` }));
    const chosen = chooseDevices(1, cards, [byName('self'), byName('ch_shmem'), wide], null, registry).map((d) => d.name);
    assert.deepEqual(chosen, ['wide', 'self', 'wide', 'ch_shmem']);
  });

  it('the registry refuses a device name that collides with another or with a card key', () => {
    const clone = (name: string): DeviceDescriptor => ({ ...byName('ch_sci'), name });
    assert.throws(() => checkRegistry([...DEVICES, clone('ch_sci')]), /ch_sci/);
    assert.throws(() => checkRegistry([...DEVICES, clone('bell')]), /bell/);
    assert.throws(() => checkRegistry([...DEVICES, clone('a,b')]), /a,b/);
  });
});
