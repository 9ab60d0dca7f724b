import { nodeV8 } from '../common/node-v8.js';
import type { World } from '../mpid/world.js';
import type { Intracomm } from './comm.js';
import { V8_FLAGS, V8_FLAGS_AFTER_INIT, WARMUP, WARMUP_ROUNDS } from './config.js';
import { SUM } from './op.js';
import { Request } from './request.js';
import { settleYoungGeneration } from './young-generation.js';

/**
 * The warm-up at the end of MPI.Init. V8 runs a function in its interpreter until the function
 * has run enough, then compiles it with TurboFan, 0.3 to 6 ms a function on the rank's own
 * thread; the message path is some 40 functions. A fresh job therefore spent its first few
 * thousand messages slow (8-byte ping-pong 3-5 us instead of 0.15), and every compile stalled
 * the peer, which slept on its futex and cost a wake on top. Here the ranks of a node pass
 * small messages round a ring through the calls a program uses first, with the buffers it
 * usually has, so the path is compiled (with that type feedback) before Init returns.
 *
 * Every message of the warm-up is received before it ends, so the program finds no trace of it
 * in its queues. Last, the young generation is written through once (young-generation.ts).
 * Under `auto` only ranks with a core each warm up: with more ranks than cores a rank's waits
 * give the core away and the rounds would cost milliseconds each.
 */
const TAG = 32_000;

/** Sizes of the round's messages: empty, the inline copies, a slot view, a multi-slot one (all within BURST_MAX). */
const SIZES = [8, 0, 8, 24, 8, 64, 8, 512] as const;

/**
 * Sets TSMPI_V8_FLAGS once Init has bootstrapped, on a rank with a core of its own. Ranks that
 * outnumber the cores are left as they are: with the lower budget 4 ranks on 2 cores took 120
 * us a Barrier instead of 20 (V8 kept recompiling code in the waits that give the core away).
 */
export function applyV8Flags(world: World): void {
  if (setsV8Flags(world)) nodeV8().setFlagsFromString(V8_FLAGS.read());
}

/** Whether Init sets V8 flags on this rank: TSMPI_V8_FLAGS is not none and the rank has a core of its own. */
function setsV8Flags(world: World): boolean {
  return V8_FLAGS.read() !== 'none' && world.progress.hasOwnCore;
}

/**
 * At the end of Init, where applyV8Flags set flags: TSMPI_V8_FLAGS_AFTER_INIT, when set (V8's own
 * inlining budget back, say). What the warm-up compiled keeps the budget it was compiled with;
 * what the program compiles from then on gets the new one.
 */
export function applyV8FlagsAfterInit(world: World): void {
  const flags = V8_FLAGS_AFTER_INIT.read();
  if (flags !== 'none' && setsV8Flags(world)) nodeV8().setFlagsFromString(flags);
}

export function warmUpMessagePath(world: World, comm: Intracomm): void {
  const mode = WARMUP.read();
  if (mode === 'off') return;
  const local: number[] = [];
  for (let r = 0; r < world.size; r++) if (world.onSameNode(r) && world.sharesMemoryWith(r)) local.push(r);
  if (local.length < 2) return;
  if (mode === 'auto' && !world.progress.hasOwnCore) return;
  const me = local.indexOf(world.rank);
  const next = local[(me + 1) % local.length]!;
  const prev = local[(me - 1 + local.length) % local.length]!;
  const barrier = local.length === world.size;
  const out = new Uint8Array(BURST_MAX);
  const into = new Uint8Array(BURST_MAX);
  const views = SIZES.map((n) => [out.subarray(0, n), into.subarray(0, n)] as const);
  const outDouble = new Float64Array(1);
  const inDouble = new Float64Array(1);
  const pair: Request[] = [];
  const big = new Uint8Array(PATH_MAX * 2);
  const rounds = WARMUP_ROUNDS.read();
  for (let k = 0; k < rounds; k++) {
    const [s, r] = views[k % views.length]!;
    // A ping-pong: every other rank receives first, so its receive is posted before the data
    // comes (the matched path) while the others find theirs waiting (the unexpected path).
    // Eager sends complete at once, so a ring of any size cannot deadlock.
    if ((me & 1) === 0) {
      comm.Send(s, next, TAG);
      comm.Recv(r, prev, TAG);
    } else {
      comm.Recv(r, prev, TAG);
      comm.Send(s, next, TAG);
    }
    const sendBuf = (k & 3) === 3 ? outDouble : s;
    const recvBuf = (k & 3) === 3 ? inDouble : r;
    pair[0] = comm.Irecv(recvBuf, prev, TAG);
    pair[1] = comm.Isend(sendBuf, next, TAG);
    if ((k & 1) === 0) Request.Waitall(pair);
    else {
      pair[1]!.Wait();
      pair[0]!.Wait();
    }
    // The collectives programs call between their loops (a Barrier; a one-number Allreduce)
    // come every other round: compiled here, not while a peer has started its clock.
    if (barrier && (k & 1) === 0) {
      if ((k & 7) === 0) comm.Allreduce(outDouble, inDouble, SUM);
      else comm.Barrier();
    }
    if ((k & 63) === 31) paths(comm, next, prev, big, k === 31 ? WRAP_MESSAGES : 0);
    if ((k & 63) === 63) {
      // Objects (the lowercase calls), and a window of each of a few sizes arriving unexpected.
      const ready = comm.irecv(prev, TAG);
      comm.send(k, next, TAG);
      ready.wait();
      const n = BURST_SIZES[(k >> 6) % BURST_SIZES.length]!;
      burst(comm, next, prev, out.subarray(0, n), into.subarray(0, n));
    }
  }
  failedRetry(world, comm, me, next, prev);
  settleYoungGeneration();
}

/**
 * One message of each larger kind, now and then: through the pair's eager ring (2 KiB, 6 KiB,
 * 40 KiB) and by rendezvous (300 KiB). They need not be hot, only seen:
 * code V8 compiled without ever taking these branches is thrown away when a program first does
 * (measured: the 2- and 8-byte rows of osu_mbw_mr 3-5 x slower after its warm-up pass had sent
 * 4 KiB), and compiled again while the peer's clock runs. It backs each pair's eager ring
 * (0.5 MiB each way by default) and some bounce buffers.
 */
const PATH_SIZES = [2000, 6000, 40_000, 300_000] as const;
const PATH_MAX = 300_000;
/** 40 KB messages that fill 1 MiB, twice a pair's eager ring at its default 512 KiB: the wrap-around is a branch of its own. */
const WRAP_MESSAGES = Math.ceil((1 << 20) / 40_000) + 2;
const pathRequests: Request[] = [];

/** One message of `n` bytes from `big`'s first half to the next rank, one into its second half from the previous. */
function exchange(comm: Intracomm, next: number, prev: number, big: Uint8Array, n: number): void {
  const half = big.length / 2;
  pathRequests[0] = comm.Irecv(big.subarray(half, half + n), prev, TAG);
  pathRequests[1] = comm.Isend(big.subarray(0, n), next, TAG);
  Request.Waitall(pathRequests);
}

/**
 * Each of PATH_SIZES once, then `wraps` more 40 KB messages; the first time (wraps > 0) also a
 * wrap of the eager ring and a parked rendezvous reply, branches that need to be seen once only.
 */
function paths(comm: Intracomm, next: number, prev: number, big: Uint8Array, wraps: number): void {
  for (const n of PATH_SIZES) exchange(comm, next, prev, big, n);
  for (let i = 0; i < wraps; i++) exchange(comm, next, prev, big, 40_000);
  if (wraps > 0) {
    parkedReply(comm, next, prev, big);
    eagerRingFull(comm, next, prev, big);
    unexpectedRendezvous(comm, next, prev, big);
  }
}

/**
 * More empty messages than a ring holds (64 slots by default), so some wait for room.
 */
const FILL_MESSAGES = 80;
const fillRequests = new Array<Request>(2 * FILL_MESSAGES + 2);
const EMPTY = new Uint8Array(0);

/**
 * A rendezvous whose reply waits behind a full ring: each rank asks the next for a 300 KB
 * rendezvous and, before it waits, fills its ring to the previous rank with empty messages, so
 * the clear-to-send (or the finish) it owes the previous rank is parked and sent later from the
 * parked queue. Without it the first such reply in a program threw away the compiled engine (the
 * parked-reply branch had no type feedback) and compiled it again while the peer waited: osu_bw's
 * 64 KiB windows, whose eager ring runs full and whose rendezvous replies then queue, took 10-27
 * ms instead of 0.3 in one window of every fresh job.
 */
function parkedReply(comm: Intracomm, next: number, prev: number, big: Uint8Array): void {
  const half = big.length / 2;
  const r = fillRequests;
  r[0] = comm.Irecv(big.subarray(half, half + PATH_MAX), prev, TAG);
  r[1] = comm.Isend(big.subarray(0, PATH_MAX), next, TAG);
  for (let i = 0; i < FILL_MESSAGES; i++) r[2 + i] = comm.Isend(EMPTY, prev, TAG + 1);
  for (let i = 0; i < FILL_MESSAGES; i++) r[2 + FILL_MESSAGES + i] = comm.Irecv(EMPTY, next, TAG + 1);
  Request.Waitall(r);
}

/** 40 KB messages sent at once to the next rank, more than its eager ring holds (512 KiB by default). */
const OVERFLOW_MESSAGES = 16;
/** 40 KB messages sent after the ring's slots are full, so they wait in the parked queue. */
const PARKED_MESSAGES = 8;
const overflowRequests = new Array<Request>(2 * (OVERFLOW_MESSAGES + FILL_MESSAGES + PARKED_MESSAGES));

/**
 * Sends the pair's eager ring cannot take: every rank sends OVERFLOW_MESSAGES of 40 KB, then
 * fills the ring's slots with empty messages, then sends PARKED_MESSAGES more of 40 KB, before
 * it receives anything, so (the ranks doing the same at once, none draining its ring meanwhile)
 * the later 40 KB sends find the eager ring full and go by rendezvous, and the last are parked
 * behind the empty ones (when they are retried the eager ring may still be full; that branch is
 * not certain to be seen). osu_bw's windows of 16-64 KiB fill the eager ring; V8 had compiled the
 * sends without that branch and threw them away in the first timed row of every fresh job (a
 * recompile of the send path while the peer waited).
 */
function eagerRingFull(comm: Intracomm, next: number, prev: number, big: Uint8Array): void {
  const half = big.length / 2;
  const r = overflowRequests;
  let k = 0;
  for (let i = 0; i < OVERFLOW_MESSAGES; i++) r[k++] = comm.Isend(big.subarray(0, 40_000), next, TAG + 2);
  for (let i = 0; i < FILL_MESSAGES; i++) r[k++] = comm.Isend(EMPTY, next, TAG + 2);
  for (let i = 0; i < PARKED_MESSAGES; i++) r[k++] = comm.Isend(big.subarray(0, 40_000), next, TAG + 2);
  for (let i = 0; i < OVERFLOW_MESSAGES; i++) r[k++] = comm.Irecv(big.subarray(half, half + 40_000), prev, TAG + 2);
  for (let i = 0; i < FILL_MESSAGES; i++) r[k++] = comm.Irecv(EMPTY, prev, TAG + 2);
  for (let i = 0; i < PARKED_MESSAGES; i++) r[k++] = comm.Irecv(big.subarray(half, half + 40_000), prev, TAG + 2);
  Request.Waitall(r);
}

/**
 * A rendezvous that arrives before its receive is posted: the blocking Probe returns once the
 * previous rank's request-to-send waits in our unexpected queue, and the receive takes it from
 * there. Without it the first such arrival in a program (osu_bw's 32 and 64 KiB windows, when the
 * receiver posts late) threw away the compiled receive path and compiled it again while the peer
 * waited: one row of one fresh job in five ran at 2-4 GB/s instead of 17-20.
 */
function unexpectedRendezvous(comm: Intracomm, next: number, prev: number, big: Uint8Array): void {
  const half = big.length / 2;
  pathRequests[1] = comm.Isend(big.subarray(0, PATH_MAX), next, TAG + 3);
  comm.Probe(prev, TAG + 3);
  pathRequests[0] = comm.Irecv(big.subarray(half, half + PATH_MAX), prev, TAG + 3);
  Request.Waitall(pathRequests);
}

/** How long a rank sleeps in failedRetry without polling its rings (ms). */
const DEAF_MS = 1;
const deafCell = new Int32Array(new SharedArrayBuffer(4));
/** Most empty messages failedRetry sends to fill a ring (a ring of TSMPI_SHMEM_SLOTS' largest size). */
const RETRY_FILL_MAX = 4097;
const retrySends: Request[] = [];
const retryRecvs: Request[] = [];
/** Counts sent and received: apart, as the send may still be in flight when the receive lands. */
const retrySent = new Int32Array(1);
const retryGot = new Int32Array(1);

/**
 * A parked send whose retry fails: each rank sends empty messages to the next rank until one is
 * parked (the ring is full), and the next rank sleeps a millisecond without polling, so the
 * retry of that send finds the ring still full and puts it back at the front of the parked
 * queue, as its only entry. In three phases (even ranks sleep, odd ranks sleep, the first rank
 * sleeps) every rank meets a sleeping next rank. osu_bw's default table parks such sends at
 * 1-4 MiB in its untimed pass; the engine's waits, compiled without that branch, were thrown away
 * there and compiled again in the first timed row. The receiver learns the count from a message
 * on its own tag, sent once the others have gone (its Recv drains the ring meanwhile).
 */
function failedRetry(world: World, comm: Intracomm, me: number, next: number, prev: number): void {
  const counters = world.engine.counters;
  for (let phase = 0; phase < 3; phase++) {
    const deaf = phase < 2 ? (me & 1) === phase : me === 0;
    // The count of parks, not engine.parkedCount: a control reply of an earlier phase may still
    // wait in the parked queue, and only a new park says that one of these sends found it full.
    const parked = counters.parked;
    retrySends.length = 0;
    while (counters.parked === parked && retrySends.length < RETRY_FILL_MAX) retrySends.push(comm.Isend(EMPTY, next, TAG + 4));
    if (deaf) Atomics.wait(deafCell, 0, 0, DEAF_MS);
    // The parked send is the queue's only entry while it is retried; the count goes after it.
    Request.Waitall(retrySends);
    retrySent[0] = retrySends.length;
    const counted = comm.Isend(retrySent, next, TAG + 5);
    comm.Recv(retryGot, prev, TAG + 5);
    retryRecvs.length = 0;
    for (let i = 0; i < retryGot[0]!; i++) retryRecvs.push(comm.Irecv(EMPTY, prev, TAG + 4));
    Request.Waitall(retryRecvs);
    counted.Wait();
  }
}

/** Sizes of the warm-up's windows: unexpected buffers come in power-of-two classes, each made once. */
const BURST_SIZES = [8, 100, 300, 700, 1000] as const;
const BURST_MAX = 1000;

/**
 * A window of sends that arrive before their receives are posted (osu_bw's pattern), so the
 * unexpected queue and its record pool grow here: code V8 optimized without ever seeing that
 * growth would be thrown away the first time a program's window made it grow.
 */
const BURST = 64;
// Holey (new Array(n)), as OMB-style programs make theirs; the round's pair above is packed. An
// array of the other kind first met in optimized Waitall throws that code away.
const burstRequests = new Array<Request>(2 * BURST);
function burst(comm: Intracomm, next: number, prev: number, s: Uint8Array, r: Uint8Array): void {
  for (let j = 0; j < BURST; j++) burstRequests[j] = comm.Isend(s, next, TAG);
  // The sends are in the ring, or wait for room or for their receive (a rendezvous): both
  // halves are waited for together.
  for (let j = 0; j < BURST; j++) burstRequests[BURST + j] = comm.Irecv(r, prev, TAG);
  Request.Waitall(burstRequests);
}
