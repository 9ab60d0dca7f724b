// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { WindowChannel } from './channel.js';
import { KIND_UINT8 } from './codes.js';
import { mergePuts } from './gather.js';
import { BATCH, HEADER_DOUBLES, PUT } from './wire.js';
import { oscCounters } from './counters.js';

/**
 * The gathered method (003b §3.2d, TSMPI_RMA_METHOD=gather): small Puts and Accumulates per
 * target, sent as one BATCH message at the next synchronisation (or before any other request
 * to that target, so the order stays); gather.ts sorts each run of Puts by target offset and
 * merges neighbours before it goes.
 */
export class GatheredRequests {
  private readonly batches = new Map<number, { buf: Uint8Array; len: number; count: number }>();
  /** Operations gathered, BATCH messages sent, Puts merged into a neighbour. */
  readonly counters = { operations: 0, messages: 0, merged: 0 };
  /** Operations gathered and not sent yet, all targets together. */
  queued = 0;

  constructor(private readonly channel: WindowChannel, readonly maxBytes: number) {}

  /** Keeps request `kind` (its message `msg`, copied) for `t`. */
  add(t: number, kind: number, msg: Uint8Array): void {
    let b = this.batches.get(t);
    if (b === undefined) this.batches.set(t, (b = { buf: new Uint8Array(4096), len: 0, count: 0 }));
    const need = b.len + 16 + Math.ceil(msg.length / 8) * 8;
    if (need > b.buf.length) {
      const bigger = new Uint8Array(Math.max(need, 2 * b.buf.length));
      bigger.set(b.buf.subarray(0, b.len));
      b.buf = bigger;
    }
    const entry = new Float64Array(b.buf.buffer, b.len, 2);
    entry[0] = kind;
    entry[1] = msg.length;
    b.buf.set(msg, b.len + 16);
    b.len = need;
    b.count++;
    this.counters.operations++;
    oscCounters.gatheredOperations++;
    this.queued++;
  }

  /** Sends what was gathered for `t`, if anything, as one message. */
  send(t: number): void {
    const b = this.batches.get(t);
    if (b === undefined || b.len === 0) return;
    this.queued -= b.count;
    const sorted = mergePuts(b.buf, b.len, PUT, HEADER_DOUBLES, KIND_UINT8);
    if (sorted !== null) this.counters.merged += sorted.merged;
    this.counters.messages++;
    oscCounters.gatheredMessages++;
    this.channel.send(t, BATCH, sorted !== null ? sorted.bytes : b.buf.subarray(0, b.len));
    b.len = 0;
    b.count = 0;
  }
}
