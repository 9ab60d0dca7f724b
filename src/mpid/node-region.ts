import { addon } from '../native/addon.js';
import { segmentName } from '../common/segment-names.js';

/**
 * A shared segment for a group of ranks on one node, for collective algorithms that work on
 * memory directly (the shm_counter barrier). One member creates it under the job's segment
 * prefix (so the launcher's sweep removes it after a crash), tells the others its name, they
 * map it, and the creator unlinks the name once all have: the mapping lives on in every member
 * until it is dropped, and nothing is left in /dev/shm.
 */
export class NodeRegion {
  readonly words: Int32Array;

  private constructor(readonly name: string, memory: SharedArrayBuffer, private owned: boolean) {
    this.words = new Int32Array(memory);
  }

  static create(jobId: string, worldRank: number, bytes: number): NodeRegion {
    const name = segmentName(jobId, worldRank, 'coll');
    return new NodeRegion(name, addon.shmCreate(name, bytes), true);
  }

  static open(name: string): NodeRegion {
    return new NodeRegion(name, addon.shmOpen(name), false);
  }

  /** Removes the name (creator only; once every member has mapped the segment). */
  unlink(): void {
    if (!this.owned) return;
    this.owned = false;
    addon.shmUnlink(this.name);
  }
}
