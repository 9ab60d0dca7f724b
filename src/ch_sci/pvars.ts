import type { Device } from '../mpid/device.js';
import { counterSpec, type PvarTable } from '../mpid/pvars.js';
import type { SciDevice } from './device.js';
import type { SciCounters } from './peer.js';
import type { ResourceCache } from './resources.js';

const C = 'ch_sci';
const of = (read: (c: SciCounters) => number) => (d: Device) => read((d as SciDevice).counters);
const rings = (read: (c: ReturnType<SciDevice['ringCounters']>) => number) => (d: Device) => read((d as SciDevice).ringCounters());
const cache = (read: (c: ResourceCache['counters']) => number) => (d: Device) => read((d as SciDevice).cache.counters);

/** ch_sci's counters (the device's, its short rings' and its resource cache's) as MPI.T performance variables. */
export const SCI_PVARS: PvarTable<Device> = {
  category: C,
  description: 'SCI device between nodes: short rings with CRC, eager slices, pool rendezvous by PIO or DMA, resource cache',
  variables: [
    counterSpec(C, 'short_packets', 'messages', 'Messages written whole into the peer\'s short ring', of((c) => c.short)),
    counterSpec(C, 'eager_packets', 'messages', 'Messages whose data went into an eager slice', of((c) => c.eager)),
    counterSpec(C, 'eager_full', 'events', 'Sends that found no free eager slice at the peer', of((c) => c.eagerFull)),
    counterSpec(C, 'ring_full', 'events', 'Sends that found the peer\'s short ring full', of((c) => c.ringFull)),
    counterSpec(C, 'ring_slots', 'messages', 'Slots written into short rings (messages and the device\'s own notices)', rings((c) => c.messages)),
    counterSpec(C, 'ring_retries', 'events', 'Short-ring slots written again after a failed sequence check', rings((c) => c.retries)),
    counterSpec(C, 'crc_errors', 'events', 'Arrived short-ring slots whose CRC-32 did not match (read again)', rings((c) => c.crcMismatches)),
    counterSpec(C, 'credit_reads', 'events', 'Remote loads of a peer\'s consumer index (ring credit)', rings((c) => c.creditReads)),
    counterSpec(C, 'data_retries', 'events', 'Eager and rendezvous data blocks written again after a failed sequence check', of((c) => c.dataRetries)),
    counterSpec(C, 'dma_retries', 'events', 'DMA transfers that failed and were posted again', of((c) => c.dmaRetries)),
    counterSpec(C, 'rndv_blocks', 'events', 'Rendezvous blocks announced to the receiver (PIO and DMA)', of((c) => c.blocks)),
    counterSpec(C, 'dma_blocks', 'events', 'Rendezvous blocks moved by DMA', of((c) => c.dmaBlocks)),
    counterSpec(C, 'pool_full', 'events', 'Rendezvous grants postponed: no free part in the receive pool', of((c) => c.poolFull)),
    counterSpec(C, 'resource_waits', 'events', 'Transfers that waited for a mapping the resource limits did not allow yet', of((c) => c.resourceWaits)),
    counterSpec(C, 'interrupts', 'events', 'Remote interrupts triggered to wake a peer', of((c) => c.interrupts)),
    counterSpec(C, 'cache_hits', 'events', 'Remote segment mappings found in the resource cache', cache((c) => c.hits)),
    counterSpec(C, 'cache_misses', 'events', 'Remote segments connected and mapped anew', cache((c) => c.misses)),
    counterSpec(C, 'cache_evictions', 'events', 'Cached mappings dropped to make room', cache((c) => c.evictions)),
    counterSpec(C, 'cache_exhausted', 'events', 'Mapping requests that found no room even after evicting', cache((c) => c.exhausted)),
  ],
};
