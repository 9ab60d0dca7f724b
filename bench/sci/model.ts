/**
 * The thesis's efficiency model for ch_sci (003a §3, formulas 4.17 to 4.38) on this machine.
 *
 *   npx tsc -p tsconfig.json
 *   node dist/bench/sci/model.js [--out FILE] [--quick | --smoke]
 *
 * 1. Measures the model's parameters here, through the SISCI library ch_sci uses (the
 *    emulation unless TSMPI_SISCI_LIB names Dolphin's): B_cl(N) local copy, B_cr(N) local →
 *    remote copy (SCIMemCpy into a mapped remote segment, the PIO path), B_check(N) CRC-32,
 *    t_errSCI (a sequence start + check), l_rr remote word read, l_lr local word read, l_rs a
 *    remote word store, l_sb a store barrier, and l_rw, the end-to-end latency of a remote word
 *    write (half the round trip of a word ping-pong with a second process on another SCI node).
 *    The bandwidths are measured at every size the model needs (they are not linear in N).
 * 2. Runs the thesis's ping-pong (bench/sci/pingpong.ts, powers of two plus 500 B) over ch_sci
 *    once per protocol, each forced over its whole range as the thesis measured them: short
 *    (0 .. 2 KiB), eager (1 B .. 256 KiB, TSMPI_SCI_SHORT_MAX=0) and rendezvous (1 B .. 4 MiB,
 *    no eager segment).
 * 3. Prints per protocol and size: the measured latency, the model's (L_short-pp 4.25,
 *    L_eager 4.30, L_r-v 4.37 with this configuration's S_in, S_pipe and ring size), and the
 *    efficiencies: protocol ε_prot = B_prot / B_max (4.14), implementation ε_imp = B_eff /
 *    B_prot (4.12), communication ε_komm = ε_imp · ε_prot (4.15), where B_eff = 2N / t_pp
 *    (4.13) is measured, B_prot = N / L_model, and B_max is the device's peak outside any
 *    library (the highest B_cr measured).
 *
 * On the emulation a "remote" access is a load or store to shared memory, so l_rr and l_rw are
 * nanoseconds where SCI took microseconds (P3: l_rr 3.2 µs, l_rw 1.5 µs), and B_cr is a memcpy.
 * The model's structure is the thesis's; what it says about this machine is how much of the
 * time goes to the protocol's own work (CRC, copies, control messages) versus tsmpi's
 * software around it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pingPongRows } from './run-pingpong.js';


const SLOT = 128;
const HEADER = 32;
const ID_BYTES = 4;
/** Bytes of the segment the bandwidths are measured in; its last word carries the word ping-pong. */
const BUFFER = 8 << 20;

if (process.argv[2] === '--echo') {
  await echo(process.argv[3]!);
  process.exit(0);
}

const quick = process.argv.includes('--quick') || process.argv.includes('--smoke');
/** --smoke: a few small sizes only, to check that the tool runs (the tests use it). */
const smoke = process.argv.includes('--smoke');
const outIndex = process.argv.indexOf('--out');
const outFile = outIndex > 0 ? process.argv[outIndex + 1] : undefined;

// The configuration whose model is computed: ch_sci's defaults unless the environment says otherwise.
const { readSciConfig } = await import('../../src/ch_sci/config.js');
const config = readSciConfig(process.env);

const powers = (lo: number, hi: number) => {
  const out: number[] = [];
  for (let n = lo; n <= hi; n *= 2) out.push(n);
  return out;
};
const withFiveHundred = (sizes: number[]) => [...new Set([...sizes, 500])].sort((a, b) => a - b);
const PROTOCOLS = [
  { name: 'short', sizes: smoke ? [0, 64, 500] : [0, ...withFiveHundred(powers(1, 2048))],
    env: ['TSMPI_SCI_SHORT_MAX=2048'] },
  { name: 'eager', sizes: smoke ? [64, 4096] : withFiveHundred(powers(1, quick ? 65536 : 262144)),
    env: ['TSMPI_SCI_SHORT_MAX=0', 'TSMPI_SCI_EAGER_MAX=262144', 'TSMPI_SCI_EAGER_BYTES=524288'] },
  { name: 'rendezvous', sizes: smoke ? [64, 200_000] : withFiveHundred(powers(1, quick ? 1048576 : 4194304)),
    env: ['TSMPI_SCI_SHORT_MAX=0', 'TSMPI_SCI_EAGER_BYTES=0'] },
] as const;

// ---------------------------------------------------------------- 1. parameters

const job = `model${process.pid}`;
process.env.TSMPI_JOBID = job;
process.env.TSMPI_SCI_NODE = '0';
delete process.env.TSMPI_SCI_FAULTS;
const sisci = await import('../../src/sisci/index.js');
const { addon } = await import('../../src/native/addon.js');
const { copyBytes } = await import('../../src/common/copy.js');
const { sweepJobSegments } = await import('../../src/common/segment-names.js');

const desc = sisci.Descriptor.open();
const node = desc.nodeId();
const segment = desc.createSegment(1, BUFFER);
segment.setAvailable();
const remote = desc.connect(node, 1, 1000);
const remoteMap = remote.map();
const sequence = remoteMap.sequence();
const src = new Uint8Array(BUFFER).map((_, i) => i & 0xff);
const dst = new Uint8Array(BUFFER);
const localWords = new Int32Array(new SharedArrayBuffer(4096));

/** Seconds per call of `fn`, repeated for at least `minMs`, best of 3. */
function timePerCall(fn: () => void, minMs = smoke ? 1 : quick ? 10 : 30): number {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    let calls = 0;
    const t0 = process.hrtime.bigint();
    let t = t0;
    do {
      for (let i = 0; i < 16; i++) fn();
      calls += 16;
      t = process.hrtime.bigint();
    } while (Number(t - t0) < minMs * 1e6);
    best = Math.min(best, Number(t - t0) / 1e9 / calls);
  }
  return best;
}

const rateCache = new Map<string, number>();
/** Bytes per second of `kind` for N bytes (memoised). */
function rate(kind: 'cl' | 'cr' | 'check', n: number): number {
  const key = `${kind}:${n}`;
  let r = rateCache.get(key);
  if (r === undefined) {
    const m = Math.max(1, n);
    const call = kind === 'cl' ? () => copyBytes(src, 0, dst, 0, m)
      : kind === 'cr' ? () => sequence.write(0, src, 0, m)
        : () => addon.crc32(src, 0, m);
    r = m / timePerCall(call);
    rateCache.set(key, r);
  }
  return r;
}
/** Seconds to move N bytes at the measured rate of `kind` (0 for N = 0). */
const time = (kind: 'cl' | 'cr' | 'check', n: number) => (n <= 0 ? 0 : n / rate(kind, n));

let sink = 0;
const params = {
  tErr: timePerCall(() => { sequence.start(); sequence.check(); }),
  lrr: timePerCall(() => { sink += Atomics.load(remoteMap.words, 17); }),
  llr: timePerCall(() => { sink += Atomics.load(localWords, 17); }),
  lrs: timePerCall(() => { remoteMap.words[18] = sink; }),
  lsb: timePerCall(() => sequence.storeBarrier()),
  lrw: await wordPingPong(),
};
const bMax = Math.max(...powers(1024, smoke ? 65536 : BUFFER).map((n) => rate('cr', n)));

/** l_rw: half the round trip of one word between us and a process on SCI node 1. */
async function wordPingPong(): Promise<number> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--echo', job],
    { env: { ...process.env, TSMPI_SCI_NODE: '1' }, stdio: ['ignore', 'inherit', 'inherit'] });
  let gone = false;
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => {
    gone = true;
    resolve(code ?? -1);
  }));
  const theirs = desc.connect(8, 2, 10_000);
  const map = theirs.map();
  const mine = segment.map();
  const rounds = smoke ? 1000 : quick ? 20_000 : 100_000;
  const at = (BUFFER >> 2) - 1;
  const t0 = process.hrtime.bigint();
  for (let i = 1; i <= rounds; i++) {
    map.words[0] = i;
    // The echo writes it back; a vanished echo must not leave us spinning (checked each 4096 spins).
    for (let spin = 1; Atomics.load(mine.words, at) !== i; spin++) {
      if ((spin & 4095) === 0) {
        await new Promise((r) => setImmediate(r));
        if (gone) throw new Error(`model: the echo process exited (${await exited}) during the word ping-pong`);
      }
    }
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  map.words[0] = -1;
  // Disconnect before waiting: the echo removes its segment only when nobody is connected.
  map.unmap();
  theirs.disconnect();
  mine.unmap();
  const code = await exited;
  if (code !== 0) throw new Error(`model: the echo process failed (${code})`);
  return seconds / rounds / 2;
}

/** The other SCI node of wordPingPong: writes back every word it receives. */
async function echo(jobId: string): Promise<void> {
  process.env.TSMPI_JOBID = jobId;
  const s = await import('../../src/sisci/index.js');
  const d = s.Descriptor.open();
  const own = d.createSegment(2, 4096);
  own.setAvailable();
  const map = own.map();
  const back = d.connect(4, 1, 10_000);
  const backMap = back.map();
  const at = (BUFFER >> 2) - 1;
  for (;;) {
    const w = Atomics.load(map.words, 0);
    if (w === -1) break;
    if (w !== 0 && backMap.words[at] !== w) backMap.words[at] = w;
  }
  backMap.unmap();
  back.disconnect();
  map.unmap();
  for (;;) {
    try {
      own.remove();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  d.close();
}

// ---------------------------------------------------------------- 2. the model (4.17 - 4.38)

/** Slots of a short message with N payload bytes (4.18). */
function msgSlots(n: number): number {
  return n > SLOT - HEADER ? 1 + Math.ceil((n - (SLOT - HEADER) + ID_BYTES) / SLOT) : 1;
}
const tAlloc = (n: number) => params.lrr / msgSlots(n);                                          // 4.19, 4.20
const tCheck = (n: number) => time('check', HEADER) + time('check', n);                          // 4.21
const tSend = (n: number) => time('cr', SLOT) + time('cr', SLOT * (msgSlots(n) - 1));            // 4.22
const tNew = () => params.llr;                                                                    // 4.23
const tStore = (n: number) => time('cl', n);                                                      // 4.24
const shortPP = (n: number) => tAlloc(n) + 2 * tCheck(n) + tSend(n) + tNew() + tStore(n);         // 4.25
const shortP = (n: number) => tAlloc(n) + tCheck(n) + tSend(n) + params.tErr;                     // 4.27
const ctrlPP = () => shortPP(0);                                                                  // 4.26
const ctrlP = () => shortP(0);                                                                    // 4.28
const eager = (n: number) => time('cr', n) + ctrlPP() + time('cl', n) + params.lrw;              // 4.30

/** L_r-v(N, S_in, S_pipe) (4.32 - 4.37). */
function rendezvous(n: number): number {
  const sIn = config.rndvBytes;
  const sPipe = config.block;
  const pipeW = (b: number) => time('cr', b);
  const pipeR = (b: number) => time('cl', b);
  const part = (bytes: number) => {
    const blocks = Math.ceil(bytes / sPipe);
    const b = Math.min(sPipe, bytes);
    return pipeW(b) + (blocks - 1) * (ctrlP() + pipeW(b)) + ctrlPP() + pipeR(b);                  // 4.35
  };
  const nPart = Math.floor(n / sIn);                                                              // 4.32
  const rest = n - nPart * sIn;                                                                   // 4.33
  let lRest = 0;                                                                                  // 4.36
  if (rest > 0 && rest < sPipe) lRest = pipeW(rest) + shortPP(0) + pipeR(rest);
  else if (rest > 0) lRest = part(rest);
  return 2 * ctrlPP() + nPart * part(sIn) + lRest;                                                // 4.37
}

// ---------------------------------------------------------------- 3. measure and report

/** The thesis's ping-pong over ch_sci with `env` set; size → seconds. */
function pingPong(env: readonly string[], sizes: readonly number[]): Map<number, number> {
  const rows = pingPongRows(['-x', 'TSMPI_DEVICE=sci', ...env.flatMap((e) => ['-x', e])], sizes);
  for (const [size, us] of rows) rows.set(size, us * 1e-6);
  return rows;
}

const us = (s: number) => (s * 1e6).toFixed(s < 1e-5 ? 3 : 2);
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)} %` : '-');
const mbs = (r: number) => `${(r / 1e6).toFixed(0)} MB/s`;
const lines: string[] = [
  '# ch_sci efficiency model (003a §3, formulas 4.17 - 4.38)',
  '',
  `${new Date().toISOString()}, ${os.hostname()}, ${os.availableParallelism()} CPUs, node ${process.version}, SISCI ${path.basename(sisci.loadSisci())}; ` +
    `\`node dist/bench/sci/model.js${smoke ? ' --smoke' : quick ? ' --quick' : ''}\`.`,
  '',
  '## Parameters measured here (Table 4.1 analogues)',
  '',
  '| Symbol | Meaning | Here | P3 (thesis) |',
  '|---|---|---|---|',
  `| B_cl(N) | local copy, 4 KiB / 1 MiB | ${mbs(rate('cl', 4096))} / ${mbs(rate('cl', 1 << 20))} | 3368 / 227 MB/s |`,
  `| B_cr(N) | local → remote copy (SCIMemCpy), 128 B / 4 KiB / 1 MiB | ${mbs(rate('cr', 128))} / ${mbs(rate('cr', 4096))} / ${mbs(rate('cr', 1 << 20))} | 170 / 146 MB/s |`,
  `| B_check(N) | CRC-32, 128 B / 4 KiB | ${mbs(rate('check', 128))} / ${mbs(rate('check', 4096))} | 87.8 MB/s |`,
  `| B_max | device peak outside the library (best B_cr) | ${mbs(bMax)} | - |`,
  `| l_rw | end-to-end remote word write | ${us(params.lrw)} µs | 1.5 µs |`,
  `| l_rs | sender-local remote word write | ${us(params.lrs)} µs | 0.5 µs |`,
  `| l_rr | remote word read | ${us(params.lrr)} µs | 3.2 µs |`,
  `| l_lr | local word read | ${us(params.llr)} µs | 0.031 µs |`,
  `| l_sb | store barrier | ${us(params.lsb)} µs | 3.5 µs |`,
  `| t_errSCI | sequence start + check | ${us(params.tErr)} µs | - |`,
  '',
  `Configuration: ${config.slots} short slots, S_in = TSMPI_SCI_RNDV_BYTES = ${config.rndvBytes}, S_pipe = TSMPI_SCI_BLOCK = ${config.block}, ` +
    `eager ${config.eager}.`,
  '',
];
for (const protocol of PROTOCOLS) {
  const measured = pingPong(protocol.env, protocol.sizes);
  const model = protocol.name === 'short' ? shortPP : protocol.name === 'eager' ? eager : rendezvous;
  lines.push(`## ${protocol.name} (forced over its range: ${protocol.env.join(' ')})`, '',
    '| Size | measured µs | model µs | ε_prot | ε_imp | ε_komm |', '|---:|---:|---:|---:|---:|---:|');
  for (const n of protocol.sizes) {
    const lMeas = measured.get(n);
    const lModel = model(n);
    if (lMeas === undefined) {
      lines.push(`| ${n} | (no row) | ${us(lModel)} | - | - | - |`);
      continue;
    }
    const bProt = n / lModel;
    const bEff = n / lMeas;
    lines.push(`| ${n} | ${us(lMeas)} | ${us(lModel)} | ${pct(n > 0 ? bProt / bMax : NaN)} | ` +
      `${pct(n > 0 ? bEff / bProt : NaN)} | ${pct(n > 0 ? bEff / bMax : NaN)} |`);
  }
  lines.push('');
}
sequence.remove();
remoteMap.unmap();
remote.disconnect();
segment.remove();
desc.close();
sweepJobSegments(job);
if (sink === 0.5) console.log('');
const text = lines.join('\n');
console.log(text);
if (outFile) fs.writeFileSync(outFile, `${text}\n`);
