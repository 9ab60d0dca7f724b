import type { UcxEndpoint } from '../native/addon.js';

/**
 * ch_ucx's state per peer: the world's ranks, then processes of other jobs (dynamic processes,
 * RemotePeers), which arrive after Init and grow every table. The message path reads a table
 * through this object each time (a grown table is a new array).
 */
export class UcxPeers {
  /** The endpoint to each peer; null for ourselves and ranks another device carries. */
  readonly eps: (UcxEndpoint | null)[];
  /** Sequence number of our next packet to each peer, and of the next one due from it. */
  sendSeq: Int32Array;
  recvSeq: Int32Array;
  /** Why a peer's endpoint failed (a ucs_status_t), 0 while it works. */
  failed: Int32Array;
  /**
   * The number each peer knows us by, which our packets carry as their source: our world rank
   * for the world's ranks, the number the handshake gave us for another job's process.
   */
  usThere: Int32Array;
  /** Peers of other jobs a Disconnect released: their loss is no error. */
  released: Uint8Array;

  constructor(readonly worldSize: number, rank: number, eps: readonly (UcxEndpoint | null)[]) {
    this.eps = [...eps];
    this.sendSeq = new Int32Array(worldSize);
    this.recvSeq = new Int32Array(worldSize);
    this.failed = new Int32Array(worldSize);
    this.usThere = new Int32Array(worldSize).fill(rank);
    this.released = new Uint8Array(worldSize);
  }

  get count(): number {
    return this.sendSeq.length;
  }

  /** Whether `peer` is a process of another job. */
  isRemote(peer: number): boolean {
    return peer >= this.worldSize;
  }

  /** Adds `peer` (the next number) with its endpoint and the number it knows us by. */
  add(peer: number, ep: UcxEndpoint, usThere: number): void {
    if (peer < this.count) throw new Error(`ch_ucx: peer ${peer} is already known`);
    const n = peer + 1;
    this.sendSeq = grown(this.sendSeq, n);
    this.recvSeq = grown(this.recvSeq, n);
    this.failed = grown(this.failed, n);
    this.usThere = grown(this.usThere, n);
    const released = new Uint8Array(n);
    released.set(this.released);
    this.released = released;
    while (this.eps.length < peer) this.eps.push(null);
    this.eps[peer] = ep;
    this.usThere[peer] = usThere;
  }
}

function grown(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}
