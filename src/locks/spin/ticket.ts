/**
 * Global ticket lock (TKT, [MCS91a]; research 000 §2.9 Fig. 5.4 and the thesis' `TktLock`),
 * over MPI RMA at rank 0.
 *
 * Window layout (LockWindow, disp_unit 1; only rank 0 has memory):
 *   rank 0: `next` int32 at byte 0 (the next ticket to hand out), `serving` int32 at byte 64
 *   (the ticket now served), each on its own 64-byte line.
 *
 * Acquire: my = Fetch_and_op(SUM 1 → next) (flushed), then poll `serving` with
 * Fetch_and_op(NO_OP) + Flush (rank 0 reads its own memory directly) until it equals my;
 * between polls, backoff. Release: Accumulate(SUM 1 → serving) + Flush. tryAcquire: read
 * `serving` and `next`; when equal, Compare_and_swap(next: n → n+1): success iff it returned n
 * (no one holds or waits, and our ticket is served at once).
 *
 * Deviations: the thesis' TKT does not back off ("no gain") and does not flush the ticket
 * fetch separately; we flush every operation (Rma helpers), and back off between polls with
 * Backoff (pauses = Iprobe, then naps) because ranks outnumber cores here and a poller that
 * never sleeps starves the holder. The backoff is exponential as the brief asks (not
 * proportional to the queue length). Tickets are int32 and wrap after 2^31 acquisitions
 * (the comparison is for equality only, so wrap-around stays correct as long as the runtime's
 * SUM wraps).
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI } from '../../index.js';
import { type LockContext, LockWindow, WindowLayout } from '../context.js';
import { type Lock, type LockParams, LockStats, type LockSpec } from '../lock.js';
import { Backoff } from '../wait.js';
import { Rma } from './rma.js';

const LAYOUT = new WindowLayout().field('next', 4).field('serving', 4);
const NEXT = LAYOUT.at('next');
const SERVING = LAYOUT.at('serving');
const MASTER = 0;

export class TicketLock implements Lock {
  readonly name = 'ticket';
  readonly stats = new LockStats();
  private readonly lw: LockWindow;
  private readonly rma: Rma;
  private readonly backoff: Backoff;

  constructor(ctx: LockContext, params: LockParams) {
    this.lw = new LockWindow(ctx.comm, ctx.rank === MASTER ? LAYOUT.size : 0);
    this.rma = new Rma(this.lw.win);
    this.backoff = new Backoff(ctx.waiter(), params.minBackoff ?? 1, params.maxBackoff ?? 16);
    ctx.comm.Barrier();
  }

  private serving(): number {
    if (this.lw.i32.length > 0) return Atomics.load(this.lw.i32, SERVING >> 2);
    return this.rma.read32(MASTER, SERVING);
  }

  acquire(): void {
    const my = this.rma.fop32(1, MASTER, NEXT, MPI.SUM);
    if (this.serving() === my) {
      this.stats.immediate++;
      return;
    }
    this.stats.delayed++;
    this.backoff.reset();
    do this.backoff.backoff();
    while (this.serving() !== my);
    this.backoff.reset();
  }

  tryAcquire(): boolean {
    const s = this.serving();
    if (this.rma.read32(MASTER, NEXT) !== s) return false;
    return this.rma.cas32((s + 1) | 0, s, MASTER, NEXT) === s;
  }

  release(): void {
    this.rma.add32(1, MASTER, SERVING);
  }

  free(): void {
    this.lw.free();
  }
}

const DEFAULTS = { minBackoff: 1, maxBackoff: 16 };

export const TICKET_LOCK: LockSpec = {
  name: 'ticket',
  family: 'spin',
  description: 'global ticket lock (Fetch_and_op SUM on next, polled serving at rank 0) with backoff (thesis §5.4 Fig. 5.4, TktLock)',
  rw: false,
  tryable: true,
  hierarchical: false,
  defaults: DEFAULTS,
  make: (ctx, params) => new TicketLock(ctx, { ...DEFAULTS, ...params }),
};
