import { addon } from '../native/addon.js';
import { segmentName } from '../common/segment-names.js';
import type { NodeMemory, NodeRegion } from '../mpid/memory.js';

/**
 * The node's shared memory as ch_shmem offers it (DeviceDescriptor.nodeMemory): POSIX shared
 * segments for a group of ranks of one node (one-sided windows, the shm_counter barrier). The
 * creator names a segment under the job's prefix (so the launcher's sweep removes it after a
 * crash); the name goes once every member has opened it (unlink), so nothing stays in /dev/shm.
 */
class ShmNodeRegion implements NodeRegion {
  readonly words: Int32Array;

  constructor(readonly name: string, memory: SharedArrayBuffer, private owned: boolean) {
    this.words = new Int32Array(memory);
  }

  unlink(): void {
    if (!this.owned) return;
    this.owned = false;
    addon.shmUnlink(this.name);
  }
}

export const shmNodeMemory: NodeMemory = {
  create: (jobId, worldRank, bytes) => {
    const name = segmentName(jobId, worldRank, 'coll');
    return new ShmNodeRegion(name, addon.shmCreate(name, bytes), true);
  },
  open: (name) => new ShmNodeRegion(name, addon.shmOpen(name), false),
};
