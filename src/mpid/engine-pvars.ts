import type { Engine } from './engine.js';
import { counterSpec, type PvarSpec, type PvarTable } from './pvars.js';

const MPID = 'mpid';

/** The protocol engine's performance variables (engine.ts keeps the counters, match-queue.ts the queue). */
export const ENGINE_PVARS: PvarTable<Engine> = {
  category: MPID,
  description: 'The protocol engine: sends by protocol, matching, sends parked for ring room',
  variables: [
    counterSpec(MPID, 'eager_sends', 'messages', 'Messages sent by the eager protocol (data with the envelope)', (e) => e.sentTotal('eager', 'messages')),
    counterSpec(MPID, 'eager_bytes', 'bytes', 'Bytes sent by the eager protocol', (e) => e.sentTotal('eager', 'bytes')),
    counterSpec(MPID, 'rndv_sends', 'messages', 'Messages sent by rendezvous (request to send, data after the match)', (e) => e.sentTotal('rndv', 'messages')),
    counterSpec(MPID, 'rndv_bytes', 'bytes', 'Bytes sent by rendezvous', (e) => e.sentTotal('rndv', 'bytes')),
    counterSpec(MPID, 'eager_fallbacks', 'messages', 'Eager-sized messages sent by rendezvous because the peer\'s eager buffers were full',
      (e) => e.counters.eagerFallbacks),
    counterSpec(MPID, 'unexpected', 'messages', 'Messages that arrived before a matching receive was posted', (e) => e.counters.unexpected),
    {
      name: `${MPID}_unexpected_queue_length`, varClass: 'level', unit: 'messages',
      description: 'Messages in the unexpected queue now', read: (e) => e.queues.unexpectedCount,
    },
    {
      name: `${MPID}_unexpected_queue_max`, varClass: 'highwatermark', unit: 'messages',
      description: 'Longest the unexpected queue has been', read: (e) => e.queues.unexpectedMax,
    },
    counterSpec(MPID, 'parked', 'messages', 'Packets that waited for room in a peer\'s ring (sends and control replies)', (e) => e.counters.parked),
  ],
};

/**
 * What the engine sent through device `device`, by protocol: part of that device's category
 * (`ch_shmem_eager_sends`, ...), counted by the engine so every device is counted alike.
 */
export function sentThroughPvars(device: string): readonly PvarSpec<Engine>[] {
  const spec = (protocol: 'eager' | 'rndv', what: 'messages' | 'bytes', text: string): PvarSpec<Engine> =>
    counterSpec(device, `${protocol}_${what === 'messages' ? 'sends' : 'bytes'}`, what, `${text} through ${device}`,
      (e) => e.sentVia(device, protocol, what));
  return [
    spec('eager', 'messages', 'Messages sent by the eager protocol'),
    spec('eager', 'bytes', 'Bytes sent by the eager protocol'),
    spec('rndv', 'messages', 'Messages sent by rendezvous'),
    spec('rndv', 'bytes', 'Bytes sent by rendezvous'),
  ];
}
