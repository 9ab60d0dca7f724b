import { ConfigError } from '../common/errors.js';
import { ranksOutnumberCores } from '../common/cores.js';
import { declareChoice, declareInt } from '../common/config.js';
import { DIRECT_PACK_MIN } from '../mpid/config.js';
import { FRAME_BYTES, SLOT_BYTES } from './frame.js';

/** Slots of 128 B in each per-pair ring (a power of two). */
export const SHMEM_SLOTS = declareInt({
  name: 'TSMPI_SHMEM_SLOTS', layer: 'ch_shmem',
  description: 'Slots of 128 B in each sender→receiver control ring (a power of two).',
  default: 64, min: 8, max: 4096,
});

/**
 * Largest message carried inside the control ring (the short protocol). 256 B take 3 of the 64
 * slots, so 21 stay in flight; a 1 KiB message took 9 and left 7, and osu_bw's window of 64
 * waited for ring room: through the eager ring 512 B and 1 KiB stream 25-40 % faster (osu_bw
 * 1.11 and 0.89 x MPICH instead of 0.78 and 0.68), and their ping-pong is no slower.
 */
export const SHORT_MAX = declareInt({
  name: 'TSMPI_SHORT_MAX', layer: 'ch_shmem',
  description: 'Largest message (bytes) sent by the short protocol, inside the control slots (larger ones up to ' +
    'TSMPI_EAGER_MAX go through the eager ring).',
  default: 256, min: 0, max: 32 * 1024,
});

/** Largest message sent eagerly (copied into the receiver's eager ring without waiting). */
export const EAGER_MAX = declareInt({
  name: 'TSMPI_EAGER_MAX', layer: 'ch_shmem',
  description: 'Largest message (bytes) sent by the eager protocol; larger messages use rendezvous.',
  default: 128 * 1024, min: 0, max: 64 * 1024 * 1024,
});

/** Bytes of each sender's eager ring in a receiver's segment (a power of two). */
export const SHMEM_EAGER_BYTES = declareInt({
  name: 'TSMPI_SHMEM_EAGER_BYTES', layer: 'ch_shmem',
  description: "Bytes of each sender's eager ring in a receiver's segment (a power of two, >= 2 x TSMPI_EAGER_MAX).",
  default: 512 * 1024, min: 4096, max: 1024 ** 3,
});

export const SHMEM_BOUNCE_CHUNK = declareInt({
  name: 'TSMPI_SHMEM_BOUNCE_CHUNK', layer: 'ch_shmem',
  description: 'Bytes per chunk of the pipelined rendezvous copy (used when single copy is off or refused).',
  default: 64 * 1024, min: 4096, max: 16 * 1024 * 1024,
});

export const SHMEM_BOUNCE_CHUNKS = declareInt({
  name: 'TSMPI_SHMEM_BOUNCE_CHUNKS', layer: 'ch_shmem',
  description: 'Chunks in flight per pair in the pipelined rendezvous copy.',
  default: 4, min: 2, max: 8,
});

export const SHMEM_SINGLE_COPY = declareChoice({
  name: 'TSMPI_SHMEM_SINGLE_COPY', layer: 'ch_shmem',
  description: 'Rendezvous by one process_vm_readv from the sender (1), or by a pipelined copy through shared bounce ' +
    'buffers, sender and receiver copying at once (0); auto pipelines while every rank of the node has a core ' +
    '(the two copies run in parallel from cache) and takes single copy when ranks outnumber cores.',
  default: 'auto', choices: ['auto', '1', '0'],
});

export interface ShmemConfig {
  readonly slots: number;
  readonly shortMax: number;
  readonly eagerMax: number;
  readonly eagerBytes: number;
  readonly bounceChunk: number;
  readonly bounceChunks: number;
  /** TSMPI_SHMEM_SINGLE_COPY as given; the device resolves 'auto' once it knows its local ranks (singleCopyFor). */
  readonly singleCopy: 'auto' | '1' | '0';
  /** Mean block size from which non-contiguous rendezvous data goes by iovec single copy. */
  readonly directPackMin: number;
}

/**
 * Single copy or the pipelined copy. Measured with osu_bw on 2 ranks and 2 cores (1-4 MiB):
 * process_vm_readv 11-13 GB/s, the pipeline through 64 KiB chunks 35-42 GB/s, as each side
 * copies at memmove speed from cache while the other works. With more ranks than cores the
 * two sides no longer run at once, and one copy beats two.
 */
export function singleCopyFor(choice: 'auto' | '1' | '0', localRanks: number): boolean {
  if (choice !== 'auto') return choice === '1';
  return ranksOutnumberCores(localRanks);
}

export function readShmemConfig(env: NodeJS.ProcessEnv = process.env): ShmemConfig {
  const c: ShmemConfig = {
    slots: SHMEM_SLOTS.read(env),
    shortMax: SHORT_MAX.read(env),
    eagerMax: EAGER_MAX.read(env),
    eagerBytes: SHMEM_EAGER_BYTES.read(env),
    bounceChunk: SHMEM_BOUNCE_CHUNK.read(env),
    bounceChunks: SHMEM_BOUNCE_CHUNKS.read(env),
    singleCopy: SHMEM_SINGLE_COPY.read(env),
    directPackMin: DIRECT_PACK_MIN.read(env),
  };
  const pow2 = (n: number) => (n & (n - 1)) === 0;
  if (!pow2(c.slots)) throw configError(`TSMPI_SHMEM_SLOTS=${c.slots} is not a power of two`);
  if (!pow2(c.eagerBytes)) throw configError(`TSMPI_SHMEM_EAGER_BYTES=${c.eagerBytes} is not a power of two`);
  if (c.eagerMax * 2 > c.eagerBytes) {
    throw configError(`TSMPI_EAGER_MAX=${c.eagerMax} needs TSMPI_SHMEM_EAGER_BYTES >= ${c.eagerMax * 2} (it is ${c.eagerBytes})`);
  }
  const shortLimit = c.slots * SLOT_BYTES / 2 - FRAME_BYTES;
  if (c.shortMax > shortLimit) throw configError(`TSMPI_SHORT_MAX=${c.shortMax} must fit half the ring: at most ${shortLimit} with ${c.slots} slots`);
  if (c.bounceChunk % 128 !== 0) throw configError(`TSMPI_SHMEM_BOUNCE_CHUNK=${c.bounceChunk} is not a multiple of 128`);
  return c;
}

function configError(message: string): ConfigError {
  return new ConfigError(message);
}
