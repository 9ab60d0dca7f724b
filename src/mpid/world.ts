import createDebug from 'debug';
import { BootstrapError } from '../common/errors.js';
import { jobIdFrom, segmentName } from '../common/segment-names.js';
import { PairLayout, RankSegment, ShmemDevice, readShmemConfig } from '../ch_shmem/index.js';
import { DoorbellWake } from '../ch_shmem/doorbell.js';
import { WORD_DOORBELL } from '../ch_shmem/rank-segment.js';
import { SciDevice, readSciConfig } from '../ch_sci/index.js';
import { DEVICE } from '../ch_sci/config.js';
import { Descriptor } from '../sisci/index.js';
import { SISCI_LIB } from '../sisci/config.js';
import type { Device } from './device.js';
import { Engine } from './engine.js';
import { Progress } from './progress.js';
import type { ExposedMemory, MappedMemory } from './remote-memory.js';
import { SelfDevice } from './self-device.js';
import { SCI_NODE, SLEEP_TIMEOUT_MS, SPIN_POLLS } from './config.js';
import { cardKey, decodeCard, encodeCard, type BusinessCard } from './business-card.js';
import { localNodeId } from './node-id.js';
import { connectProcessManager, type ProcessManager } from './process-manager.js';

const trace = createDebug('tsmpi:mpid');

/**
 * The job as the device layer sees it after bootstrap: who we are, every rank's business
 * card, and the segments of the peers on our node.
 *
 * Bootstrap: create our segment (and export our SCI segments) → put our card → fence → get
 * every card → attach the segments of same-node peers, connect to the SCI segments of the
 * others → fence → unlink our segment's name (peers hold mappings).
 *
 * Devices: ch_shmem for ranks with our node id, ch_sci for the others (ranks of other SCI
 * nodes); TSMPI_DEVICE=sci sends everything but our own messages through ch_sci.
 */
export class World {
  private constructor(
    readonly pm: ProcessManager,
    readonly jobId: string,
    readonly cards: readonly BusinessCard[],
    readonly ownSegment: RankSegment,
    /** Indexed by world rank; null for ranks on other nodes and for ourselves. */
    readonly peerSegments: readonly (RankSegment | null)[],
    readonly engine: Engine,
    readonly progress: Progress,
    readonly shmem: ShmemDevice,
    /** ch_sci, when this rank runs it (tsmpiexec --sci-nodes, or TSMPI_DEVICE=sci). */
    readonly sci: SciDevice | null,
    /** Ranks of one node talk through ch_shmem (false under TSMPI_DEVICE=sci); the same on every rank. */
    readonly nodesUseSharedMemory: boolean,
  ) {}

  get rank(): number { return this.pm.rank; }
  get size(): number { return this.pm.size; }
  get nodeId(): string { return this.cards[this.pm.rank]!.nodeId; }

  /** Whether this rank can map memory with `worldRank` (itself, or a ch_shmem peer). */
  sharesMemoryWith(worldRank: number): boolean {
    return worldRank === this.pm.rank || this.shmem.reachable(worldRank);
  }

  /**
   * Whether `worldRank` runs on our node (the same machine and emulated SCI node): it can map
   * the segments we make, whichever device carries its messages (TSMPI_DEVICE=sci sends even
   * these through ch_sci). What Split_type(COMM_TYPE_SHARED) groups by.
   */
  onSameNode(worldRank: number): boolean {
    return this.cards[worldRank]!.nodeId === this.nodeId;
  }

  /**
   * Memory that every rank of the job can map, also across SCI nodes (an exported SISCI
   * segment); null when this rank runs no ch_sci (then every rank is on our node).
   */
  exposeMemory(bytes: number): ExposedMemory | null {
    return this.sci !== null ? this.sci.exportMemory(bytes) : null;
  }

  /** Maps memory `worldRank` exposed as `id` (see exposeMemory). */
  mapMemory(worldRank: number, id: number, bytes: number): MappedMemory {
    if (this.sci === null) throw new Error(`mapMemory: rank ${this.rank} runs no ch_sci`);
    return this.sci.mapMemory(this.cards[worldRank]!.sciNode, id, bytes);
  }

  /** Wakes `worldRank`, a rank sharing memory with us, if it sleeps (see ch_shmem's doorbell). */
  wakeLocal(worldRank: number): void {
    if (worldRank !== this.pm.rank) this.shmem.wakePeer(worldRank);
  }

  static bootstrap(env: NodeJS.ProcessEnv = process.env): World {
    const pm = connectProcessManager(env);
    const jobId = jobIdFrom(env, pm.kvsname);
    const shmemConfig = readShmemConfig(env);
    const layout = new PairLayout(shmemConfig);
    const spinPolls = SPIN_POLLS.read(env);
    const sleepTimeout = SLEEP_TIMEOUT_MS.read(env);
    const own = RankSegment.create(segmentName(jobId, pm.rank, 'rank'), layout.segmentBytes(pm.size), pm.rank);
    const unlinkAtExit = () => own.unlink();
    process.once('exit', unlinkAtExit);
    let sci: SciDevice | null = null;
    try {
      const allSci = DEVICE.read(env) === 'sci';
      // ch_sci runs when asked for, when tsmpiexec --sci-nodes placed us on an emulated SCI node,
      // or when TSMPI_SISCI_LIB names Dolphin's library (a real SCI cluster).
      if (allSci || SCI_NODE.read(env) !== '' || SISCI_LIB.read(env) !== '') {
        // The SISCI emulation names its segments after the job, so tsmpiexec can sweep them.
        process.env.TSMPI_JOBID ??= jobId;
        sci = SciDevice.export(readSciConfig(env), Descriptor.open(), pm.rank, pm.size, new DoorbellWake(own.words),
          own.words, WORD_DOORBELL);
      }
      const mine: BusinessCard = {
        rank: pm.rank, nodeId: localNodeId(), pid: process.pid, shmSegment: own.name, sciNode: sci?.nodeId ?? 0,
      };
      pm.put(cardKey(pm.rank), encodeCard(mine));
      pm.fence();
      const cards: BusinessCard[] = [];
      for (let r = 0; r < pm.size; r++) {
        if (r === pm.rank) {
          cards.push(mine);
          continue;
        }
        const text = pm.get(cardKey(r));
        if (text === undefined) throw new BootstrapError(`rank ${r} published no business card (key ${cardKey(r)})`);
        cards.push(decodeCard(r, text));
      }
      const shared = (c: BusinessCard) => c.rank !== pm.rank && c.nodeId === mine.nodeId && !allSci;
      const peers = cards.map((c) => (shared(c) ? RankSegment.attach(c.shmSegment, c.rank) : null));
      const sciPeers = cards.filter((c) => c.rank !== pm.rank && !shared(c));
      for (const c of sciPeers) {
        if (sci === null || c.sciNode === 0) {
          throw new BootstrapError(`rank ${c.rank} runs on node ${c.nodeId}, which no device reaches from ${mine.nodeId}: ` +
            'ranks on different nodes need ch_sci on both (launch with tsmpiexec --sci-nodes K, or set TSMPI_SCI_NODE and ' +
            'TSMPI_SISCI_LIB on a cluster with SCI adapters)');
        }
      }
      if (sci !== null) sci.connect(sciPeers.map((c) => ({ rank: c.rank, nodeId: c.sciNode })));
      pm.fence();
      own.unlink();
      const localRanks = peers.filter((p) => p !== null).length + 1;
      // Ranks on this machine, whatever device they use: what decides whether a wait may spin.
      const machineRanks = cards.filter((c) => machineOf(c.nodeId) === machineOf(mine.nodeId)).length;
      trace('rank %d of %d on %s: %d local ranks, %d ch_sci peers', pm.rank, pm.size, mine.nodeId, localRanks, sciPeers.length);
      const shmem = new ShmemDevice(shmemConfig, pm.rank, pm.size, own, peers);
      const wake = sci !== null ? sci.wake : shmem.wake;
      const self = new SelfDevice(pm.rank, wake);
      const deviceOf: Device[] = cards.map((c) => {
        if (c.rank === pm.rank) return self;
        if (shmem.reachable(c.rank)) return shmem;
        return sci!;
      });
      const devices: Device[] = sci !== null ? [self, shmem, sci] : [self, shmem];
      const engine = new Engine(pm.rank, devices, deviceOf);
      const progress = new Progress(engine, wake, Progress.spinBudgetFor(machineRanks, spinPolls), sleepTimeout);
      return new World(pm, jobId, cards, own, peers, engine, progress, shmem, sci, !allSci);
    } catch (e) {
      own.unlink();
      if (sci !== null) sci.abandon();
      throw e;
    } finally {
      process.off('exit', unlinkAtExit);
    }
  }

  /**
   * Collective: control packets still parked for a full ring are sent first (a peer may wait
   * for them), then the last fence makes sure no peer still needs us, then PMI is closed.
   */
  finalize(): void {
    while (this.engine.parkedCount > 0) this.progress.step();
    if (this.sci !== null) this.sci.disconnect();
    this.pm.fence();
    // Every peer has disconnected from our SCI segments now.
    if (this.sci !== null) this.sci.removeExported();
    this.pm.finalize();
  }
}

/** The machine part of a node id (without the emulated SCI node). */
function machineOf(nodeId: string): string {
  const hash = nodeId.indexOf('#');
  return hash < 0 ? nodeId : nodeId.slice(0, hash);
}
