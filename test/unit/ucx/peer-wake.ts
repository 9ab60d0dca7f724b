/**
 * Sleeping scenarios of peer.ts. wake: B sleeps until A's message arrives a second later, three
 * ways (poll() on the event fd; a futex "doorbell" rung by the relay thread, waited on
 * synchronously and from the event loop), and measures its CPU time meanwhile. kill: B sleeps
 * while the test SIGKILLs A, and must see its endpoint fail.
 */
import { addon, UCX_CTL_EP_FAILURES, UCX_SEND_EAGER } from '../../../src/native/addon.js';
import { report, tell } from './channel.js';
import { type RecordVisitor, until } from './kit.js';
import { closeTogether, listen, type Peer } from './peer-common.js';
import { SLEEP_MS, WAKE_MODES } from './plan.js';


/** One round trip, so that the connection is up before anyone sleeps or dies. */
async function handshake(p: Peer): Promise<void> {
  const { rank, ep, tracker } = p;
  let got = 0;
  const count: RecordVisitor = () => void got++;
  const r = addon.ucxAmSend(ep, new Uint8Array(1), 0, 1, new Uint8Array(0), 0, 0, UCX_SEND_EAGER, 1);
  if (r < 0) throw new Error(`handshake send: ${addon.ucxStatusName(r)}`);
  await until(() => (tracker.poll(), rank.drainInbox(count), got === 1 && (r === 0 || tracker.done.has(1))), 'the handshake', 30_000);
  tracker.take(1);
}

export async function wake(p: Peer): Promise<void> {
  const { rank, ep, tracker } = p;
  await handshake(p);
  if (p.role === 'a') {
    for (let m = 0; m < WAKE_MODES.length; m++) {
      await listen(p); // B is about to sleep
      const t0 = Date.now();
      await until(() => (tracker.poll(), Date.now() - t0 >= SLEEP_MS), 'the pause');
      const r = addon.ucxAmSend(ep, new Uint8Array([m]), 0, 1, new Uint8Array(8), 0, 8, 0, 10 + m);
      if (r < 0) throw new Error(`wake-up send: ${addon.ucxStatusName(r)}`);
    }
    await closeTogether(p);
    report({});
    return;
  }
  const w = rank.worker;
  const cells = new Int32Array(new SharedArrayBuffer(16));
  addon.ucxBellAttach(w, cells, 2);
  const rounds: { mode: string; wallMs: number; cpuMs: number; sleeps: number; got: number }[] = [];
  for (const mode of WAKE_MODES) {
    let got = -1;
    const visit: RecordVisitor = (inbox, hOff) => void (got = inbox[hOff]!);
    const look = (): boolean => (tracker.poll(), rank.drainInbox(visit), got >= 0);
    tell({ sleeping: mode });
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    let sleeps = 0;
    while (!look()) {
      if (mode === 'wait') {
        if (addon.ucxWait(w, 10_000) !== 'busy') sleeps++;
        continue;
      }
      // The doorbell protocol: read the bell, arm UCX (the relay watches), look once more, sleep.
      const seen = Atomics.load(cells, 2);
      if (!addon.ucxBellArm(w)) continue;
      if (!look()) {
        sleeps++;
        if (mode === 'bell-sync') addon.futexWait(cells, 2, seen, 10_000);
        else await addon.futexWaitAsync(cells, 2, seen, 10_000);
      }
      addon.ucxBellDisarm(w);
    }
    const cpu = process.cpuUsage(cpu0);
    rounds.push({ mode, wallMs: Date.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, sleeps, got });
  }
  const rings = addon.ucxBellDetach(w);
  await closeTogether(p);
  report({ rounds, rings });
}

export async function kill(p: Peer): Promise<void> {
  const { rank, ep, tracker } = p;
  await handshake(p);
  if (p.role === 'a') {
    tell({ ready: true });
    // The test kills us now; until then, sleep.
    for (;;) addon.ucxWait(rank.worker, 1000);
  }
  await listen(p); // A is ready
  tell({ sleeping: true }); // the test kills A on seeing this
  const t0 = Date.now();
  let sleeps = 0;
  while (tracker.failures.length === 0) {
    tracker.poll();
    rank.drainInbox(() => {});
    if (tracker.failures.length > 0) break;
    if (addon.ucxWait(rank.worker, 30_000) === 'timed-out') throw new Error('no failure reported within 30 s');
    sleeps++;
  }
  const detectedMs = Date.now() - t0;
  const failure = tracker.failures[0]!;
  const epStatus = addon.ucxStatusName(addon.ucxEpStatus(ep));
  const sendAfter = addon.ucxAmSend(ep, new Uint8Array(1), 0, 1, new Uint8Array(4), 0, 4, 0, 5);
  const closed = addon.ucxEpClose(ep, true, 6);
  report({
    detectedMs, sleeps, userId: failure.userId, status: addon.ucxStatusName(failure.status),
    epStatus, epFailures: rank.rings.control[UCX_CTL_EP_FAILURES], sendAfter, closed,
  });
}
