/**
 * A thin reader of the UCX binding's rings (src/native/addon.ts, section UCX) for the tests'
 * peer programs and the probe benchmark: what the ch_ucx device will do, without mpid.
 * Visiting records and completions allocates nothing; the payload is passed as (bytes, offset,
 * length) over the inbox itself.
 */
import {
  addon, UCX_CQ_ENTRY_WORDS, UCX_CTL_CQ_HEAD, UCX_CTL_CQ_TAIL, UCX_CTL_INBOX_HEAD, UCX_CTL_INBOX_TAIL,
  UCX_REC_DESC, UCX_REC_KIND_MASK, UCX_REC_MSG, UCX_REC_WRAP, UCX_RECORD_HEADER_BYTES,
  type UcxContext, type UcxEndpoint, type UcxWorker, type UcxWorkerOptions, type UcxWorkerRings,
} from '../../../src/native/addon.js';

/** An arriving message: header at inbox[hOff, hOff+hLen); inline payload at inbox[pOff, pOff+len), or a descriptor. */
export type RecordVisitor = (inbox: Uint8Array, hOff: number, hLen: number, pOff: number, len: number,
                             descId: number, flags: number) => void;
export type CompletionVisitor = (token: number, status: number, kind: number, value: number) => void;

const pad8 = (n: number): number => (n + 7) & ~7;

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function fromHex(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export class Rank {
  readonly context: UcxContext;
  readonly rings: UcxWorkerRings;
  readonly worker: UcxWorker;
  private readonly words: Int32Array;
  private readonly mask: number;
  private readonly control: Int32Array;
  private readonly cq: Int32Array;
  private readonly cqMask: number;

  constructor(features: number, options: UcxWorkerOptions = {}) {
    this.context = addon.ucxContextCreate({ features, estimatedEndpoints: 2 });
    this.rings = addon.ucxWorkerCreate(this.context, options);
    this.worker = this.rings.worker;
    this.words = new Int32Array(this.rings.inbox.buffer);
    this.mask = this.rings.inbox.length - 1;
    this.control = this.rings.control;
    this.cq = this.rings.completions;
    this.cqMask = this.cq.length / UCX_CQ_ENTRY_WORDS - 1;
  }

  address(): Uint8Array {
    return addon.ucxWorkerAddress(this.worker);
  }

  connect(address: Uint8Array, userId: number): UcxEndpoint {
    return addon.ucxEpCreate(this.worker, address, userId);
  }

  progress(): number {
    return addon.ucxProgress(this.worker);
  }

  /** Hands every record in the inbox to `visit`, then releases them; returns how many. */
  drainInbox(visit: RecordVisitor): number {
    const control = this.control;
    const words = this.words;
    const inbox = this.rings.inbox;
    const head = control[UCX_CTL_INBOX_HEAD]!;
    let tail = control[UCX_CTL_INBOX_TAIL]!;
    let n = 0;
    while (tail !== head) {
      const off = tail & this.mask;
      const w = off >> 2;
      const kind = words[w]! & UCX_REC_KIND_MASK;
      if (kind === UCX_REC_WRAP) {
        tail = (tail + (inbox.length - off)) | 0;
        continue;
      }
      const hLen = words[w + 1]!;
      const len = words[w + 2]!;
      const hOff = off + UCX_RECORD_HEADER_BYTES;
      const pOff = hOff + pad8(hLen);
      if (kind === UCX_REC_MSG) {
        visit(inbox, hOff, hLen, pOff, len, -1, 0);
        tail = (tail + UCX_RECORD_HEADER_BYTES + pad8(hLen) + pad8(len)) | 0;
      } else if (kind === UCX_REC_DESC) {
        visit(inbox, hOff, hLen, pOff, len, words[w + 3]! >>> 0, words[w]! & ~UCX_REC_KIND_MASK);
        tail = (tail + UCX_RECORD_HEADER_BYTES + pad8(hLen)) | 0;
      } else {
        throw new Error(`inbox record of unknown kind ${kind} at offset ${off}`);
      }
      n++;
    }
    control[UCX_CTL_INBOX_TAIL] = tail;
    return n;
  }

  /** Hands every completion to `visit`, then releases them; returns how many. */
  drainCompletions(visit: CompletionVisitor): number {
    const control = this.control;
    const cq = this.cq;
    const head = control[UCX_CTL_CQ_HEAD]!;
    let tail = control[UCX_CTL_CQ_TAIL]!;
    let n = 0;
    while (tail !== head) {
      const at = (tail & this.cqMask) * UCX_CQ_ENTRY_WORDS;
      visit(cq[at]!, cq[at + 1]!, cq[at + 2]!, cq[at + 3]!);
      tail = (tail + 1) | 0;
      n++;
    }
    control[UCX_CTL_CQ_TAIL] = tail;
    return n;
  }

  /** Whether the inbox or the completion queue has something. */
  pending(): boolean {
    const c = this.control;
    return c[UCX_CTL_INBOX_HEAD] !== c[UCX_CTL_INBOX_TAIL] || c[UCX_CTL_CQ_HEAD] !== c[UCX_CTL_CQ_TAIL];
  }

  close(): void {
    addon.ucxContextDestroy(this.context);
  }
}

/** Spins on `step` until it returns true, yielding to the event loop now and then (stdin, timers). */
export async function until(step: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (let i = 0; ; i++) {
    if (step()) return;
    if ((i & 255) === 255) {
      if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
      await new Promise((r) => setImmediate(r));
    }
  }
}

/** What the completion queue reported, by token (test code: it allocates). */
export class Tracker {
  readonly done = new Map<number, { status: number; kind: number; value: number }>();
  readonly failures: { userId: number; status: number }[] = [];

  constructor(private readonly rank: Rank, private readonly failedKind: number) {}

  private readonly visit: CompletionVisitor = (token, status, kind, value) => {
    if (kind === this.failedKind) this.failures.push({ userId: token, status });
    else this.done.set(token, { status, kind, value });
  };

  /** One progress call and the completions it produced; returns the progress count. */
  poll(): number {
    const n = this.rank.progress();
    this.rank.drainCompletions(this.visit);
    return n;
  }

  /** Takes the completion of `token` if it arrived (status, or undefined). */
  take(token: number): number | undefined {
    const c = this.done.get(token);
    if (c === undefined) return undefined;
    this.done.delete(token);
    return c.status;
  }
}
