/**
 * The raw UCX binding between two processes of this host, from JavaScript: 8-byte ping-pong
 * latency (half a round trip) and 1 MiB streaming bandwidth, beside ucx_perftest's
 * ucp_am_lat / ucp_am_bw with the same sizes and transport when ucx_perftest is installed
 * (Debian: ucx-utils). The difference is the binding's cost: the N-API calls, the rings, and
 * JavaScript's polling loop. UCX_TLS defaults to tcp (the transport between hosts here). MB/s
 * counts 10^6 bytes, as the OSU suite and ucx_perftest do.
 *
 *   node dist/bench/ucx/probe.js [--iters N] [--bw-iters N]
 */
import { spawnSync, fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import {
  addon, ucxProbe, UCX_CQ_EP_FAILED, UCX_CQ_RECV, UCX_FEATURE_AM, UCX_FEATURE_WAKEUP, UCX_SEND_EAGER,
} from '../../src/native/addon.js';
import { Rank, Tracker } from '../../test/unit/ucx/kit.js';

const BW_BYTES = 1 << 20;
const WINDOW = 16;
const HEADER = 28; // what ch_ucx will send per message: its own word and mpid's 24-byte header

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Blocks the event loop until `f` is true, polling `rank`. */
function spin(tracker: Tracker, f: () => boolean): void {
  while (!f()) tracker.poll();
}

/** The responder: echoes every small message, receives the big ones, acks each bandwidth round. */
function responder(): void {
  const rank = new Rank(UCX_FEATURE_AM | UCX_FEATURE_WAKEUP);
  let ep: ReturnType<Rank['connect']> | undefined;
  const slots = Array.from({ length: 2 * WINDOW }, () => new Uint8Array(BW_BYTES));
  let received = 0;
  let done = 0;
  let expect = -1;
  const reply = new Uint8Array(64);
  process.on('message', (m: { address?: number[]; bw?: number; quit?: boolean }) => {
    if (m.address !== undefined) {
      ep = rank.connect(new Uint8Array(m.address), 0);
      process.send!({ connected: true });
    }
    if (m.bw !== undefined) {
      expect = m.bw;
      received = 0;
      done = 0;
      process.send!({ ready: true });
    }
    if (m.quit === true) {
      rank.close();
      process.exit(0);
    }
  });
  process.send!({ address: [...rank.address()] });
  // Receives start as their records arrive and complete in the background (at most WINDOW are
  // in flight, as the sender keeps at most WINDOW sends); the round's last completion is acked.
  const finish = (): void => {
    if (++done === expect) addon.ucxAmSend(ep!, reply, 0, 0, reply, 0, 1, UCX_SEND_EAGER, 3);
  };
  const visit = (_inbox: Uint8Array, _hOff: number, hLen: number, _pOff: number, len: number, descId: number): void => {
    if (descId < 0) {
      addon.ucxAmSend(ep!, reply, 0, hLen, reply, 0, len, UCX_SEND_EAGER, 1);
      return;
    }
    if (addon.ucxAmRecv(rank.worker, descId, slots[received++ % slots.length]!, 0, len, 2) === 0) finish();
  };
  const completed = (_token: number, _status: number, kind: number): void => {
    if (kind === UCX_CQ_RECV) finish();
  };
  const loop = (): void => {
    for (let i = 0; i < 20_000; i++) {
      rank.progress();
      rank.drainInbox(visit);
      rank.drainCompletions(completed);
    }
    setImmediate(loop);
  };
  loop();
}

async function main(): Promise<void> {
  process.env.UCX_TLS ??= 'tcp';
  const probe = ucxProbe();
  if (!probe.available) {
    console.log(`UCX is not usable here: ${probe.reason}`);
    return;
  }
  const iters = arg('--iters', 20_000);
  const bwIters = arg('--bw-iters', 2_000);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--responder'], { env: process.env });
  const { address } = await new Promise<{ address: number[] }>((r) => child.once('message', r as never));
  const rank = new Rank(UCX_FEATURE_AM | UCX_FEATURE_WAKEUP);
  const tracker = new Tracker(rank, UCX_CQ_EP_FAILED);
  const connected = new Promise((r) => child.once('message', r));
  child.send({ address: [...rank.address()] });
  await connected;
  const ep = rank.connect(new Uint8Array(address), 1);

  let got = 0;
  const count = (): void => void got++;
  const small = new Uint8Array(64);
  const pingPong = (hLen: number, n: number): number[] => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      addon.ucxAmSend(ep, small, 0, hLen, small, 0, 8, UCX_SEND_EAGER, 1);
      const want = got + 1;
      while (got < want) {
        tracker.poll();
        rank.drainInbox(count);
      }
      times.push((performance.now() - t0) * 500); // µs, half a round trip
    }
    return times;
  };
  pingPong(0, 2_000); // warm-up, connection set-up included
  const stats = (t: number[]): { median: number; mean: number } => {
    const s = [...t].sort((x, y) => x - y);
    return { median: s[s.length >> 1]!, mean: t.reduce((x, y) => x + y, 0) / t.length };
  };
  const lat0 = stats(pingPong(0, iters));
  const lat28 = stats(pingPong(HEADER, iters));

  // Bandwidth: WINDOW sends in flight; the responder acks after the last one arrived.
  const payloads = Array.from({ length: WINDOW }, () => new Uint8Array(BW_BYTES).fill(7));
  // The responder learns the round's count (and says it did) before the first message leaves.
  const announce = (n: number): Promise<unknown> => {
    const ready = new Promise((r) => child.once('message', r));
    child.send({ bw: n });
    return ready;
  };
  const bandwidth = (n: number): number => {
    const t0 = performance.now();
    const busy = new Array<boolean>(WINDOW).fill(false);
    const want = got + 1;
    for (let i = 0; i < n; i++) {
      const s = i % WINDOW;
      if (busy[s]) spin(tracker, () => tracker.take(100 + s) !== undefined);
      busy[s] = addon.ucxAmSend(ep, small, 0, HEADER, payloads[s]!, 0, BW_BYTES, 0, 100 + s) === 1;
      tracker.poll();
      rank.drainInbox(count);
    }
    while (got < want) {
      tracker.poll();
      rank.drainInbox(count);
    }
    return (n * BW_BYTES) / ((performance.now() - t0) * 1e3);
  };
  await announce(200);
  bandwidth(200);
  await announce(bwIters);
  const bw = bandwidth(bwIters);
  child.send({ quit: true });
  rank.close();

  console.log(`UCX ${probe.version}, UCX_TLS=${process.env.UCX_TLS}, two processes on this host`);
  console.log('| measure | tsmpi binding (JS) | ucx_perftest (C) |');
  console.log('|---|---|---|');
  const perf = perftest(iters, bwIters);
  const f = (x: number | undefined, d = 2): string => (x === undefined ? 'n/a' : x.toFixed(d));
  console.log(`| 8 B latency, median µs | ${f(lat0.median)} | ${f(perf?.latMedian)} |`);
  console.log(`| 8 B latency, mean µs | ${f(lat0.mean)} | ${f(perf?.latMean)} |`);
  console.log(`| 8 B + ${HEADER} B header latency, median µs | ${f(lat28.median)} | |`);
  console.log(`| 1 MiB bandwidth, MB/s | ${f(bw, 0)} | ${f(perf?.bw, 0)} |`);
  if (perf === null) console.log('(ucx_perftest is not installed: apt-get install ucx-utils)');
}

/** ucx_perftest's ucp_am_lat and ucp_am_bw between two of its processes, or null without it. */
function perftest(iters: number, bwIters: number): { latMedian: number; latMean: number; bw: number } | null {
  if (spawnSync('ucx_perftest', ['-h']).error !== undefined) return null;
  const final = (test: string, size: number, n: number): number[] => {
    const port = String(13000 + Math.floor(Math.random() * 2000));
    const server = spawnSync('bash', ['-c',
      `ucx_perftest -p ${port} >/dev/null 2>&1 & sleep 0.5; ucx_perftest 127.0.0.1 -p ${port} -t ${test} -s ${size} -n ${n}; wait`],
    { encoding: 'utf8', timeout: 120_000, env: process.env });
    const line = server.stdout.split('\n').find((l) => l.startsWith('Final:'));
    if (line === undefined) throw new Error(`ucx_perftest ${test} printed no result:\n${server.stdout}\n${server.stderr}`);
    return line.trim().split(/\s+/).slice(1).map(Number);
  };
  // Final: iterations, latency 50%ile, average, overall (µs), bandwidth average, overall (MB/s), rates.
  const lat = final('ucp_am_lat', 8, iters);
  const bw = final('ucp_am_bw', BW_BYTES, bwIters);
  // ucx_perftest's MB/s are 2^20 bytes per second.
  return { latMedian: lat[1]!, latMean: lat[2]!, bw: bw[5]! * 1.048576 };
}

if (process.argv.includes('--responder')) responder();
else await main();
