import createDebug from 'debug';
import { BootstrapError } from '../common/errors.js';
import { jobIdFrom, segmentName } from '../common/segment-names.js';
import { PairLayout, RankSegment, ShmemDevice, readShmemConfig } from '../ch_shmem/index.js';
import type { Device } from './device.js';
import { Engine } from './engine.js';
import { Progress } from './progress.js';
import { SelfDevice } from './self-device.js';
import { SLEEP_TIMEOUT_MS, SPIN_POLLS } from './config.js';
import { cardKey, decodeCard, encodeCard, type BusinessCard } from './business-card.js';
import { localNodeId } from './node-id.js';
import { connectProcessManager, type ProcessManager } from './process-manager.js';

const trace = createDebug('tsmpi:mpid');

/**
 * The job as the device layer sees it after bootstrap: who we are, every rank's business
 * card, and the segments of the peers on our node.
 *
 * Bootstrap: create our segment → put our card → fence → get every card → attach the
 * segments of same-node peers → fence → unlink our segment's name (peers hold mappings).
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
  ) {}

  get rank(): number { return this.pm.rank; }
  get size(): number { return this.pm.size; }
  get nodeId(): string { return this.cards[this.pm.rank]!.nodeId; }

  /** Whether this rank can map memory with `worldRank` (itself, or a ch_shmem peer). */
  sharesMemoryWith(worldRank: number): boolean {
    return worldRank === this.pm.rank || this.shmem.reachable(worldRank);
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
    try {
      const mine: BusinessCard = { rank: pm.rank, nodeId: localNodeId(), pid: process.pid, shmSegment: own.name };
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
      const peers = cards.map((c) => (c.rank !== pm.rank && c.nodeId === mine.nodeId ? RankSegment.attach(c.shmSegment, c.rank) : null));
      pm.fence();
      own.unlink();
      const localRanks = peers.filter((p) => p !== null).length + 1;
      trace('rank %d of %d on %s: %d local ranks', pm.rank, pm.size, mine.nodeId, localRanks);
      const shmem = new ShmemDevice(shmemConfig, pm.rank, pm.size, own, peers);
      const self = new SelfDevice(pm.rank, shmem.wake);
      const deviceOf: Device[] = cards.map((c) => {
        if (c.rank === pm.rank) return self;
        if (shmem.reachable(c.rank)) return shmem;
        throw new BootstrapError(`rank ${c.rank} runs on node ${c.nodeId}, which no device reaches from ${mine.nodeId} ` +
          '(ranks on different nodes need ch_sci, which this build does not have yet)');
      });
      const engine = new Engine(pm.rank, [self, shmem], deviceOf);
      const progress = new Progress(engine, shmem.wake, Progress.spinBudgetFor(localRanks, spinPolls), sleepTimeout);
      return new World(pm, jobId, cards, own, peers, engine, progress, shmem);
    } catch (e) {
      own.unlink();
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
    this.pm.fence();
    this.pm.finalize();
  }
}
