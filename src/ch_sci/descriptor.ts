import { SCI_NODE } from '../mpid/config.js';
import type { DeviceDescriptor, OpenDevice } from '../mpid/device.js';
import { MEM_EXPORTED, RMA_CHECKED, RMA_GET, RMA_PUT } from '../mpid/memory.js';
import { Descriptor } from '../sisci/index.js';
import { SISCI_LIB } from '../sisci/config.js';
import { readSciConfig } from './config.js';
import { SciDevice } from './device.js';
import { SCI_PVARS } from './pvars.js';

const NAME = 'ch_sci';

/**
 * Registration of ch_sci: it runs when TSMPI_DEVICE=sci forces it, when tsmpiexec --sci-nodes
 * placed us on an emulated SCI node, or when TSMPI_SISCI_LIB names Dolphin's library (a real
 * SCI cluster); it reaches every other rank that runs it, below ch_shmem on one node. Our card
 * field is our SCI node id. Step 1 exports our segments and interrupt; step 2 connects to the
 * short segments and interrupts of the peers bootstrap gave us.
 * Memory: exported segments other nodes map (memory.ts), with remote loads and checked remote
 * stores but no remote atomics, so read-modify-writes across nodes take a mutex made of loads
 * and stores (the hybrid lock stays Lamport's mutex for ranks of other nodes).
 */
export const sciDescriptor: DeviceDescriptor = {
  name: NAME,
  pvars: SCI_PVARS,
  priority: 20,
  forcedBy: 'sci',
  sharesMemory: false,
  memory: { flags: MEM_EXPORTED | RMA_PUT | RMA_GET | RMA_CHECKED, atomicWidths: 0, atomicOps: 0 },
  unreachableHint: 'ranks on different nodes need ch_sci on both (launch with tsmpiexec --sci-nodes K, or set ' +
    'TSMPI_SCI_NODE and TSMPI_SISCI_LIB on a cluster with SCI adapters)',
  reachable: (myCard, peerCard) => myCard.rank !== peerCard.rank && myCard.devices.has(NAME) && peerCard.devices.has(NAME),
  open(world): OpenDevice | null {
    const env = world.env;
    if (world.forced !== NAME && SCI_NODE.read(env) === '' && SISCI_LIB.read(env) === '') return null;
    // The SISCI emulation names its segments after the job, so tsmpiexec can sweep them.
    process.env.TSMPI_JOBID ??= world.jobId;
    const sci = SciDevice.export(readSciConfig(env), Descriptor.open(), world.rank, world.size, world.doorbell);
    return {
      card: String(sci.nodeId),
      connect(links) {
        sci.connect(links.peers.map((c) => ({ rank: c.rank, nodeId: Number(c.devices.get(NAME)) })));
        return sci;
      },
      connected: () => undefined,
      abandon: () => sci.abandon(),
    };
  },
};
