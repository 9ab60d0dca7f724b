import { counterSpec, type PvarTable } from '../mpid/pvars.js';

/**
 * The one-sided layer's counters for the whole process, over every window (each window keeps
 * its own as well, for tests): incremented beside the per-window ones, read by MPI.T.
 */
export const oscCounters = {
  devicePuts: 0, deviceGets: 0, deviceAtomics: 0, toAgent: 0,
  gatheredOperations: 0, gatheredMessages: 0, remotePutGets: 0, remotePutsWritten: 0,
  lockMigrations: 0,
};

type Counters = typeof oscCounters;
const O = 'osc';
const spec = (name: string, unit: string, description: string, read: (c: Counters) => number) => counterSpec(O, name, unit, description, read);

/** oscCounters as MPI.T performance variables. */
export const OSC_PVARS: PvarTable<Counters> = {
  category: O,
  description: 'One-sided communication: access methods per target and the hybrid window lock',
  variables: [
    spec('device_puts', 'operations', 'Puts done by the network device\'s own one-sided operations', (c) => c.devicePuts),
    spec('device_gets', 'operations', 'Gets done by the network device\'s own one-sided operations', (c) => c.deviceGets),
    spec('device_atomics', 'operations', 'Accumulates done by device atomics', (c) => c.deviceAtomics),
    spec('to_agent', 'operations', 'Accumulates device atomics could not do, sent to the target\'s agent', (c) => c.toAgent),
    spec('gathered_operations', 'operations', 'Operations gathered into batches for a target\'s agent', (c) => c.gatheredOperations),
    spec('gathered_messages', 'messages', 'Batches sent to targets\' agents', (c) => c.gatheredMessages),
    spec('remote_put_gets', 'operations', 'Gets served by the target writing into our exported memory (remote put)', (c) => c.remotePutGets),
    spec('remote_puts_written', 'operations', 'Remote puts this rank wrote for other ranks\' gets', (c) => c.remotePutsWritten),
    spec('lock_migrations', 'events', 'Mode changes of hybrid window locks (cpu <-> device) this rank made', (c) => c.lockMigrations),
  ],
};
