import type { Doorbell } from '../common/doorbell.js';
import type { BusinessCard } from './business-card.js';
import type { Device, PeerBell } from './device.js';
import { Engine } from './engine.js';
import { Progress } from './progress.js';
import { RankWake } from './rank-wake.js';
import type { ExposedMemory, MappedMemory, MemoryCapabilities, NodeMemory, RmaService } from './memory.js';
import type { ProcessManager } from './process-manager.js';

/** What bootstrap (src/boot) assembled: the job, the cards, the devices and who carries whom. */
export interface WorldParts {
  readonly pm: ProcessManager;
  readonly jobId: string;
  /** The cards of the world's ranks; the World appends those of other jobs' processes to this array. */
  readonly cards: BusinessCard[];
  /** Every device opened on this rank (also those that carry no peer, e.g. a memory provider). */
  readonly devices: readonly Device[];
  /** The device of each world rank, ourselves included. */
  readonly deviceOf: readonly Device[];
  /** Whether each world rank shares memory with us (its device's descriptor says so; ourselves: true). */
  readonly sharesMemory: readonly boolean[];
  /** The doorbells of the ranks that share memory with us; null for the others and ourselves. */
  readonly bells: readonly (PeerBell | null)[];
  /** The memory capabilities of the device that reaches each world rank (its descriptor's). */
  readonly memoryOf: readonly MemoryCapabilities[];
  /** The node's shared memory (a device's nodeMemory service, with its descriptor's capabilities), or null when no registered device offers it. */
  readonly nodeMemory: { readonly service: NodeMemory; readonly caps: MemoryCapabilities } | null;
  /** The first opened device's RMA service that exports memory, with its descriptor's capabilities, or null. */
  readonly rma: { readonly service: RmaService; readonly caps: MemoryCapabilities } | null;
  /** No device was forced (TSMPI_DEVICE=auto): ranks of one node talk through shared memory. */
  readonly nodesUseSharedMemory: boolean;
  /** The rank's own doorbell. */
  readonly doorbell: Doorbell;
  readonly spinBudget: number;
  readonly sleepTimeoutMs: number;
  /** Ranks that share memory publish with plain stores and fence before they sleep (publish-fence.ts). */
  readonly plainPublish: boolean;
  /**
   * The device that reaches processes of other jobs (dynamic processes), with the capabilities
   * of its memory: the one running already, or opened now (a single-host job opens its network
   * device on its first Spawn or Connect); null when no registered device can (no UCX here).
   */
  readonly openRemote: () => { readonly device: Device; readonly caps: MemoryCapabilities } | null;
}

/** A process of another job as the handshake of Accept/Connect describes it. */
export interface RemoteProcess {
  /** Its device address (RemotePeers.address). */
  readonly address: string;
  /** The peer number it gave us. */
  readonly usThere: number;
  /** Its node and job: it shares memory with the processes of its job on its node, never with us. */
  readonly nodeId: string;
  readonly jobId: string;
  readonly pid: number;
}

/**
 * The job as mpid sees it after bootstrap: who we are, every rank's business card, the devices
 * and the engine that drives them. mpid knows devices only through the contract (device.ts):
 * src/boot opens them, chooses one per peer and hands the result here.
 */
export class World {
  /**
   * The upper layer's handler of a device's fatal error (DeviceLinks.fail): may end the job or
   * throw its own error; if it returns, the device's error is thrown.
   */
  onDeviceFailure: ((error: Error) => void) | null = null;
  readonly pm: ProcessManager;
  readonly jobId: string;
  /** The card of each peer: the world's ranks, then processes of other jobs (addRemotePeers). */
  readonly cards: BusinessCard[];
  readonly engine: Engine;
  readonly progress: Progress;
  /** Ranks of one node talk through shared memory (false under TSMPI_DEVICE=sci); the same on every rank. */
  readonly nodesUseSharedMemory: boolean;
  /** Words others wait for in node memory may be published with plain stores (publish-fence.ts). */
  readonly plainPublish: boolean;
  private readonly devices: Device[];
  private readonly deviceOf: Device[];
  private readonly shares: boolean[];
  private readonly bells: (PeerBell | null)[];
  private readonly memoryOf: MemoryCapabilities[];
  private readonly openRemote: WorldParts['openRemote'];
  /** The memory capabilities of the device that reaches other jobs, once remoteDevice() found it. */
  private remoteCaps: MemoryCapabilities | null = null;
  private readonly wake: RankWake;
  /** The node's shared segments (mpir's shm_counter barrier, one-sided windows on one node), or null. */
  readonly nodeMemory: NodeMemory | null;
  /** What ranks of the node can do with those segments (loads, stores, CPU atomics); null without them. */
  readonly nodeMemoryCaps: MemoryCapabilities | null;
  /** The device service behind exposeMemory and mapMemory (ch_sci's exported segments), if one runs. */
  private readonly rma: WorldParts['rma'];
  /** The rank's own doorbell (the state-request handler rings it, mpir/runtime.ts). */
  readonly doorbell: Doorbell;

  constructor(parts: WorldParts) {
    this.pm = parts.pm;
    this.jobId = parts.jobId;
    this.cards = parts.cards;
    this.nodesUseSharedMemory = parts.nodesUseSharedMemory;
    this.plainPublish = parts.plainPublish;
    this.devices = [...parts.devices];
    this.deviceOf = [...parts.deviceOf];
    this.shares = [...parts.sharesMemory];
    this.bells = [...parts.bells];
    this.openRemote = parts.openRemote;
    this.doorbell = parts.doorbell;
    this.memoryOf = [...parts.memoryOf];
    this.nodeMemory = parts.nodeMemory?.service ?? null;
    this.nodeMemoryCaps = parts.nodeMemory?.caps ?? null;
    this.rma = parts.rma;
    // Only devices that carry a peer are initialized and polled.
    const carrying = parts.devices.filter((d) => parts.deviceOf.includes(d));
    this.engine = new Engine(parts.pm.rank, carrying, this.deviceOf);
    this.wake = new RankWake(parts.doorbell, carrying);
    this.progress = new Progress(this.engine, this.wake, parts.spinBudget, parts.sleepTimeoutMs);
  }

  /**
   * The device that reaches processes of other jobs, opened now if it was not running (every
   * member of a Spawn or Connect calls this before the handshake); null when none can.
   */
  remoteDevice(): Device | null {
    const opened = this.openRemote();
    if (opened === null) return null;
    if (!this.devices.includes(opened.device)) this.devices.push(opened.device);
    this.remoteCaps = opened.caps;
    return opened.device;
  }

  /**
   * Processes of another job, reached through `device` (remoteDevice()): their peer numbers,
   * consecutive from the first returned (the numbers the handshake promised them: `first`).
   */
  addRemotePeers(device: Device, processes: readonly RemoteProcess[], first: number): number {
    if (first !== this.engine.peerCount) throw new Error(`addRemotePeers: peer numbers from ${first} were promised, but ${this.engine.peerCount} is next`);
    for (const p of processes) {
      const peer = this.engine.addPeer(device);
      this.wake.add(device);
      // The node id of a process of another job names its job too: the processes of one node and
      // one job share memory, so every process, of either job, groups them alike (the node-aware
      // collectives must agree on the groups), and none is on our node.
      this.cards.push({ rank: peer, nodeId: `${p.nodeId} (another job, ${p.jobId})`, kernelId: '', pid: p.pid, bell: '', fenceCores: null, devices: new Map() });
      this.shares.push(false);
      this.bells.push(null);
      this.memoryOf.push(this.remoteCaps!);
      device.remote!.connect(peer, p.address, p.usThere);
    }
    return first;
  }

  /** Peer numbers of the world's ranks end here; processes of other jobs come after. */
  get nextPeer(): number {
    return this.engine.peerCount;
  }

  /** Stops using `peer`, a process of another job (Disconnect). */
  releasePeer(peer: number): void {
    if (peer < this.size) throw new Error(`releasePeer: ${peer} is a rank of this job`);
    this.deviceOf[peer]!.remote!.release(peer);
  }

  get rank(): number { return this.pm.rank; }
  get size(): number { return this.pm.size; }
  get nodeId(): string { return this.cards[this.pm.rank]!.nodeId; }

  /** The name of the device that carries our messages to `worldRank` (reports, benchmarks). */
  deviceNameOf(worldRank: number): string {
    return this.deviceOf[worldRank]!.name;
  }

  /** The device opened on this rank under `name` (counters, tests), or null. */
  device(name: string): Device | null {
    return this.devices.find((d) => d.name === name) ?? null;
  }

  /** Whether this rank can map memory with `worldRank` (itself, or a peer of a device that shares memory: ch_shmem). */
  sharesMemoryWith(worldRank: number): boolean {
    return this.shares[worldRank]!;
  }

  /**
   * Whether `worldRank` runs on our node (the same machine and emulated SCI node): it can map
   * the segments we make, whichever device carries its messages (TSMPI_DEVICE=sci sends even
   * these through ch_sci). What Split_type(COMM_TYPE_SHARED) groups by.
   */
  onSameNode(worldRank: number): boolean {
    return this.cards[worldRank]!.nodeId === this.nodeId;
  }

  /** What the device that reaches `worldRank` can do with its memory (memory.ts; the window layer chooses by it). */
  memoryCapsOf(worldRank: number): MemoryCapabilities {
    return this.memoryOf[worldRank]!;
  }

  /** The capabilities of the device behind exposeMemory, or null when none runs. */
  get exportedMemoryCaps(): MemoryCapabilities | null {
    return this.rma !== null ? this.rma.caps : null;
  }

  /**
   * Memory that every rank of the job can map, also across SCI nodes (an exported SISCI
   * segment); null when no device here offers such memory (then every rank is on our node).
   */
  exposeMemory(bytes: number): ExposedMemory | null {
    return this.rma !== null ? this.rma.service.expose!(bytes) : null;
  }

  /** Maps memory `worldRank` exposed under key `id` (see exposeMemory). */
  mapMemory(worldRank: number, id: number, bytes: number): MappedMemory {
    if (this.rma === null) throw new Error(`mapMemory: rank ${this.rank} runs no device with memory other nodes can map`);
    return this.rma.service.map!(this.cards[worldRank]!, id, bytes);
  }

  /**
   * The device operations that reach `worldRank`'s registered memory (a network device's put,
   * get, atomics and flush: memory.ts), or null when the device that reaches it has none.
   * Ranks of our node count too when a network device that runs here reaches them as well
   * (shared memory carries their messages, the network device their one-sided operations).
   * hasDeviceRma: whether such a device runs here at all.
   */
  hasDeviceRma(): boolean {
    return this.devices.some((d) => d.rma?.register !== undefined);
  }

  deviceRmaOf(worldRank: number): RmaService | null {
    const rma = this.deviceOf[worldRank]!.rma;
    if (rma?.register !== undefined) return rma;
    for (const d of this.devices) if (d.rma?.register !== undefined && d.rma.reaches?.(worldRank) === true) return d.rma;
    return null;
  }

  /** Whether a device here needs progress after its sends complete (Device.sendsNeedProgress). */
  sendsNeedProgress(): boolean {
    return this.devices.some((d) => d.sendsNeedProgress === true);
  }

  /** Wakes `worldRank`, a rank sharing memory with us, if it sleeps on its doorbell. */
  wakeLocal(worldRank: number): void {
    const bell = this.bells[worldRank];
    if (bell) bell.ring();
  }

  /**
   * Collective: control packets still parked for a full ring are sent first (a peer may wait
   * for them), then every device lets go of its peers, the last fence makes sure no peer still
   * needs us, and the devices release their own resources.
   */
  finalize(): void {
    while (this.engine.parkedCount > 0) this.progress.step();
    for (const d of this.devices) d.disconnect();
    this.pm.fence();
    for (const d of this.devices) d.close();
    this.pm.finalize();
  }
}
