// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { BusinessCard } from './business-card.js';
import type { MemoryCapabilities, NodeMemory, RmaService } from './memory.js';
import type { PvarTable } from './pvars.js';

/**
 * The contract between mpid and a channel device (tsmpi's btl.h), version 2.
 *
 * Selection: every device folder registers one DeviceDescriptor (src/boot/devices.ts lists
 * them). At Init the bootstrap opens each, exchanges the business cards, and gives every peer
 * the highest-priority device whose reachable() says yes, as Open MPI ranks its BTLs by
 * exclusivity; TSMPI_DEVICE forces one device for every other rank. mpid receives the devices
 * and a device per peer, and never asks again on the message path. mpid imports no device and
 * a device imports no other device: what they share (the rank's doorbell) is handed in.
 *
 * Envelope: a packet is an opaque header of HEADER_WORDS words, a payload and a SendHint. The
 * device copies the header into its own framing and hands it back unchanged at the receiver;
 * it never reads a word of it (Open MPI's BTLs see a tag and bytes, MPICH ch4's am_isend an AM
 * header it never parses). What the device must know to choose its path — how long the payload
 * is, whether it may be buffered — comes as arguments, so mpid may change its header freely.
 * The device's own messages (ch_sci's block announcements) travel under framing bits of its own.
 *
 * Progress: mpid calls `poll()` of every device that carries a peer; a poll hands arriving
 * packets to the PacketSink it was given at init and returns how many it handled. No poll
 * blocks. A rank that has nothing to do sleeps on its doorbell (RankDoorbell): peers that share
 * memory ring it directly, other devices wake it their own way (announceSleep).
 *
 * Ownership: a packet's header words and payload bytes belong to the device and are valid
 * only during `onPacket`; mpid copies what it keeps. Buffers passed to sendPacket are read
 * before it returns. A rendezvous source buffer stays the caller's until the receiver says the
 * transfer is done (mpid's FIN).
 *
 * Non-contiguous data (direct packing, 003b §1): wherever a device takes a message's bytes it
 * may instead get a PackedData, the user's memory laid out by a datatype seen as its packed
 * stream. The device packs straight into its own buffers (slot, eager ring, bounce chunk) and
 * unpacks straight out of them, or gives the kernel iovec lists, so no whole packed copy of a
 * message is ever made.
 *
 * Memory and RMA (memory.ts): a descriptor declares what the device can do with the memory of
 * the ranks it carries (capability flags after Open MPI's btl FLAGS_PUT/GET/ATOMIC_OPS), which
 * the window layer (src/osc) chooses its access method per target by; an opened device offers
 * the service behind them (Device.rma), and a device whose memory is one node's offers that
 * node's shared segments (DeviceDescriptor.nodeMemory).
 */

/**
 * Words of the opaque header mpid hands with every packet. Fixed, so a device can size its
 * framing once: ch_shmem's 128-byte slot holds its two words, these six and 96 payload bytes
 * (a message of up to 32 bytes fills one cache line); ch_sci's holds its one word, these six, a
 * spare word, 88 payload bytes, the CRC and the ID word. Devices keep payloads 8-byte aligned
 * in shared memory: V8 copies between a SharedArrayBuffer and a buffer of another alignment
 * byte by byte.
 */
export const HEADER_WORDS = 6;
export const HEADER_BYTES = HEADER_WORDS * 4;

/**
 * What a device may do with a packet's payload; mpid's choice, so that no device has to learn
 * it from the header.
 *
 * HINT_INLINE      a control packet: the header and at most CONTROL_PAYLOAD_MAX bytes (a grant)
 *                  travel together on the device's ordered control path. Never NO_EAGER_ROOM.
 * HINT_MAY_BUFFER  message data sent eagerly: inline when small enough for the device, else it
 *                  may hold a copy in its own buffers until the receiver takes it; NO_EAGER_ROOM
 *                  when those are full (mpid then sends the message by rendezvous).
 * HINT_NO_BUFFER   a rendezvous request: the message's data stay in the sender's memory and
 *                  must not be buffered; the payload is the device's own source descriptor
 *                  (describeSource), carried inline like a control packet. Never NO_EAGER_ROOM.
 */
export const HINT_INLINE = 0;
export const HINT_MAY_BUFFER = 1;
export const HINT_NO_BUFFER = 2;
export type SendHint = typeof HINT_INLINE | typeof HINT_MAY_BUFFER | typeof HINT_NO_BUFFER;

/** Most payload bytes of a HINT_INLINE packet, and so of a grant (attachGrant). */
export const CONTROL_PAYLOAD_MAX = 16;

/** Result of a send attempt: sent, or no room now (retry after progress; order is the caller's). */
export const SENT = 0;
export const NO_ROOM = 1;
/** Eager data does not fit the peer's eager buffers now: send the message by rendezvous instead. */
export const NO_EAGER_ROOM = 2;
/**
 * Sent, but the device still reads the payload (a network library holds the user's buffer
 * until its send completes, instead of a copy): it calls PacketSink.onSendDone(holdId) when the
 * buffer is free again. Only when sendPacket was given a holdId.
 */
export const SENT_HOLDING = 3;
export type SendResult = typeof SENT | typeof NO_ROOM | typeof NO_EAGER_ROOM | typeof SENT_HOLDING;

/** attachGrant's answer when the device cannot grant now (its buffers serve other transfers). */
export const NO_GRANT = -1;

export interface DeviceLimits {
  /** Largest payload mpid sends with HINT_MAY_BUFFER; larger messages use rendezvous. */
  readonly eagerMax: number;
  /** Words of rendezvous descriptor the device writes (describeSource; at most RNDV_DESC_WORDS). */
  readonly rndvDescWords: number;
  /** Largest payload the device sends inside its control ring (its short protocol), if it has one; for tracing. */
  readonly shortMax?: number;
  /**
   * Smallest payload the device may keep reading after sendPacket returns (SENT_HOLDING, given a
   * holdId); a device that always copies before it returns has none. Smaller standard-mode sends
   * complete inside the call and take no request of their own (Engine.isendStandard).
   */
  readonly holdMin?: number;
}

export const RNDV_DESC_WORDS = 8;

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

/** Where a device delivers packets (implemented by mpid's protocol engine). */
export interface PacketSink {
  /**
   * A packet arrived from world rank `peer`: the opaque header at `hdr[at .. at+HEADER_WORDS)`
   * exactly as the sender handed it, the payload at `payload[off .. off+len)` (`len` as the
   * sender gave it).
   */
  onPacket(peer: number, hdr: Int32Array, at: number, payload: Uint8Array, off: number, len: number): void;
  /** A pipelined rendezvous receive finished moving all its bytes (push path). */
  onPushComplete(rreqId: number): void;
  /** The payload of a send that returned SENT_HOLDING (its holdId) is no longer read. */
  onSendDone(holdId: number): void;
}

export interface Device {
  readonly name: string;
  readonly limits: DeviceLimits;
  /** Delivers every packet inside sendPacket, so progress never needs to poll it (self). */
  readonly deliversOnSend?: boolean;
  /**
   * A send it completed may still need this rank's progress to reach the peer (data queued in
   * a network library's transport, a protocol's last steps): then MPI_Finalize must keep
   * progressing until every rank has arrived, since the process manager's fence does not.
   */
  readonly sendsNeedProgress?: boolean;
  init(sink: PacketSink): void;

  /**
   * Sends one packet: `hdr[0 .. HEADER_WORDS)` unread, with `payload[off .. off+len)`, or packed
   * bytes [0, len) of `packed` when it is given (then `payload` is unused). NO_ROOM when the
   * peer's ring is full, NO_EAGER_ROOM (HINT_MAY_BUFFER only) when its eager buffers are:
   * nothing was sent either way. The payload is read before the call returns, unless `holdId`
   * is given (>= 0: the buffer is the user's and stays untouched until the send completes): then
   * the device may keep reading it and answer SENT_HOLDING.
   */
  sendPacket(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
             packed: PackedData | null, hint: SendHint, holdId?: number): SendResult;

  /** Handles arrivals on every peer of this device; never blocks. Returns packets handled. */
  poll(): number;

  /**
   * Writes the descriptor that lets `peer` reach the bytes of a rendezvous send (ch_shmem: pid
   * and address for a single copy, or of an iovec table for non-contiguous data) into
   * desc[0 .. rndvDescWords); mpid sends it as the payload of its request with HINT_NO_BUFFER.
   * Returns what must stay alive until the send completes (the iovec table), or null.
   */
  describeSource(peer: number, source: Uint8Array, packed: PackedData | null, desc: Int32Array): object | null;

  /**
   * Single copy, when the device can: copies the sender's `len` bytes named by `desc` into
   * `dest` (or into the user memory of `packed`). Returns false when it cannot (then mpid
   * clears the sender to push: expectPush, attachGrant, and its clear-to-send).
   */
  pull(peer: number, desc: Int32Array, dest: Uint8Array, packed: PackedData | null, len: number): boolean;

  /**
   * Push path, receiver side: `total` bytes come from `peer` for rreqId; the first `fits` go to
   * `dest` (or into the user memory of `packed`). Called before attachGrant for that receive.
   */
  expectPush(peer: number, rreqId: number, dest: Uint8Array, packed: PackedData | null, fits: number, total: number): void;

  /**
   * Rendezvous hook, receiver side: mpid is about to clear `peer` to push receive `rreqId`.
   * The device may write up to CONTROL_PAYLOAD_MAX bytes of its own into `grant` (ch_sci: where
   * in its pool the data may go, and how much) and returns how many; they reach the sender's
   * startPush unread by mpid. NO_GRANT when it cannot grant yet: mpid tries again after
   * progress, keeping its order to that peer. A device without grants leaves it out.
   */
  attachGrant?(peer: number, rreqId: number, grant: Uint8Array): number;

  /**
   * Push path, sender side: the receiver cleared us to stream `source` (or `packed`) to its
   * receive `rreqId`, with the device's grant at `grant[off .. off+len)` (valid only during
   * this call); the transfer progresses inside poll() and ends with the receiver's
   * onPushComplete, after which mpid tells the sender.
   */
  startPush(peer: number, source: Uint8Array, packed: PackedData | null, rreqId: number,
            grant: Uint8Array, off: number, len: number): void;

  /**
   * The rank is about to sleep (true: the first of its waiters announced sleep on the rank's
   * doorbell, and will poll once more before sleeping) or woke up (false: the last retracted).
   * A device whose peers cannot ring the doorbell directly asks them here to wake the rank some
   * other way (ch_sci: a flag in each peer's segment, answered with a remote interrupt). The
   * call must make the request visible to peers before it returns.
   */
  announceSleep?(asleep: boolean): void;

  /**
   * The RMA service behind the descriptor's memory flags that need an opened device
   * (MEM_EXPORTED: memory other nodes map, behind MPI.Alloc_mem and windows; the device
   * operations of a network device); absent when the device has none (memory.ts).
   */
  readonly rma?: RmaService;

  /** Processes of other jobs (dynamic processes), if this device can reach them (ch_ucx). */
  readonly remote?: RemotePeers;

  /** Finalize, step 1 (before the last fence): stop using every peer's resources. */
  disconnect(): void;
  /** Finalize, step 2 (after the last fence, no peer uses ours any more): release our own. */
  close(): void;
}

/**
 * Processes of other jobs (MPI's dynamic processes: Spawn, Accept/Connect, Join), for a device
 * that can reach a process it did not meet at Init (ch_ucx: an endpoint from a worker address).
 * Such a process takes a peer number above the world's ranks (World.addRemotePeers); the two
 * sides number each other independently, so each tells the other the number it is known by
 * there, and the device frames its packets to that peer with it.
 */
export interface RemotePeers {
  /** What another job's process needs to reach us (no spaces, ',' or '='). */
  readonly address: string;
  /** Reaches the process at `address` as `peer` from now on; that process knows us as `usThere`. */
  connect(peer: number, address: string, usThere: number): void;
  /**
   * Stops using `peer` (Disconnect): its pending sends are flushed and its endpoint closed, and
   * its loss is no longer an error.
   */
  release(peer: number): void;
}

// ------------------------------------------------------------------ registration and bootstrap

/**
 * The rank's doorbell, as devices see it: the cell a blocked rank sleeps on. Handed to every
 * device at open, so no device reaches for another's (ch_sci once borrowed ch_shmem's).
 */
export interface RankDoorbell {
  /** The futex cell, for native threads that ring it (ch_sci's interrupt relay, DMA completion). */
  readonly cells: Int32Array;
  readonly index: number;
  /** How many waiters of this process announced sleep. */
  sleepers(): number;
  /** Rings our own bell: ends a pending sleep of this process. */
  poke(): void;
}

/** A peer's doorbell, mapped (peers that share memory with us). */
export interface PeerBell {
  /** Wakes the peer if it sleeps; returns whether it had to (a system call). */
  ring(): boolean;
}

/** What a device learns of the job when it is opened (step 1 of bootstrap, before the cards are exchanged). */
export interface DeviceWorld {
  readonly rank: number;
  readonly size: number;
  /** Names the job's shared resources, so the launcher can sweep them after a crash. */
  readonly jobId: string;
  readonly env: NodeJS.ProcessEnv;
  /** The device TSMPI_DEVICE forces for every other rank (its name), or null. */
  readonly forced: string | null;
  readonly doorbell: RankDoorbell;
}

/** What a device gets after the card exchange (step 2 of bootstrap). */
export interface DeviceLinks {
  /** The cards of the ranks this device carries, by bootstrap's choice (possibly none, or our own). */
  readonly peers: readonly BusinessCard[];
  /** Every rank's card, by world rank. */
  readonly cards: readonly BusinessCard[];
  /** The doorbell of a rank that shares memory with us; null for the others. */
  bellOf(worldRank: number): PeerBell | null;
  /**
   * Fruitless polls a wait of this rank spends before it sleeps (mpid's Progress budget: long
   * when the rank has a core of its own, short when ranks outnumber cores), for a device that
   * waits by itself (ch_ucx's one-sided completions).
   */
  readonly spinBudget: number;
  /**
   * Whether packets to ranks that share memory with us may be published with plain stores:
   * they fence before they sleep (publish-fence.ts). Otherwise the store that publishes must be
   * sequentially consistent (Atomics.store).
   */
  readonly plainPublish: boolean;
  /**
   * A fatal error of the device (a peer it can no longer reach): hands it to the upper layer's
   * handler (mpir: MPI.COMM_WORLD's error handler, which ends the job or raises MPI.Exception),
   * else throws it. Never returns.
   */
  fail(error: Error): never;
}

/** A device opened on this rank, between the two steps of bootstrap. */
export interface OpenDevice {
  /** Published in our business card under the device's name (a segment name, an SCI node id); no space, ',' or '='. */
  readonly card: string;
  /** Step 2: connect to the peers bootstrap gave this device; the device mpid will use. */
  connect(links: DeviceLinks): Device;
  /** Every peer has connected (after bootstrap's last fence): names peers needed to find our resources may go. */
  connected(): void;
  /** Bootstrap failed: undo step 1 (and step 2, if it ran). */
  abandon(): void;
}

/** One device, as its folder registers it. */
export interface DeviceDescriptor {
  /** The device's name (its key in business cards and traces). */
  readonly name: string;
  /** Of the devices that reach a peer, the one with the highest priority carries it. */
  readonly priority: number;
  /** The TSMPI_DEVICE value that forces this device, if any ('sci'). */
  readonly forcedBy?: string;
  /**
   * Whether ranks this device carries share memory with us (same node): upper layers may then
   * map node segments with them and ring their doorbells.
   */
  readonly sharesMemory: boolean;
  /** What a user does when ranks are unreachable because this device is not running. */
  readonly unreachableHint?: string;
  /**
   * Opened only when needed (ch_ucx: loading the network stack costs every rank milliseconds):
   * when the cards of the devices opened first leave some pair of ranks unreachable, or when
   * TSMPI_DEVICE forces it. Its card field then travels in a second exchange.
   */
  readonly onDemand?: boolean;
  /**
   * The device reaches processes of other jobs (its Device offers `remote`): dynamic processes
   * open it when they first need it, if Init did not.
   */
  readonly reachesOtherJobs?: boolean;
  /**
   * What the device can do with the memory of the ranks it carries (memory.ts: load/store,
   * exported segments, put/get/atomics and their widths and ops, flush): the window layer
   * chooses its access method per target from these flags. Absent: none (messages only).
   */
  readonly memory?: MemoryCapabilities;
  /**
   * The node's shared memory, when this device's memory is load/store memory of one node: a
   * service of the node, so it is there whether or not the device carries messages
   * (TSMPI_DEVICE=sci still puts shared windows in node memory).
   */
  readonly nodeMemory?: NodeMemory;
  /**
   * The device's own counters as MPI.T performance variables, read from the Device that open()
   * returned on this rank (pvars.ts); what mpid sends through the device is counted by mpid.
   */
  readonly pvars?: PvarTable<Device>;
  /**
   * Whether this device can carry messages between the two ranks, from their published cards
   * alone (`peerCard` may be `myCard`): both ranks of a pair compute the same answer.
   */
  reachable(myCard: BusinessCard, peerCard: BusinessCard): boolean;
  /** Step 1: makes this rank's resources; null when the device does not run on this rank. */
  open(world: DeviceWorld): OpenDevice | null;
}

/**
 * The doorbell a rank sleeps on, as mpid's progress uses it. Protocol: announce(); re-check all
 * queues; sleep(); retract(). A peer that publishes a packet rings the bell only when the owner
 * announced sleep. Several waiters of one process (a blocking call, the async waiter thread)
 * may announce at once.
 */
export interface WakeHandle {
  announce(): number;
  sleep(seen: number, timeoutMs: number): void;
  sleepAsync(seen: number, timeoutMs: number): Promise<unknown>;
  retract(): void;
  /** Rings our own bell: ends a pending sleep of this process (e.g. nothing is awaited any more). */
  poke(): void;
}
