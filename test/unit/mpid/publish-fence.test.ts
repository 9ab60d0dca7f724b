// The asymmetric fence's agreement (src/mpid/publish-fence.ts): ranks of one kernel publish with
// plain stores only when every one of them registered with membarrier and they fit the fewest
// cores any of them may run on; ranks on other kernels do not count. Every rank computes the
// same answer from the same cards, whichever card is its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { BusinessCard } from '../../../src/mpid/business-card.js';
import { asymmetricFenceFor, joinAsymmetricFence } from '../../../src/mpid/publish-fence.js';

function card(rank: number, kernelId: string, fenceCores: number | null): BusinessCard {
  return { rank, nodeId: kernelId, kernelId, pid: 100 + rank, bell: `b${rank}`, fenceCores, devices: new Map() };
}

function everyRank(cards: BusinessCard[]): boolean[] {
  return cards.map((mine) => asymmetricFenceFor(mine, cards));
}

describe('asymmetric fence agreement', () => {
  it('holds when every rank of the kernel registered and they fit its cores', () => {
    assert.deepEqual(everyRank([card(0, 'k', 2), card(1, 'k', 2)]), [true, true]);
    assert.deepEqual(everyRank([card(0, 'k', 4), card(1, 'k', 4), card(2, 'k', 4)]), [true, true, true]);
  });

  it('fails for all when one rank of the kernel did not register', () => {
    assert.deepEqual(everyRank([card(0, 'k', 2), card(1, 'k', null)]), [false, false]);
  });

  it('fails for all when the ranks outnumber the fewest cores any of them may use', () => {
    assert.deepEqual(everyRank([card(0, 'k', 2), card(1, 'k', 2), card(2, 'k', 2)]), [false, false, false]);
    assert.deepEqual(everyRank([card(0, 'k', 8), card(1, 'k', 1)]), [false, false]);
  });

  it('counts only the ranks of our kernel', () => {
    const cards = [card(0, 'a', 2), card(1, 'a', 2), card(2, 'b', null), card(3, 'b', 2)];
    assert.deepEqual(everyRank(cards), [true, true, false, false]);
  });

  it('a rank that turns it off publishes no field', () => {
    assert.equal(joinAsymmetricFence(false, 4), null);
  });

  it('registers on x86-64 Linux where membarrier is available, and publishes its cores', () => {
    const field = joinAsymmetricFence(true, 3);
    if (process.arch === 'x64') assert.equal(field, 3, 'membarrier(2) GLOBAL_EXPEDITED should be available on this kernel');
    else assert.equal(field, null);
  });
});
