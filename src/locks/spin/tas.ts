/**
 * Global TAS and TTS spin locks with exponential backoff (research 000 §2.1 and §2.9, the
 * thesis' global TAS `TasLockCasBo`), over MPI RMA at rank 0.
 *
 * Window layout (LockWindow, disp_unit 1; only rank 0 has memory):
 *   rank 0: `locked` uint8 at byte 0 (its own 64-byte line); 0 = free, 1 = held.
 *
 * TAS acquire: Compare_and_swap(uint8 1, compare 0) at rank 0 + Flush; on failure back off
 * and retry. TTS acquire: first an atomic read (Fetch_and_op NO_OP + Flush; rank 0 reads its
 * own memory directly) until the flag reads 0, then the CAS. Release: Accumulate(REPLACE 0)
 * + Flush. tryAcquire: one (read and) CAS.
 *
 * Backoff: after every failed attempt (and, for TTS, every read that saw the lock held)
 * Backoff.backoff(): a random number of iterations in [1, b], b doubling from `minBackoff` to
 * `maxBackoff`; each iteration is a Waiter.pause() (Iprobe, then naps once it waits long).
 *
 * Deviations: the thesis' backoff is a time spin of 1..256 ns; ours counts Waiter pauses
 * (each an Iprobe, later a nap), because on this oversubscribed machine a nanosecond spin
 * would steal the holder's core. Default max 64 pauses instead of 256: with naps of up to
 * 500 µs per pause, 256 would let a waiter sleep for ~100 ms after the lock became free.
 * The flag is one byte (the thesis' MPI_CXX_BOOL) written with atomic Accumulate rather than
 * Put, since other ranks CAS it.
 *
 * Research ids cited here: see docs/references.md.
 */
import { type LockContext, LockWindow, WindowLayout } from '../context.js';
import { type Lock, type LockParams, LockStats, type LockSpec } from '../lock.js';
import { Backoff } from '../wait.js';
import { Rma } from './rma.js';

const LAYOUT = new WindowLayout().field('locked', 1);
const LOCKED = LAYOUT.at('locked');
const MASTER = 0;

export class TasLock implements Lock {
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly rma: Rma;
  private readonly backoff: Backoff;

  constructor(ctx: LockContext, readonly name: string, private readonly test: boolean, params: LockParams) {
    this.lw = new LockWindow(ctx.comm, ctx.rank === MASTER ? LAYOUT.size : 0);
    this.rma = new Rma(this.lw.win);
    this.backoff = new Backoff(ctx.waiter(), params.minBackoff ?? 1, params.maxBackoff ?? 64);
    ctx.comm.Barrier();
  }

  /** Whether the flag reads free (TTS's test; rank 0 polls its own memory directly). */
  private looksFree(): boolean {
    if (this.lw.mem.length > 0) return Atomics.load(this.lw.mem, LOCKED) === 0;
    return this.rma.read8(MASTER, LOCKED) === 0;
  }

  tryAcquire(): boolean {
    if (this.test && !this.looksFree()) return false;
    return this.rma.cas8(1, 0, MASTER, LOCKED) === 0;
  }

  acquire(): void {
    if (this.tryAcquire()) {
      this.stats.immediate++;
      return;
    }
    this.stats.delayed++;
    this.backoff.reset();
    for (;;) {
      this.backoff.backoff();
      if (this.test && !this.looksFree()) continue;
      if (this.rma.cas8(1, 0, MASTER, LOCKED) === 0) break;
    }
    this.backoff.reset();
  }

  release(): void {
    this.rma.store8(0, MASTER, LOCKED);
  }

  free(): void {
    this.lw.free();
  }
}

const DEFAULTS = { minBackoff: 1, maxBackoff: 64 };

export const TAS_LOCK: LockSpec = {
  name: 'tas',
  family: 'spin',
  description: 'global TAS (uint8 CAS at rank 0) with exponential backoff (thesis §2.1, §5.4.3 TasLockCasBo)',
  rw: false,
  tryable: true,
  hierarchical: false,
  defaults: DEFAULTS,
  make: (ctx, params) => new TasLock(ctx, 'tas', false, { ...DEFAULTS, ...params }),
};

export const TTS_LOCK: LockSpec = {
  name: 'tts',
  family: 'spin',
  description: 'global TTS (atomic read, then uint8 CAS at rank 0) with exponential backoff (thesis §2.1)',
  rw: false,
  tryable: true,
  hierarchical: false,
  defaults: DEFAULTS,
  make: (ctx, params) => new TasLock(ctx, 'tts', true, { ...DEFAULTS, ...params }),
};
