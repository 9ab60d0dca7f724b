/**
 * Futex wake latency between two processes: a ping-pong through one shared segment. Each side
 * stores the round number in its cell, wakes the other side's waiter and sleeps in futexWait
 * until the reply arrives; nobody spins, so every hand-off is a sleep and a wake-up. Prints the
 * one-way latency (half a round trip) in microseconds.
 *
 *   node dist/bench/native/futex-latency.js [-i ROUND_TRIPS] [-x WARMUP]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { addon } from '../../src/native/addon.js';

const PING = 0; // cell the initiator writes
const PONG = 1; // cell the responder writes
const SLEPT = 2; // responder: replies that found it asleep (its wait did not return at once)

/** Sleeps until cells[index] holds `value`; returns whether it actually slept. */
function awaitValue(cells: Int32Array, index: number, value: number): boolean {
  let slept = false;
  for (;;) {
    const seen = Atomics.load(cells, index);
    if (seen === value) return slept;
    if (addon.futexWait(cells, index, seen, -1) === 'ok') slept = true;
  }
}

function respond(name: string, rounds: number): void {
  const cells = new Int32Array(addon.shmOpen(name));
  let slept = 0;
  for (let i = 1; i <= rounds; i++) {
    if (awaitValue(cells, PING, i)) slept++;
    Atomics.store(cells, PONG, i);
    addon.futexWake(cells, PONG, 1);
  }
  Atomics.store(cells, SLEPT, slept);
}

function option(flag: string, fallback: number): number {
  const at = process.argv.indexOf(flag);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value <= 0) {
    console.error(`futex-latency: ${flag} must be a positive integer, got ${process.argv[at + 1]}`);
    process.exit(2);
  }
  return value;
}

async function initiate(): Promise<void> {
  const iterations = option('-i', 20_000);
  const warmup = option('-x', 1_000);
  const rounds = warmup + iterations;
  const name = `tsmpi-bench-futex-${process.pid}-${randomBytes(4).toString('hex')}`;
  const cells = new Int32Array(addon.shmCreate(name, 4096));
  try {
    const responder = spawn(process.execPath, [fileURLToPath(import.meta.url), '--respond', name, String(rounds)], {
      stdio: 'inherit',
    });
    const exited = new Promise<number | null>((resolve) => responder.on('close', resolve));
    const oneWay = new Float64Array(iterations);
    let initiatorSlept = 0;
    for (let i = 1; i <= rounds; i++) {
      const start = performance.now();
      Atomics.store(cells, PING, i);
      addon.futexWake(cells, PING, 1);
      if (awaitValue(cells, PONG, i) && i > warmup) initiatorSlept++;
      if (i > warmup) oneWay[i - warmup - 1] = ((performance.now() - start) * 1000) / 2;
    }
    const status = await exited;
    if (status !== 0) throw new Error(`responder exited with status ${status}`);

    const sorted = Float64Array.from(oneWay).sort();
    const mean = oneWay.reduce((sum, v) => sum + v, 0) / iterations;
    const at = (q: number): number => sorted[Math.min(iterations - 1, Math.floor(q * iterations))]!;
    console.log('# tsmpi futex wake latency: two processes, one shared segment, futexWait/futexWake');
    console.log(`# round trips: ${iterations} (after ${warmup} warm-up), one-way = round trip / 2`);
    console.log(`# hand-offs that slept: initiator ${((100 * initiatorSlept) / iterations).toFixed(1)}%, ` +
      `responder ${((100 * Atomics.load(cells, SLEPT)) / rounds).toFixed(1)}%`);
    console.log(`${'# Statistic'.padEnd(12)}${'Latency (us)'.padStart(20)}`);
    for (const [label, value] of [
      ['median', at(0.5)],
      ['mean', mean],
      ['min', sorted[0]!],
      ['p90', at(0.9)],
      ['p99', at(0.99)],
    ] as const) {
      console.log(`${label.padEnd(12)}${value.toFixed(2).padStart(20)}`);
    }
  } finally {
    addon.shmUnlink(name);
  }
}

if (process.argv[2] === '--respond') {
  respond(process.argv[3]!, Number(process.argv[4]));
} else {
  await initiate();
}
