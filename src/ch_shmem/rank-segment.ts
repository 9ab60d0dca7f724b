import { BootstrapError } from '../common/errors.js';
import { addon } from '../native/addon.js';

/**
 * The shared segment every rank creates at Init and its peers on the same node attach to.
 * Layout (32-bit words, little-endian):
 *
 *   word  meaning
 *   0     MAGIC ('TSMP'), written last by the owner: a peer that sees it sees the rest
 *   1     LAYOUT_VERSION
 *   2     owner's world rank
 *   3     owner's pid
 *   4..15 reserved (the rank's doorbell is a segment of its own: src/common/doorbell.ts)
 *   16..  device area (rings and buffers of the ch_shmem protocols)
 */
export const MAGIC = 0x504d5354;
export const LAYOUT_VERSION = 2;
export const WORD_MAGIC = 0;
export const WORD_VERSION = 1;
export const WORD_RANK = 2;
export const WORD_PID = 3;
export const HEADER_BYTES = 64;

export class RankSegment {
  readonly words: Int32Array;

  private constructor(readonly name: string, readonly memory: SharedArrayBuffer, private owned: boolean) {
    this.words = new Int32Array(memory);
  }

  /**
   * Creates and initializes the calling rank's segment; the caller unlinks it (see unlink). It
   * is sparse: only the header is backed here, the device prepares each pair's part as it comes
   * into use (ShmemDevice), so its size (room for every rank of the job) costs nothing unused.
   */
  static create(name: string, bytes: number, rank: number): RankSegment {
    const seg = new RankSegment(name, addon.shmCreate(name, bytes, true), true);
    addon.shmPrepare(seg.memory, 0, HEADER_BYTES);
    seg.words[WORD_VERSION] = LAYOUT_VERSION;
    seg.words[WORD_RANK] = rank;
    seg.words[WORD_PID] = process.pid;
    Atomics.store(seg.words, WORD_MAGIC, MAGIC);
    return seg;
  }

  /** Attaches to a peer's segment and checks that it is the one the business card promised. */
  static attach(name: string, expectedRank: number): RankSegment {
    let memory: SharedArrayBuffer;
    try {
      memory = addon.shmOpen(name, true);
    } catch (e) {
      throw new BootstrapError(`cannot attach to rank ${expectedRank}'s segment ${name}: ${(e as Error).message}`, { cause: e });
    }
    const seg = new RankSegment(name, memory, false);
    const magic = Atomics.load(seg.words, WORD_MAGIC);
    if (magic !== MAGIC || seg.words[WORD_VERSION] !== LAYOUT_VERSION || seg.words[WORD_RANK] !== expectedRank) {
      throw new BootstrapError(`segment ${name} is not rank ${expectedRank}'s tsmpi segment (magic 0x${(magic >>> 0).toString(16)}, ` +
        `version ${seg.words[WORD_VERSION]}, rank ${seg.words[WORD_RANK]})`);
    }
    return seg;
  }

  get ownerPid(): number {
    return this.words[WORD_PID]!;
  }

  /**
   * Removes the name once every peer has attached: the mapping stays valid for all of them,
   * and a rank killed later leaves nothing behind in /dev/shm.
   */
  unlink(): void {
    if (!this.owned) return;
    this.owned = false;
    addon.shmUnlink(this.name);
  }
}
