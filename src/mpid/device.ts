/**
 * The contract between mpid and a channel device (tsmpi's btl.h).
 *
 * Selection: at Init every device is asked which world ranks it reaches; mpid binds each peer
 * to one device (self for our own rank, ch_shmem for ranks on our node, ch_sci across SCI
 * nodes) and never asks again on the message path.
 *
 * Progress: mpid calls `poll()` of every device in turn; a poll hands arriving packets to the
 * PacketSink it was given at init and returns how many it handled. No poll blocks.
 *
 * Ownership: a packet's header words and payload bytes belong to the device and are valid
 * only during `onPacket`; mpid copies what it keeps. Buffers passed to sendPacket are read
 * before it returns. A rendezvous source buffer stays the caller's until PKT_FIN arrives.
 *
 * Non-contiguous data (direct packing, 003b §1): wherever a device takes a message's bytes it
 * may instead get a PackedData, the user's memory laid out by a datatype seen as its packed
 * stream. The device packs straight into its own buffers (slot, eager ring, bounce chunk) and
 * unpacks straight out of them, or gives the kernel iovec lists, so no whole packed copy of a
 * message is ever made.
 */

/**
 * A non-contiguous message: user memory laid out by a datatype, seen as its packed byte
 * stream, which can be entered at any byte offset (a fragment starts anywhere in the type).
 */
export interface PackedData {
  /** Bytes of the packed stream. */
  readonly length: number;
  /** Mean contiguous piece of user memory in bytes (small pieces are gathered locally, not listed in iovecs). */
  readonly pieceBytes: number;
  /** Copies packed bytes [from, from + len) out of user memory into dest at destOff. */
  pack(from: number, len: number, dest: Uint8Array, destOff: number): void;
  /** Copies src[srcOff, srcOff + len) into user memory as packed bytes [from, from + len). */
  unpack(src: Uint8Array, srcOff: number, from: number, len: number): void;
  /** The user-memory pieces of packed bytes [0, len) as (address, length) pairs; allocated per call. */
  iovecs(len: number): Float64Array;
}

/** Result of a send attempt: sent, or no room now (retry after progress; order is the caller's). */
export const SENT = 0;
export const NO_ROOM = 1;
/** Eager data does not fit the peer's eager buffers now: send the message by rendezvous instead. */
export const NO_EAGER_ROOM = 2;
export type SendResult = typeof SENT | typeof NO_ROOM | typeof NO_EAGER_ROOM;

export interface DeviceLimits {
  /** Largest payload an EAGER packet may carry; larger messages use rendezvous. */
  readonly eagerMax: number;
  /** Words of rendezvous descriptor the device writes after an RTS header (at most RNDV_DESC_WORDS). */
  readonly rndvDescWords: number;
  /** Largest payload sent inside the control ring (the short protocol), if the device has one; for tracing. */
  readonly shortMax?: number;
}

export const RNDV_DESC_WORDS = 8;

/** Where a device delivers packets (implemented by mpid's protocol engine). */
export interface PacketSink {
  /**
   * A packet arrived from world rank `peer`: header at `hdr[at .. at+HDR_WORDS)`, payload (EAGER
   * data, or the RTS descriptor as words) at `payload[off .. off+len)`.
   */
  onPacket(peer: number, hdr: Int32Array, at: number, payload: Uint8Array, off: number, len: number): void;
  /** A pipelined rendezvous receive finished moving all its bytes (push path). */
  onPushComplete(rreqId: number): void;
}

export interface Device {
  readonly name: string;
  readonly limits: DeviceLimits;
  /** Delivers every packet inside sendPacket, so progress never needs to poll it (self). */
  readonly deliversOnSend?: boolean;
  init(sink: PacketSink): void;
  reachable(worldRank: number): boolean;

  /**
   * Sends one packet; EAGER packets carry `payload[off .. off+len)`, or packed bytes [0, len) of
   * `packed` when it is given (then `payload` is unused). NO_ROOM when the peer's ring or eager
   * space is full: nothing was sent.
   */
  sendPacket(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
             packed?: PackedData | null): SendResult;

  /** Handles arrivals on every peer of this device; never blocks. Returns packets handled. */
  poll(): number;

  /**
   * Writes the descriptor that lets `peer` reach the bytes of a rendezvous send (ch_shmem: pid
   * and address for a single copy, or of an iovec table for non-contiguous data) into
   * desc[0 .. rndvDescWords). Returns what must stay alive until the send completes (the
   * iovec table), or null.
   */
  describeSource(peer: number, source: Uint8Array, packed: PackedData | null, desc: Int32Array): object | null;

  /**
   * Single copy, when the device can: copies the sender's `len` bytes named by `desc` into
   * `dest` (or into the user memory of `packed`). Returns false when it cannot (then mpid uses
   * CTS and the push path).
   */
  pull(peer: number, desc: Int32Array, dest: Uint8Array, packed: PackedData | null, len: number): boolean;

  /**
   * Push path, sender side: after the receiver's CTS, stream `source` (or `packed`) to receive
   * `rreqId` of `peer` through the device's bounce buffers; progresses inside poll(). `onDone`
   * is not needed: the receiver sends PKT_FIN when everything arrived.
   */
  startPush(peer: number, source: Uint8Array, packed: PackedData | null, rreqId: number): void;

  /**
   * Push path, receiver side: `total` bytes come from `peer` for rreqId; the first `fits` go to
   * `dest` (or into the user memory of `packed`).
   */
  expectPush(peer: number, rreqId: number, dest: Uint8Array, packed: PackedData | null, fits: number, total: number): void;

  /** Lets a blocked rank sleep until a peer of this device has something for it. */
  readonly wake: WakeHandle | null;

  finalize(): void;
}

/**
 * The doorbell a rank sleeps on. Protocol: announce(); re-check all queues; sleep(); retract().
 * A peer that publishes a packet rings the bell only when the owner announced sleep. Several
 * waiters of one process (a blocking call, the async waiter thread) may announce at once.
 */
export interface WakeHandle {
  announce(): number;
  sleep(seen: number, timeoutMs: number): void;
  sleepAsync(seen: number, timeoutMs: number): Promise<unknown>;
  retract(): void;
  /** Rings our own bell: ends a pending sleep of this process (e.g. nothing is awaited any more). */
  poke(): void;
}
