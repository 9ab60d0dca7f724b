import type { Device } from '../mpid/device.js';
import { counterSpec, type PvarTable } from '../mpid/pvars.js';
import type { ShmemDevice } from './device.js';

const C = 'ch_shmem';
type Counters = ShmemDevice['counters'];
const of = (read: (c: Counters) => number) => (d: Device) => read((d as ShmemDevice).counters);

/** ch_shmem's counters (ShmemDevice.counters) as MPI.T performance variables. */
export const SHMEM_PVARS: PvarTable<Device> = {
  category: C,
  description: 'Shared memory between ranks of one node: rings, eager cells, single-copy rendezvous',
  variables: [
    counterSpec(C, 'short_packets', 'messages', 'Messages written whole into the peer\'s ring (short protocol)', of((c) => c.short)),
    counterSpec(C, 'eager_packets', 'messages', 'Messages whose data went into an eager cell', of((c) => c.eager)),
    counterSpec(C, 'eager_full', 'events', 'Sends that found no free eager cell at the peer', of((c) => c.eagerFull)),
    counterSpec(C, 'ring_full', 'events', 'Sends that found the peer\'s ring full (retried after progress)', of((c) => c.ringFull)),
    counterSpec(C, 'single_copies', 'messages', 'Rendezvous receives done by one cross-memory copy', of((c) => c.pulls)),
    counterSpec(C, 'iov_copies', 'messages', 'Single copies of non-contiguous data with iovec lists', of((c) => c.iovPulls)),
    counterSpec(C, 'push_chunks', 'events', 'Chunks of pipelined-copy rendezvous (when single copy is off or fails)', of((c) => c.pushChunks)),
    counterSpec(C, 'wakes', 'events', 'Doorbells rung for a peer that slept', of((c) => c.wakes)),
  ],
};
