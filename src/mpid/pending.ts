import { PKT_EAGER } from './hdr/packet.js';
import type { MatchQueues } from './match-queue.js';
import { KIND_RECV, KIND_SEND, MODE_SYNC, STATE_ACTIVE, type RequestPool } from './request.js';

/**
 * A point-to-point operation that has not completed, as a state report shows it. Built only
 * when a report is asked for, by walking the request pool and the unexpected queue: the
 * message path keeps no extra bookkeeping for it.
 */
export interface PendingOperation {
  readonly kind: 'send' | 'recv' | 'unexpected';
  /** Context id (a communicator's ctx, or ctx + 1 for its collectives). */
  readonly ctx: number;
  /**
   * recv: the source's rank in the communicator (-2 for any source); send: the destination's
   * world rank; unexpected: the sender's rank in the communicator.
   */
  readonly peer: number;
  /** -1 for any tag (receives only). */
  readonly tag: number;
  /** recv: the receive buffer's size; send and unexpected: the message's size. */
  readonly bytes: number;
  /** Where it is in the protocol, in words. */
  readonly state: string;
}

/** The operations of `requests` that are still active, and the unexpected messages of `queues`. */
export function describePending(requests: RequestPool, queues: MatchQueues): PendingOperation[] {
  const out: PendingOperation[] = [];
  for (let id = 0; id < requests.size; id++) {
    const r = requests.get(id);
    if (r.state !== STATE_ACTIVE) continue;
    const bytes = r.packed !== null ? r.packed.length : r.buf.length;
    if (r.kind === KIND_RECV) {
      const state = r.allocateOnMatch && r.peer < 0 ? 'posted (object receive), no message matched yet'
        : r.peer < 0 ? 'posted, no message matched yet' : `matched a message from world rank ${r.peer}, data still arriving`;
      out.push({ kind: 'recv', ctx: r.ctx, peer: r.rank, tag: r.tag, bytes: r.allocateOnMatch ? -1 : bytes, state });
    } else if (r.kind === KIND_SEND) {
      let state: string;
      if (r.pendingType === PKT_EAGER && r.sendGot === 0) state = 'waiting for room in the receiver\'s buffers';
      else if (r.pendingType === PKT_EAGER) state = r.mode === MODE_SYNC ? 'sent; waiting for the receive to match (synchronous mode)' : 'sent; completing';
      else state = 'rendezvous: waiting for the receiver to post a matching receive';
      out.push({ kind: 'send', ctx: r.ctx, peer: r.peer, tag: r.tag, bytes, state });
    }
  }
  queues.forEachUnexpected((u) => {
    out.push({
      kind: 'unexpected', ctx: u.ctx, peer: u.src, tag: u.tag, bytes: u.len,
      state: u.type === PKT_EAGER ? 'arrived, no receive matches it' : 'announced (rendezvous), no receive matches it',
    });
  });
  return out;
}
