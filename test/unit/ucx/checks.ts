/**
 * What each UCX peer scenario must have produced, shared by the one-host tests and the
 * two-host ones (hosts.test.ts).
 */
import assert from 'node:assert/strict';

import type { PairResult, Result } from './harness.js';
import { BITS_FINAL, COUNT, CSWAPS, FADDS, LATER_BYTES, messageBytes, SLEEP_MS, SWAPPED, WAKE_MODES } from './plan.js';

function noFatal(r: PairResult): void {
  for (const side of ['a', 'b'] as const) {
    const x = r[side];
    assert.equal(x.fatal, undefined, `${side} failed: ${x.fatal}\n${r.logs.join('\n')}`);
    assert.equal(x.exited, undefined, `${side} ended without a result (${x.exited}): ${x.stderr}`);
  }
}

/** Every message arrived once, in order, with its header and payload; all delivery paths were taken. */
export function checkMessages(r: PairResult): void {
  noFatal(r);
  for (const side of [r.a, r.b]) {
    assert.deepEqual(side.errors, []);
    assert.equal(side.received, COUNT);
    assert.equal(side.bytesIn, messageBytes());
    assert.deepEqual(side.failures, [], 'no endpoint may fail');
    // Inline records, rendezvous descriptors and eager data held outside the inbox all occurred.
    assert.ok(side.paths.inline > 0 && side.paths.rndv > 0 && side.paths.data + side.paths.copy > 0, JSON.stringify(side.paths));
    // Held eager data (UCX_AM_FLAG_PERSISTENT_DATA) was read in place too.
    assert.ok(side.paths.viewed > 0, JSON.stringify(side.paths));
  }
}

export function checkRndvLater(r: PairResult): void {
  noFatal(r);
  assert.deepEqual(r.a.returned, [1, 1, 1], 'rendezvous sends stay pending until the receiver takes them');
  assert.equal(r.a.pendingBeforeRecv, true, 'a send completed before its receiver took the data');
  assert.equal(r.a.status1, 0);
  assert.equal(r.a.status2, 0, 'a discarded rendezvous send completes with UCS_OK');
  const recs = r.b.records as Result[];
  assert.deepEqual(recs.map((x) => [x.hLen, x.h0, x.len]), [[2, 0xab, LATER_BYTES], [1, 0xab, 1 << 20], [1, 0xcd, 1]], 'order, headers, lengths');
  assert.ok(recs[0]!.descId >= 0 && recs[1]!.descId >= 0 && recs[2]!.descId === -1);
  assert.equal(r.b.status, 0);
  assert.equal(r.b.bad, -1, `received byte ${r.b.bad} wrong`);
  assert.equal(r.b.around, true, 'bytes outside the receive range changed');
  assert.match(r.b.secondDiscard as string, /not held by this worker/);
}

export function checkRma(r: PairResult): void {
  noFatal(r);
  assert.equal(r.a.getBefore, -1, `get: byte ${r.a.getBefore} wrong`);
  assert.equal(r.a.getAfter, -1, `get after the puts: byte ${r.a.getAfter} wrong`);
  assert.ok((r.a.statuses as number[]).every((s) => s === 0), `statuses ${r.a.statuses}`);
  assert.equal(r.b.bad, -1, `the target's window: byte ${r.b.bad} wrong`);
}

/** The old values fetched by both sides' increments are each value from 0 up, exactly once. */
function everyValueOnce(values: number[], count: number, what: string): void {
  const sorted = [...values].sort((x, y) => x - y);
  assert.equal(sorted.length, count, what);
  for (let i = 0; i < count; i++) {
    if (sorted[i] !== i) assert.fail(`${what}: value ${i} fetched ${sorted[i] === undefined ? 'never' : 'not once'} (saw ${sorted[i]} at ${i})`);
  }
}

export function checkAtomics(r: PairResult): void {
  noFatal(r);
  everyValueOnce([...r.a.fetched64, ...r.b.fetched64], 2 * FADDS, '64-bit fetch-and-add');
  everyValueOnce([...r.a.fetched32, ...r.b.fetched32], 2 * FADDS, '32-bit fetch-and-add');
  everyValueOnce([...r.a.won, ...r.b.won], 2 * CSWAPS, 'compare-and-swap increments');
  assert.equal(r.a.swappedOut, 0, 'swap fetched the old value');
  assert.deepEqual(r.b.final, {
    fadd64: 2 * FADDS, fadd32: 2 * FADDS, cswap: 2 * CSWAPS, bits64: BITS_FINAL, bits32: BITS_FINAL, swap: SWAPPED,
  });
}

/** Each sleep lasted until the message (about SLEEP_MS) and burnt almost no CPU. */
export function checkWake(r: PairResult, cpuLimitMs: number): void {
  noFatal(r);
  const rounds = r.b.rounds as Result[];
  assert.deepEqual(rounds.map((x) => x.mode), [...WAKE_MODES]);
  for (let m = 0; m < rounds.length; m++) {
    const x = rounds[m]!;
    assert.equal(x.got, m, `${x.mode}: woke for message ${x.got}`);
    assert.ok(x.sleeps >= 1, `${x.mode}: never slept`);
    assert.ok(x.wallMs >= SLEEP_MS * 0.8 && x.wallMs < SLEEP_MS + 5000, `${x.mode}: slept ${x.wallMs} ms for a message sent after ${SLEEP_MS} ms`);
    assert.ok(x.cpuMs < cpuLimitMs, `${x.mode}: used ${x.cpuMs} ms of CPU while asleep for ${x.wallMs} ms`);
  }
  assert.ok(r.b.rings >= 2, `the doorbell relay rang ${r.b.rings} times for two sleeps on the doorbell`);
}

/** B saw A's endpoint fail within `limitMs` of A's death, and the endpoint refuses work. */
export function checkKill(r: PairResult, killedAtMs: number, limitMs: number): void {
  assert.ok(r.a.exited === 'SIGKILL', `a: ${JSON.stringify(r.a)}`);
  assert.equal(r.b.fatal, undefined, `b failed: ${r.b.fatal}`);
  assert.equal(r.b.userId, 0, 'the failure names the peer by the id its endpoint was created with');
  assert.match(r.b.status as string, /^UCS_ERR_/);
  assert.equal(r.b.epStatus, r.b.status);
  assert.equal(r.b.epFailures, 1);
  assert.ok((r.b.sendAfter as number) < 0, 'a send on the failed endpoint fails');
  assert.ok(r.b.closed === 0 || r.b.closed === 1);
  const detected = r.at.b - killedAtMs;
  assert.ok(killedAtMs > 0 && detected < limitMs, `the failure was reported ${detected} ms after the kill`);
}
