import { RNDV_DESC_WORDS } from './device.js';

/**
 * A message that arrived before its receive was posted: the envelope, and either the data
 * (EAGER, copied out of the device's buffers into a pooled byte buffer) or the rendezvous
 * descriptor (RTS, the data stays with the sender until the receive is posted).
 */
export class Unexpected {
  ctx = 0;
  src = 0;
  tag = 0;
  len = 0;
  type = 0;
  flags = 0;
  /** World rank of the sender and its request id (for ACK, CTS, FIN, cancel). */
  peer = 0;
  sreq = 0;
  data: Uint8Array = EMPTY;
  readonly desc = new Int32Array(RNDV_DESC_WORDS);
  readonly descBytes = new Uint8Array(this.desc.buffer);
  next: Unexpected | null = null;
  prev: Unexpected | null = null;
}

const EMPTY = new Uint8Array(0);

/** Free lists of unexpected records and of byte buffers in power-of-two size classes. */
export class UnexpectedPool {
  private readonly records: Unexpected[] = [];
  private readonly buffers: Uint8Array[][] = [];
  /** How many buffers a size class keeps for reuse; the rest go to the garbage collector. */
  private static readonly KEEP = 64;
  created = 0;

  acquire(): Unexpected {
    const r = this.records.pop();
    if (r !== undefined) return r;
    this.created++;
    return new Unexpected();
  }

  release(u: Unexpected): void {
    if (u.data.length > 0) this.releaseBytes(u.data);
    u.data = EMPTY;
    u.next = null;
    u.prev = null;
    this.records.push(u);
  }

  /** A buffer of at least `len` bytes (its length is the size class). */
  bytes(len: number): Uint8Array {
    if (len === 0) return EMPTY;
    const cls = sizeClass(len);
    const list = this.buffers[cls];
    const b = list?.pop();
    if (b !== undefined) return b;
    this.created++;
    return new Uint8Array(classBytes(cls));
  }

  private releaseBytes(b: Uint8Array): void {
    const cls = sizeClass(b.length);
    if (classBytes(cls) !== b.length) return;
    const list = (this.buffers[cls] ??= []);
    if (list.length < UnexpectedPool.KEEP) list.push(b);
  }
}

/** log2 of the smallest power of two >= len, at least 6 (64 bytes). */
function sizeClass(len: number): number {
  return len <= 64 ? 6 : 32 - Math.clz32(len - 1);
}

function classBytes(cls: number): number {
  return cls < 31 ? 1 << cls : 2 ** cls;
}
