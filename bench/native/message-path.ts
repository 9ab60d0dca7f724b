/**
 * The JavaScript cost of the message path, in one process: a protocol engine and a ch_shmem
 * device for "rank 0" send windows of 64 messages (osu_bw's) into the segment of a second engine
 * and device for "rank 1", which posts the 64 receives and then completes them. Per message, in
 * ns: Send (Engine.isendStandard and the device's send), Post (Engine.irecv) and Process (the
 * receiver's progress until each receive is done, and its free; from 128 bytes, two slots a
 * message, the ring holds 32 of a window and the sender's progress sends the rest as room comes,
 * counted here). Medians of the rows.
 *
 * Why one process: on this project's VM two ranks' message rates move between levels ~1.7x apart
 * from job to job and row to row (docs/performance.md), more than most changes to the path are
 * worth; a single process has no second core and no cache-line transfer, so a change shows.
 * Even here the VM's levels appear (a stretch of rows runs ~1.6x slower), so --against DIR
 * alternates rows between this build and another build's dist/src (a copy of an older tree) in
 * the same process: both meet the same levels, and the ratio column compares them.
 *
 * The API layer above (Comm.Isend and Irecv, Request objects, Waitall) is not in these figures.
 *
 *   node dist/bench/native/message-path.js [-m MIN:MAX] [-i WINDOWS] [--rows N] [--against DIST_SRC]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WINDOW = 64;
const here = path.dirname(fileURLToPath(import.meta.url));
const ownSrc = path.join(here, '..', '..', 'src');

interface Options { min: number; max: number; windows: number; rows: number; against: string | null }

function usage(problem: string): never {
  console.error(`message-path: ${problem}\n` +
    'usage: node dist/bench/native/message-path.js [-m MIN:MAX] [-i WINDOWS] [--rows N] [--against DIST_SRC]');
  process.exit(2);
}

function parse(args: string[]): Options {
  const o: Options = { min: 1, max: 256, windows: 4000, rows: 8, against: null };
  const count = (text: string | undefined, what: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) usage(`${what} must be a positive integer, got ${text}`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-m') {
      const m = /^(\d+):(\d+)$/.exec(args[++i] ?? '');
      if (m === null) usage(`-m takes MIN:MAX in bytes, got ${args[i]}`);
      o.min = Number(m[1]);
      o.max = Number(m[2]);
      if (o.min > o.max) usage(`-m ${args[i]}: MIN is above MAX`);
    } else if (a === '-i') o.windows = count(args[++i], '-i');
    else if (a === '--rows') o.rows = count(args[++i], '--rows');
    else if (a === '--against') {
      const dir = path.resolve(args[++i] ?? usage('--against takes a directory'));
      if (!fs.existsSync(path.join(dir, 'mpid', 'engine.js'))) usage(`--against ${dir}: no mpid/engine.js there (give a build's dist/src)`);
      o.against = dir;
    } else usage(`unknown argument ${a}`);
  }
  return o;
}

/** What the benchmark uses of a build, loaded from its dist/src (so two builds can run side by side). */
interface Build {
  Engine: new (rank: number, devices: unknown[], deviceOf: unknown[]) => EngineLike;
  makeDevice: (rank: number, own: unknown, peerSegments: unknown[], bells: unknown[]) => unknown;
  segment: (name: string, rank: number) => { unlink(): void };
  bell: (job: string, rank: number) => { name: string; unlink(): void };
  attachBell: (name: string, rank: number) => unknown;
}

interface RequestLike { state: number }
interface EngineLike {
  readonly sendDone: RequestLike;
  isendStandard(buf: Uint8Array, peer: number, ctx: number, src: number, tag: number): RequestLike;
  irecv(buf: Uint8Array, ctx: number, rank: number, tag: number, packed: null): RequestLike;
  progress(): number;
  free(r: RequestLike): void;
}

async function load(src: string): Promise<Build> {
  const from = async (file: string) => import(pathToFileURL(path.join(src, file)).href);
  const [{ Engine }, { ShmemDevice }, { RankSegment }, { PairLayout }, { readShmemConfig }, { Doorbell, PeerBell }, { STATE_DONE }] =
    await Promise.all(['mpid/engine.js', 'ch_shmem/device.js', 'ch_shmem/rank-segment.js', 'ch_shmem/layout.js',
      'ch_shmem/config.js', 'common/doorbell.js', 'mpid/request.js'].map(from));
  if (STATE_DONE !== DONE) throw new Error(`${src}: a completed request's state is ${STATE_DONE}, this benchmark expects ${DONE}`);
  const config = readShmemConfig();
  const bytes = new PairLayout(config).segmentBytes(2);
  return {
    Engine,
    makeDevice: (rank, own, peerSegments, bells) => new ShmemDevice(config, rank, 2, own, peerSegments, bells, true),
    segment: (name, rank) => RankSegment.create(name, bytes, rank),
    bell: (job, rank) => Doorbell.create(job, rank),
    attachBell: (name, rank) => PeerBell.attach(name, rank),
  };
}

const DONE = 2;
const CTX = 5;
const TAG = 100;

/** A sending engine and a receiving one, each with its device, joined through two fresh segments. */
interface Pair { sender: EngineLike; receiver: EngineLike; sends: RequestLike[]; requests: RequestLike[]; delivered: number }

function connect(build: Build, label: string): Pair {
  const job = `tsmpi-msgpath-${process.pid}-${label}`;
  const segments = [build.segment(`${job}-r0`, 0), build.segment(`${job}-r1`, 1)];
  const bells = [build.bell(job, 0), build.bell(job, 1)];
  const peerBells = [build.attachBell(bells[0]!.name, 0), build.attachBell(bells[1]!.name, 1)];
  const d0 = build.makeDevice(0, segments[0], [null, segments[1]], [null, peerBells[1]]);
  const d1 = build.makeDevice(1, segments[1], [segments[0], null], [peerBells[0], null]);
  // Mapped now: the names are not needed any more, and nothing is left behind if we stop.
  for (const s of segments) s.unlink();
  for (const b of bells) b.unlink();
  return {
    sender: new build.Engine(0, [d0], [d0, d0]),
    receiver: new build.Engine(1, [d1], [d1, d1]),
    sends: new Array<RequestLike>(WINDOW),
    requests: new Array<RequestLike>(WINDOW),
    delivered: 0,
  };
}

/** ns per message of send, post and process over `windows` windows of `size`-byte messages. */
function measure(pair: Pair, size: number, windows: number): [number, number, number] {
  const out = new Uint8Array(size).fill(size & 0xff);
  if ((size & 0xff) === 0) out.fill(1, size - 1);
  const into = new Uint8Array(size);
  const { sender, receiver, sends, requests } = pair;
  let send = 0;
  let post = 0;
  let processing = 0;
  for (let w = 0; w < windows; w++) {
    const t0 = performance.now();
    for (let j = 0; j < WINDOW; j++) sends[j] = sender.isendStandard(out, 1, CTX, 0, TAG);
    const t1 = performance.now();
    for (let j = 0; j < WINDOW; j++) requests[j] = receiver.irecv(into, CTX, 0, TAG, null);
    const t2 = performance.now();
    for (let j = 0; j < WINDOW; j++) {
      const r = requests[j]!;
      // A send that found the ring full waits in the sender's queue: the sender's progress
      // (its Waitall, in a program) sends it once the receiver has made room.
      while (r.state !== DONE) if (receiver.progress() === 0) sender.progress();
      receiver.free(r);
    }
    for (let j = 0; j < WINDOW; j++) {
      const s = sends[j]!;
      if (s === sender.sendDone) continue;
      while (s.state !== DONE) sender.progress();
      sender.free(s);
    }
    const t3 = performance.now();
    // Each window's last message must have arrived whole: its last byte, cleared again untimed.
    if (into[size - 1] !== out[size - 1]) throw new Error(`message-path: a ${size}-byte message arrived wrong`);
    into[size - 1] = 0;
    pair.delivered += WINDOW;
    send += t1 - t0;
    post += t2 - t1;
    processing += t3 - t2;
  }
  const ns = (ms: number) => (ms * 1e6) / (windows * WINDOW);
  return [ns(send), ns(post), ns(processing)];
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function sizes(min: number, max: number): number[] {
  const list: number[] = [];
  for (let s = Math.max(min, 1); s <= max; s *= 2) list.push(s);
  return list;
}

const o = parse(process.argv.slice(2));
const builds = [await load(ownSrc)];
if (o.against !== null) builds.push(await load(o.against));
const pairs = builds.map((b, k) => connect(b, String(k)));
const col = (s: string) => s.padStart(14);
console.log('# tsmpi message path in one process: engine + ch_shmem, windows of 64 (osu_bw\'s), ns per message');
console.log(`# ${o.rows} rows of ${o.windows} windows per size, medians${o.against ? `; rows alternate with ${o.against}` : ''}`);
const names = ['Send', 'Post', 'Process'];
let header = '# Size'.padEnd(10) + names.map((n) => col(`${n} (ns)`)).join('');
if (o.against) header += names.map((n) => col(`${n} other`)).join('') + col('Send ratio') + col('Process ratio');
console.log(header);
for (const size of sizes(o.min, o.max)) {
  for (const p of pairs) measure(p, size, Math.max(200, o.windows >> 2));
  const rows: [number, number, number][][] = pairs.map(() => []);
  for (let r = 0; r < o.rows * pairs.length; r++) {
    const k = r % pairs.length;
    rows[k]!.push(measure(pairs[k]!, size, o.windows));
  }
  const med = rows.map((list) => [0, 1, 2].map((c) => median(list.map((x) => x[c]!))));
  let line = String(size).padEnd(10) + med[0]!.map((v) => col(v.toFixed(1))).join('');
  if (med.length > 1) {
    line += med[1]!.map((v) => col(v.toFixed(1))).join('');
    line += col((med[0]![0]! / med[1]![0]!).toFixed(2)) + col((med[0]![2]! / med[1]![2]!).toFixed(2));
  }
  console.log(line);
}
console.log(`# messages delivered and checked: ${pairs.map((p) => p.delivered).join(' / ')}`);
