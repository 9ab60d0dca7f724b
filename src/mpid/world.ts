import createDebug from 'debug';
import { BootstrapError } from '../common/errors.js';
import { jobIdFrom, segmentName } from '../common/segment-names.js';
import { RankSegment, SHMEM_SEGMENT_BYTES } from '../ch_shmem/index.js';
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
  ) {}

  get rank(): number { return this.pm.rank; }
  get size(): number { return this.pm.size; }
  get nodeId(): string { return this.cards[this.pm.rank]!.nodeId; }

  static bootstrap(env: NodeJS.ProcessEnv = process.env): World {
    const pm = connectProcessManager(env);
    const jobId = jobIdFrom(env, pm.kvsname);
    const own = RankSegment.create(segmentName(jobId, pm.rank, 'rank'), SHMEM_SEGMENT_BYTES.read(env), pm.rank);
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
      trace('rank %d of %d on %s: %d local peers', pm.rank, pm.size, mine.nodeId, peers.filter((p) => p !== null).length);
      return new World(pm, jobId, cards, own, peers);
    } catch (e) {
      own.unlink();
      throw e;
    } finally {
      process.off('exit', unlinkAtExit);
    }
  }

  /** Collective: the last fence makes sure no peer still needs us, then PMI is closed. */
  finalize(): void {
    this.pm.fence();
    this.pm.finalize();
  }
}
