import { BootstrapError } from '../common/errors.js';
import type { DeviceDescriptor, OpenDevice } from '../mpid/device.js';
import {
  addon, ucxProbe, UCX_FEATURE_AM, UCX_FEATURE_AMO32, UCX_FEATURE_AMO64, UCX_FEATURE_RMA, UCX_FEATURE_WAKEUP,
  type UcxEndpoint,
} from '../native/addon.js';
import { applyUcxEnvDefaults, readUcxConfig } from './config.js';
import { UcxDevice } from './device.js';
import { UCX_MEMORY } from './rma.js';
import { UCX_PVARS } from './pvars.js';

const NAME = 'ch_ucx';
/**
 * Eager messages from this size stay in UCX's memory until mpid has read them in place (one copy
 * fewer than through the inbox); below it the inbox is cheaper than making a view.
 */
const HELD_MIN = 16 * 1024;
const INSTALL = 'install UCX on every host (Debian: apt-get install libucx0; to build tsmpi from source also libucx-dev)';

/**
 * Registration of ch_ucx, the network device: it reaches every rank that runs it, below ch_shmem
 * and ch_sci, so ranks of one host keep shared memory and SCI nodes keep SCI. It is opened on
 * demand: only when the first exchange of cards shows ranks that no other device reaches (ranks
 * on several hosts), or when TSMPI_DEVICE=ucx forces it, so a single-host job never loads UCX.
 * Our card field is the worker's address (base64url).
 *
 * Transports: UCX's own choice, except that shared-memory transports are left out unless the
 * user sets UCX_TLS (UCX decides "same machine" by boot id, which hosts emulated in namespaces
 * share; ch_shmem carries the ranks of one host anyway).
 */
export const ucxDescriptor: DeviceDescriptor = {
  name: NAME,
  pvars: UCX_PVARS,
  priority: 10,
  forcedBy: 'ucx',
  sharesMemory: false,
  onDemand: true,
  // The endpoint of another job's process is made from its worker address, at any time.
  reachesOtherJobs: true,
  // UCX's put, get and atomics (rma.ts), offered to the window layer (src/osc/device-rma.ts).
  memory: UCX_MEMORY,
  unreachableHint: `ranks on different hosts need ch_ucx on both: ${INSTALL}`,
  reachable: (myCard, peerCard) => myCard.rank !== peerCard.rank && myCard.devices.has(NAME) && peerCard.devices.has(NAME),
  open(world): OpenDevice | null {
    if (world.forced !== null && world.forced !== NAME) return null;
    const probe = ucxProbe();
    if (!probe.available) {
      if (world.forced === NAME) throw new BootstrapError(`TSMPI_DEVICE=ucx, but UCX cannot be used here: ${probe.reason}`);
      return null;
    }
    const config = readUcxConfig(world.env);
    applyUcxEnvDefaults(world.env, config.eagerMax);
    const context = addon.ucxContextCreate({
      features: UCX_FEATURE_AM | UCX_FEATURE_RMA | UCX_FEATURE_AMO32 | UCX_FEATURE_AMO64 | UCX_FEATURE_WAKEUP,
      name: `tsmpi-${world.rank}`, estimatedEndpoints: world.size,
    });
    let inboxBytes = 1 << 20;
    while (inboxBytes < 4 * (config.eagerMax + 64)) inboxBytes *= 2;
    const rings = addon.ucxWorkerCreate(context, { inboxBytes, inlineMax: config.eagerMax, heldMin: HELD_MIN });
    addon.ucxBellAttach(rings.worker, world.doorbell.cells, world.doorbell.index);
    const addressBytes = addon.ucxWorkerAddress(rings.worker);
    const address = Buffer.from(addressBytes.buffer, addressBytes.byteOffset, addressBytes.byteLength).toString('base64url');
    return {
      card: address,
      connect(links) {
        const eps = new Array<UcxEndpoint | null>(world.size).fill(null);
        for (const c of links.peers) {
          if (c.rank === world.rank) continue;
          eps[c.rank] = addon.ucxEpCreate(rings.worker, Buffer.from(c.devices.get(NAME)!, 'base64url'), c.rank);
        }
        return new UcxDevice(config, world.rank, world.size, { context, rings }, eps, address, (r) => links.cards[r]?.nodeId ?? '?',
          { doorbell: world.doorbell, spinBudget: links.spinBudget, fail: links.fail });
      },
      connected: () => undefined,
      abandon: () => addon.ucxContextDestroy(context),
    };
  },
};
