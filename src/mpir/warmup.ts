import { nodeV8 } from '../common/node-v8.js';
import type { World } from '../mpid/world.js';
import type { Intracomm } from './comm.js';
import { V8_FLAGS, WARMUP, WARMUP_ROUNDS } from './config.js';
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
  const flags = V8_FLAGS.read();
  if (flags !== 'none' && world.progress.hasOwnCore) nodeV8().setFlagsFromString(flags);
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
  settleYoungGeneration();
}

/**
 * One message of each larger kind, now and then: through the pair's eager ring (2 KiB, 6 KiB, the
 * native copy from 4 KiB, 40 KiB) and by rendezvous (300 KiB). They need not be hot, only seen:
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
  if (wraps > 0) parkedReply(comm, next, prev, big);
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
