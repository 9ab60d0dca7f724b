import { segmentName } from '../common/segment-names.js';
import type { DeviceDescriptor, OpenDevice, PeerBell } from '../mpid/device.js';
import { ALL_ATOMICS, ALL_WIDTHS, MEM_CPU_ATOMICS, MEM_LOAD_STORE, RMA_GET, RMA_PUT } from '../mpid/memory.js';
import { readShmemConfig } from './config.js';
import { ShmemDevice } from './device.js';
import { PairLayout } from './layout.js';
import { shmNodeMemory } from './node-region.js';
import { RankSegment } from './rank-segment.js';
import { SHMEM_PVARS } from './pvars.js';

const NAME = 'ch_shmem';

/**
 * Registration of ch_shmem: it reaches every other rank of our node (same machine and emulated
 * SCI node) that runs it too, and beats every device but self there. Step 1 creates our
 * segment (its name is our card field); step 2 attaches the segments of the peers bootstrap
 * gave us; the name goes once they all have, so a killed rank leaves nothing in /dev/shm.
 * Memory: the node's shared segments, mapped by every rank of the node and reached by CPU
 * loads, stores and atomics of every width and op (node-region.ts offers them).
 */
export const shmemDescriptor: DeviceDescriptor = {
  name: NAME,
  pvars: SHMEM_PVARS,
  priority: 50,
  sharesMemory: true,
  memory: { flags: MEM_LOAD_STORE | MEM_CPU_ATOMICS | RMA_PUT | RMA_GET, atomicWidths: ALL_WIDTHS, atomicOps: ALL_ATOMICS },
  nodeMemory: shmNodeMemory,
  reachable: (myCard, peerCard) => myCard.rank !== peerCard.rank && myCard.nodeId === peerCard.nodeId &&
    myCard.devices.has(NAME) && peerCard.devices.has(NAME),
  open(world): OpenDevice | null {
    // Another device carries every other rank: our segment would serve nobody.
    if (world.forced !== null && world.forced !== NAME) return null;
    const config = readShmemConfig(world.env);
    const layout = new PairLayout(config);
    const own = RankSegment.create(segmentName(world.jobId, world.rank, 'rank'), layout.segmentBytes(world.size), world.rank);
    return {
      card: own.name,
      connect(links) {
        const segments: (RankSegment | null)[] = new Array<RankSegment | null>(world.size).fill(null);
        const bells: (PeerBell | null)[] = new Array<PeerBell | null>(world.size).fill(null);
        for (const c of links.peers) {
          if (c.rank === world.rank) continue;
          segments[c.rank] = RankSegment.attach(c.devices.get(NAME)!, c.rank);
          bells[c.rank] = links.bellOf(c.rank);
          if (bells[c.rank] === null) throw new Error(`ch_shmem: bootstrap gave no doorbell for rank ${c.rank}`);
        }
        return new ShmemDevice(config, world.rank, world.size, own, segments, bells, links.plainPublish);
      },
      connected: () => own.unlink(),
      abandon: () => own.unlink(),
    };
  },
};
