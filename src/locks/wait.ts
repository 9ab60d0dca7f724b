import { MPI, type Intracomm } from '../index.js';

/**
 * The one way a lock waits. The thesis (§3.3) deadlocked on Intel MPI and Open MPI until every
 * spin loop called MPI_Iprobe(ANY_SOURCE, ANY_TAG), which the standard requires to make
 * progress: a waiter's own progress is what lets operations that target it (a hand-over Put
 * through its window agent, a lock grant) complete. So each pause() probes once. On a machine
 * with more ranks than cores a spinning waiter would also steal the CPU from the holder, so
 * after `spins` pauses without success it naps, with a nap that doubles up to `maxNapUs`
 * (Atomics.wait on a private word: a real sleep, nothing notifies it). A wait loop calls reset()
 * before and after it (written out, so that a wait allocates no closure).
 */
export class Waiter {
  private pauses = 0;
  private napUs: number;
  private readonly nap = new Int32Array(new SharedArrayBuffer(4));

  constructor(
    private readonly comm: Intracomm,
    private readonly spins = 64,
    private readonly minNapUs = 5,
    private readonly maxNapUs = 500,
    /** false: no Iprobe (the thesis' WBAB variant without progress calls, for comparison only). */
    private readonly probe = true,
  ) {
    this.napUs = minNapUs;
  }

  /** One iteration of a wait loop: drive progress; after a while, sleep a little. */
  pause(): void {
    if (this.probe) this.comm.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG);
    if (++this.pauses < this.spins) return;
    Atomics.wait(this.nap, 0, 0, this.napUs / 1000);
    this.napUs = Math.min(2 * this.napUs, this.maxNapUs);
  }

  /** The awaited thing happened: the next wait starts spinning again. */
  reset(): void {
    this.pauses = 0;
    this.napUs = this.minNapUs;
  }
}

/**
 * Exponential backoff of spin locks (TAS/TTS with backoff, [And90]): wait(b), then b doubles
 * up to max. The wait itself is pauses of a Waiter (progress, then naps), counted in
 * iterations as the thesis' RH lock counts its backoff.
 */
export class Backoff {
  private limit: number;

  constructor(private readonly waiter: Waiter, private readonly min = 1, private readonly max = 256) {
    this.limit = min;
  }

  /** Backs off for a random number of iterations in [1, limit], then doubles the limit. */
  backoff(): void {
    const n = 1 + Math.floor(Math.random() * this.limit);
    for (let i = 0; i < n; i++) this.waiter.pause();
    this.limit = Math.min(2 * this.limit, this.max);
  }

  reset(): void {
    this.limit = this.min;
    this.waiter.reset();
  }
}
