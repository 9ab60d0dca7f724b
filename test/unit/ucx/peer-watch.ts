/**
 * The peer watch (native/src/ucx_watch.cc) between two processes: A beats to B, B watches A
 * (every 100 ms, lost after 600 ms of silence).
 *  1. A computes for 2 s without a single call of the binding: its relay thread beats for it,
 *     so B, asleep on its doorbell, hears nothing bad.
 *  2. A stops beating without a word (what a host cut off the network looks like from B): B,
 *     asleep on its doorbell, is woken by its relay with an endpoint failure of A,
 *     UCS_ERR_ENDPOINT_TIMEOUT, about 600 ms later.
 *  3. Both start again and A says goodbye (ucxWatchStop with sayBye): B stays quiet for 1.5 s,
 *     more than twice the timeout.
 */
import { addon } from '../../../src/native/addon.js';
import { report, tell } from './channel.js';
import { closeTogether, listen, type Peer } from './peer-common.js';

const PERIOD_MS = 100;
const TIMEOUT_MS = 600;

/** B's sleep on its doorbell until `done()` or `ms` pass; returns how many sleeps it took. */
async function sleepUntil(p: Peer, cells: Int32Array, done: () => boolean, ms: number): Promise<number> {
  const end = Date.now() + ms;
  let sleeps = 0;
  for (;;) {
    p.tracker.poll();
    p.rank.drainInbox(() => {});
    if (done() || Date.now() >= end) return sleeps;
    const seen = Atomics.load(cells, 0);
    if (!addon.ucxBellArm(p.rank.worker)) continue;
    p.tracker.poll();
    if (!done()) {
      sleeps++;
      await addon.futexWaitAsync(cells, 0, seen, Math.max(1, end - Date.now()));
    }
    addon.ucxBellDisarm(p.rank.worker);
  }
}

export async function watch(p: Peer): Promise<void> {
  const w = p.rank.worker;
  const cells = new Int32Array(new SharedArrayBuffer(8));
  addon.ucxBellAttach(w, cells, 0);
  const start = (): void => {
    if (p.role === 'a') addon.ucxWatchStart(w, p.ep, 0, -1, PERIOD_MS, TIMEOUT_MS);
    else addon.ucxWatchStart(w, null, 1, 0, PERIOD_MS, TIMEOUT_MS);
  };
  start();
  if (p.role === 'a') {
    await listen(p); // B watches
    const t0 = Date.now();
    while (Date.now() - t0 < 2000) {
      // Computing: not one call of the binding.
    }
    tell({ computed: true });
    await listen(p); // B saw no failure
    addon.ucxWatchStop(w, false);
    tell({ silent: true });
    await listen(p); // B reported us lost
    start();
    await listen(p); // B watches again
    await new Promise((r) => setTimeout(r, 300));
    addon.ucxWatchStop(w, true);
    tell({ bye: true });
    await listen(p);
    addon.ucxBellDetach(w);
    await closeTogether(p);
    report({});
    return;
  }
  const failures = p.tracker.failures;
  tell({ watching: true });
  let computed = false;
  void listen(p).then(() => (computed = true));
  await sleepUntil(p, cells, () => computed, 10_000);
  const failuresWhileComputing = failures.length;
  tell({ ok: true });
  await listen(p); // A went silent
  const t0 = Date.now();
  const sleeps = await sleepUntil(p, cells, () => failures.length > 0, 10_000);
  const detectedMs = Date.now() - t0;
  const lost = failures[0] ?? null;
  tell({ lost: true });
  start();
  tell({ watching: true });
  await listen(p); // A said goodbye
  await sleepUntil(p, cells, () => false, 1500);
  const failuresAfterBye = failures.length - 1;
  const heard = addon.ucxWatchStop(w, false);
  tell({ ok: true });
  addon.ucxBellDetach(w);
  await closeTogether(p);
  report({
    failuresWhileComputing, detectedMs, sleeps, failuresAfterBye, heard,
    lost: lost === null ? null : { userId: lost.userId, status: addon.ucxStatusName(lost.status) },
  });
}
