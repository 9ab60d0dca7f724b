import type { Device } from '../mpid/device.js';
import { counterSpec, type PvarTable } from '../mpid/pvars.js';
import type { UcxDevice } from './device.js';
import type { UcxRma } from './rma.js';

const C = 'ch_ucx';
type Counters = UcxDevice['counters'];
const of = (read: (c: Counters) => number) => (d: Device) => read((d as UcxDevice).counters);
const rma = (read: (c: UcxRma['counters']) => number) => (d: Device) => read((d.rma as UcxRma).counters);

/** ch_ucx's counters (UcxDevice.counters and its RMA service's) as MPI.T performance variables. */
export const UCX_PVARS: PvarTable<Device> = {
  category: C,
  description: 'UCX network device: active messages, zero-copy rendezvous, one-sided operations',
  variables: [
    counterSpec(C, 'eager_packets', 'messages', 'Packets (eager messages and protocol control) UCX sent within the call or from the user\'s buffer', of((c) => c.eager)),
    counterSpec(C, 'staged', 'messages', 'Eager messages copied to a staging buffer for UCX to send later', of((c) => c.staged)),
    counterSpec(C, 'held', 'messages', 'Eager messages UCX kept reading from the user\'s buffer after the call', of((c) => c.held)),
    counterSpec(C, 'rndv_packets', 'messages', 'Zero-copy rendezvous sends', of((c) => c.rndv)),
    counterSpec(C, 'rndv_bytes_moved', 'bytes', 'Bytes of zero-copy rendezvous sends', of((c) => c.rndvBytes)),
    counterSpec(C, 'iov_sends', 'messages', 'Rendezvous sends of non-contiguous data as iovecs', of((c) => c.iovSends)),
    counterSpec(C, 'iov_recvs', 'messages', 'Rendezvous receives into non-contiguous data as iovecs', of((c) => c.iovRecvs)),
    counterSpec(C, 'eager_held_arrivals', 'messages', 'Arrived eager data read in place from UCX\'s buffer', of((c) => c.eagerHeld)),
    counterSpec(C, 'eager_descriptors', 'messages', 'Arrived eager data too large for the inbox, received by descriptor', of((c) => c.eagerDescriptors)),
    counterSpec(C, 'pull_waits', 'events', 'Rendezvous receives that had to wait for UCX to complete', of((c) => c.pullWaits)),
    counterSpec(C, 'wakes', 'events', 'Sleeps for which the worker\'s event fd was armed', of((c) => c.wakes)),
    counterSpec(C, 'rma_puts', 'operations', 'One-sided puts by UCX', rma((c) => c.puts)),
    counterSpec(C, 'rma_gets', 'operations', 'One-sided gets by UCX', rma((c) => c.gets)),
    counterSpec(C, 'rma_atomics', 'operations', 'One-sided atomics by UCX', rma((c) => c.atomics)),
    counterSpec(C, 'rma_flushes', 'operations', 'Flushes of one-sided operations', rma((c) => c.flushes)),
    counterSpec(C, 'rma_registered', 'events', 'Memory regions registered for one-sided access', rma((c) => c.registered)),
  ],
};
