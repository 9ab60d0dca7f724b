import { ANY_SOURCE, ANY_TAG, type Request } from './request.js';
import type { Unexpected } from './unexpected.js';

/**
 * The posted-receive queue and the unexpected-message queue, each one FIFO in posting or
 * arrival order, linked through the records themselves (no allocation). Searching both in
 * order gives MPI's non-overtaking rule: messages of one sender arrive in order (each pair has
 * one ring) and match receives in the order they were posted, wildcards included.
 */
export class MatchQueues {
  private postedHead: Request | null = null;
  private postedTail: Request | null = null;
  private unexpectedHead: Unexpected | null = null;
  private unexpectedTail: Unexpected | null = null;
  unexpectedCount = 0;
  /** The longest the unexpected queue has been (MPI.T's high-water mark). */
  unexpectedMax = 0;

  post(r: Request): void {
    r.next = null;
    r.prev = this.postedTail;
    if (this.postedTail) this.postedTail.next = r;
    else this.postedHead = r;
    this.postedTail = r;
  }

  /** The first posted receive that matches the envelope, removed from the queue; or null. */
  takePosted(ctx: number, src: number, tag: number): Request | null {
    for (let r = this.postedHead; r !== null; r = r.next) {
      if (r.ctx === ctx && (r.rank === src || r.rank === ANY_SOURCE) && (r.tag === tag || r.tag === ANY_TAG)) {
        this.unlinkPosted(r);
        return r;
      }
    }
    return null;
  }

  /** Removes a posted receive (cancel); false if it was not there (already matched). */
  removePosted(r: Request): boolean {
    for (let p = this.postedHead; p !== null; p = p.next) {
      if (p === r) {
        this.unlinkPosted(r);
        return true;
      }
    }
    return false;
  }

  private unlinkPosted(r: Request): void {
    if (r.prev) r.prev.next = r.next;
    else this.postedHead = r.next;
    if (r.next) r.next.prev = r.prev;
    else this.postedTail = r.prev;
    r.next = null;
    r.prev = null;
  }

  pushUnexpected(u: Unexpected): void {
    u.next = null;
    u.prev = this.unexpectedTail;
    if (this.unexpectedTail) this.unexpectedTail.next = u;
    else this.unexpectedHead = u;
    this.unexpectedTail = u;
    if (++this.unexpectedCount > this.unexpectedMax) this.unexpectedMax = this.unexpectedCount;
  }

  /** The first unexpected message matching (ctx, rank, tag), wildcards allowed; not removed. */
  findUnexpected(ctx: number, rank: number, tag: number): Unexpected | null {
    for (let u = this.unexpectedHead; u !== null; u = u.next) {
      if (u.ctx === ctx && (rank === ANY_SOURCE || u.src === rank) && (tag === ANY_TAG || u.tag === tag)) return u;
    }
    return null;
  }

  /** The unexpected message a sender's request produced (for cancel), or null. */
  findBySender(peer: number, sreq: number): Unexpected | null {
    for (let u = this.unexpectedHead; u !== null; u = u.next) {
      if (u.peer === peer && u.sreq === sreq) return u;
    }
    return null;
  }

  /** Visits the unexpected messages in arrival order (state reports; not on the message path). */
  forEachUnexpected(visit: (u: Unexpected) => void): void {
    for (let u = this.unexpectedHead; u !== null; u = u.next) visit(u);
  }

  removeUnexpected(u: Unexpected): void {
    if (u.prev) u.prev.next = u.next;
    else this.unexpectedHead = u.next;
    if (u.next) u.next.prev = u.prev;
    else this.unexpectedTail = u.prev;
    u.next = null;
    u.prev = null;
    this.unexpectedCount--;
  }
}
