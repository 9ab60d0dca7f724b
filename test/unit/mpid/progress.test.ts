// How a blocking wait backs off (src/mpid/progress.ts), with a stand-in engine that never makes
// progress and a stand-in doorbell that counts sleeps: a rank with a core of its own spins its
// budget and then sleeps; an oversubscribed one (the shared budget) first gives its core away a
// bounded number of times, one spin budget apart, and then sleeps all the same (never spins forever).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WakeHandle } from '../../../src/mpid/device.js';
import type { Engine } from '../../../src/mpid/engine.js';
import { Progress } from '../../../src/mpid/progress.js';

function harness(spinBudget: number) {
  let sleeps = 0;
  let progressCalls = 0;
  const engine = { progress: () => { progressCalls++; return 0; } } as unknown as Engine;
  const wake: WakeHandle = {
    announce: () => 0,
    sleep: () => { sleeps++; },
    sleepAsync: async () => { sleeps++; },
    retract: () => {},
    poke: () => {},
  };
  const progress = new Progress(engine, wake, spinBudget, 1000);
  return { progress, sleeps: () => sleeps, calls: () => progressCalls };
}

describe('Progress: backing off while waiting', () => {
  it('a dedicated budget spins its polls, then sleeps', () => {
    const budget = Progress.spinBudgetFor(1, 0);
    const h = harness(budget);
    for (let i = 0; i < budget - 1; i++) h.progress.step();
    assert.equal(h.sleeps(), 0);
    h.progress.step();
    assert.equal(h.sleeps(), 1, 'asleep after exactly one budget of idle polls');
  });

  it('an oversubscribed rank yields its core between budgets before it sleeps, a bounded number of times', () => {
    const budget = Progress.spinBudgetFor(1_000_000, 0);
    const h = harness(budget);
    let steps = 0;
    while (h.sleeps() === 0 && steps < 1_000_000) {
      h.progress.step();
      steps++;
    }
    assert.equal(h.sleeps(), 1, 'it sleeps in the end');
    // 16 yields, each after a full budget of idle polls, then one more budget and the sleep.
    assert.equal(steps, budget * 17, `slept after ${steps} steps of a ${budget}-poll budget`);
    for (let i = 0; i < budget * 17; i++) h.progress.step();
    assert.equal(h.sleeps(), 2, 'after a sleep the yields start over');
  });
});
