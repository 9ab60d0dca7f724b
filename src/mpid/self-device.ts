import {
  SENT, type Device, type DeviceDescriptor, type DeviceLimits, type OpenDevice, type PackedData, type PacketSink,
  type RankDoorbell, type SendHint, type SendResult,
} from './device.js';
import { ALL_ATOMICS, ALL_WIDTHS, MEM_CPU_ATOMICS, MEM_LOAD_STORE, RMA_GET, RMA_PUT } from './memory.js';

/**
 * The device for messages a rank sends to itself: a packet is handed to the sink at once,
 * the payload read straight from the sender's buffer. Any size goes eagerly (a copy is made
 * only if the receive is not yet posted), so there is no rendezvous and no sleeping.
 */
export class SelfDevice implements Device {
  readonly name = 'self';
  readonly limits: DeviceLimits = { eagerMax: Number.MAX_SAFE_INTEGER, rndvDescWords: 0 };
  readonly deliversOnSend = true;
  private sink: PacketSink | null = null;
  /** Non-contiguous data to self is packed here once; the receive unpacks from it (or keeps a copy). */
  private scratch = new Uint8Array(0);

  /** `ownBell`: the rank's doorbell, rung when a waiter of ours sleeps (an awaited receive from self). */
  constructor(private readonly ownBell: RankDoorbell) {}

  init(sink: PacketSink): void {
    this.sink = sink;
  }

  sendPacket(peer: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
             packed: PackedData | null, _hint: SendHint): SendResult {
    if (packed !== null) {
      if (this.scratch.length < len) this.scratch = new Uint8Array(len);
      packed.pack(0, len, this.scratch, 0);
      payload = this.scratch;
      off = 0;
    }
    this.sink!.onPacket(peer, hdr, 0, payload ?? EMPTY, off, len);
    if (this.ownBell.sleepers() > 0) this.ownBell.poke();
    return SENT;
  }

  poll(): number {
    return 0;
  }

  describeSource(): object | null {
    throw new Error('self device: rendezvous is never used for messages to self');
  }

  pull(): boolean {
    return false;
  }

  startPush(): void {
    throw new Error('self device: rendezvous is never used for messages to self');
  }

  expectPush(): void {
    throw new Error('self device: rendezvous is never used for messages to self');
  }

  disconnect(): void {
    this.sink = null;
  }

  close(): void {}
}

const EMPTY = new Uint8Array(0);

/**
 * Registration: every rank reaches itself, and nothing else does better. mpid's own device
 * (the loopback every rank needs), registered like the others so that bootstrap treats all
 * devices alike; TSMPI_DEVICE does not take it away. Its memory is our own: loads, stores and
 * CPU atomics of every width and op.
 */
export const selfDescriptor: DeviceDescriptor = {
  name: 'self',
  priority: 100,
  sharesMemory: true,
  memory: { flags: MEM_LOAD_STORE | MEM_CPU_ATOMICS | RMA_PUT | RMA_GET, atomicWidths: ALL_WIDTHS, atomicOps: ALL_ATOMICS },
  reachable: (myCard, peerCard) => myCard.rank === peerCard.rank,
  open(world): OpenDevice {
    return {
      card: '1',
      connect: () => new SelfDevice(world.doorbell),
      connected: () => undefined,
      abandon: () => undefined,
    };
  },
};
