import { declareBool, declareChoice, declareInt, declareString } from '../common/config.js';

export const SPIN_POLLS = declareInt({
  name: 'TSMPI_SPIN_POLLS', layer: 'mpid',
  description: 'Idle polls a blocking call spins before it sleeps on its futex; 0 chooses by load ' +
    '(long when the node has a core per rank, short when ranks outnumber cores).',
  default: 0, min: 0, max: 100_000_000,
});

export const SCHED_BATCH = declareChoice({
  name: 'TSMPI_SCHED_BATCH', layer: 'mpid',
  description: "Whether Init moves the rank's main thread to Linux's SCHED_BATCH policy, under which a thread " +
    'woken from a wait does not preempt the running one: auto when ranks outnumber the cores (with 4 ranks on 2 ' +
    'cores a rank woken at the end of a Barrier took the core of a peer already in its next Bcast, which then ' +
    'waited a slice for data that was there; osu_bcast 5-16 us instead of 2-3), 1 always, 0 never. A thread under ' +
    'another policy than the default is left alone.',
  default: 'auto', choices: ['auto', '1', '0'],
});

export const SLEEP_TIMEOUT_MS = declareInt({
  name: 'TSMPI_SLEEP_TIMEOUT_MS', layer: 'mpid',
  description: 'Longest futex sleep of a blocked rank before it polls again (a safety net; wake-ups come from peers).',
  default: 1000, min: 1, max: 60_000,
});

export const DIRECT_PACK = declareBool({
  name: 'TSMPI_DIRECT_PACK', layer: 'mpid',
  description: 'Non-contiguous datatypes move straight between user memory and the device buffers or kernel ' +
    'iovecs (1), or are packed into a temporary buffer before sending and unpacked after receiving (0).',
  default: true,
});

export const DIRECT_PACK_MIN = declareInt({
  name: 'TSMPI_DIRECT_PACK_MIN', layer: 'mpid',
  description: 'Mean contiguous block (bytes) from which a non-contiguous rendezvous goes by single copy with ' +
    'iovec lists (when single copy is on); smaller blocks are gathered locally into the bounce buffers (the kernel ' +
    'pays ~0.4 µs per remote iovec, so 256-byte blocks would move at 0.6 GB/s).',
  default: 16384, min: 1, max: 1 << 30,
});

export const SCI_NODE = declareString({
  name: 'TSMPI_SCI_NODE', layer: 'mpid',
  description: 'The emulated SCI node of this rank (set per rank by tsmpiexec --sci-nodes K, or by hand under another ' +
    'launcher): ranks share memory only with ranks of the same machine and the same SCI node; unset: the machine is one node.',
  default: '', pattern: /^\d{0,4}$/, patternText: 'a node index 0 .. 9999',
});

export const ASYMMETRIC_FENCE = declareBool({
  name: 'TSMPI_ASYMMETRIC_FENCE', layer: 'mpid',
  description: 'Ranks that share memory publish packets and collective words with plain stores, and a rank about to ' +
    'sleep fences the CPUs of the others with membarrier(2) (1; used on x86-64 when membarrier works and every rank ' +
    'of the machine has a core), or every publish is a sequentially consistent store (0).',
  default: true,
});
