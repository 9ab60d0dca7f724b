// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { ConfigError } from '../common/errors.js';
import { declareChoice, declareInt } from '../common/config.js';
import { DIRECT_PACK_MIN } from '../mpid/config.js';
import { regionBytes } from './short-ring.js';

/**
 * ch_sci's tunables (003a §2, §4). Sizes follow the thesis's rules: everything written remotely
 * is aligned to and sized in 128-byte SCI packets (nwrite128), so a store stream is emitted
 * without waiting for a flush.
 */
const layer = 'ch_sci';

export const PROGRESS = declareChoice({
  name: 'TSMPI_PROGRESS', layer,
  description: 'How a waiting rank learns of ch_sci arrivals: poll (polls; a rank about to sleep asks its peers to ' +
    'trigger its SCI interrupt) or thread (every control message triggers the receiver\'s interrupt, which a native ' +
    'thread turns into a wake-up of the rank and its event loop, 003c §2.1).',
  default: 'poll', choices: ['poll', 'thread'] as const,
});

export const SCI_SHORT_SLOTS = declareInt({
  name: 'TSMPI_SCI_SHORT_SLOTS', layer,
  description: 'Slots of 128 B in each sender\'s short (control) ring in a receiver\'s short segment.',
  default: 64, min: 4, max: 4096,
});

export const SCI_SHORT_MAX = declareInt({
  name: 'TSMPI_SCI_SHORT_MAX', layer,
  description: 'Largest message (bytes) carried inside the short ring (the thesis\'s D_data = L_min / t_copy); larger ' +
    'ones go eager or by rendezvous.',
  default: 600, min: 0, max: 256 * 1024,
});

export const SCI_EAGER = declareChoice({
  name: 'TSMPI_SCI_EAGER', layer,
  description: 'Eager variant (003a §2.3): dynamic (each sender\'s slice is a ring of 128-byte blocks; the read ' +
    'pointer lives in the sender\'s short segment) or static (the slice is split into fixed buffers, freed by writing ' +
    'their index back into a ring in the sender\'s short segment).',
  default: 'dynamic', choices: ['dynamic', 'static'] as const,
});

export const SCI_EAGER_MAX = declareInt({
  name: 'TSMPI_SCI_EAGER_MAX', layer,
  description: 'Largest message (bytes) sent eagerly over ch_sci; larger ones, and eager messages that find no room, ' +
    'go by rendezvous.',
  default: 32 * 1024, min: 0, max: 16 * 1024 * 1024,
});

export const SCI_EAGER_BYTES = declareInt({
  name: 'TSMPI_SCI_EAGER_BYTES', layer,
  description: 'Bytes of each sender\'s slice of a receiver\'s eager segment (0: no eager segment, every message ' +
    'above TSMPI_SCI_SHORT_MAX goes by rendezvous).',
  default: 256 * 1024, min: 0, max: 1024 ** 3,
});

export const SCI_RNDV_BYTES = declareInt({
  name: 'TSMPI_SCI_RNDV_BYTES', layer,
  description: 'S_rdv: the most a receiver grants one rendezvous transfer in its pool per round (OK_TO_SEND).',
  default: 512 * 1024, min: 4096, max: 1024 ** 3,
});

export const SCI_POOL_PARTS = declareInt({
  name: 'TSMPI_SCI_POOL_PARTS', layer,
  description: 'Rendezvous transfers a receiver serves at once: its pool is this many grants of TSMPI_SCI_RNDV_BYTES.',
  default: 4, min: 1, max: 1024,
});

export const SCI_BLOCK = declareInt({
  name: 'TSMPI_SCI_BLOCK', layer,
  description: 'S_pipe: bytes per BLOCK_READY of a pipelined rendezvous (a multiple of 128).',
  default: 64 * 1024, min: 128, max: 1024 ** 3,
});

export const SCI_DMA_MIN = declareInt({
  name: 'TSMPI_SCI_DMA_MIN', layer,
  description: 'Rendezvous blocks of at least this many bytes are moved by DMA (packed into a local segment, then ' +
    'transferred by the adapter); smaller ones by PIO stores into the mapped pool. 0: never DMA.',
  default: 0, min: 0, max: 1024 ** 3,
});

export const SCI_CACHE = declareChoice({
  name: 'TSMPI_SCI_CACHE', layer,
  description: 'Replacement policy of the resource cache (003a §4.4): lru keeps released remote segments connected and ' +
    'mapped until the emulation or hardware runs out; null disconnects on every release (the thesis\'s A/B).',
  default: 'lru', choices: ['lru', 'null'] as const,
});

export interface SciConfig {
  readonly progress: 'poll' | 'thread';
  readonly slots: number;
  readonly shortMax: number;
  readonly eager: 'dynamic' | 'static';
  readonly eagerMax: number;
  readonly eagerBytes: number;
  readonly rndvBytes: number;
  readonly poolParts: number;
  readonly block: number;
  readonly dmaMin: number;
  readonly cache: 'lru' | 'null';
  readonly directPackMin: number;
}

const SLOT = 128;

export function readSciConfig(env: NodeJS.ProcessEnv = process.env): SciConfig {
  const c: SciConfig = {
    progress: PROGRESS.read(env),
    slots: SCI_SHORT_SLOTS.read(env),
    shortMax: SCI_SHORT_MAX.read(env),
    eager: SCI_EAGER.read(env),
    eagerMax: SCI_EAGER_MAX.read(env),
    eagerBytes: SCI_EAGER_BYTES.read(env),
    rndvBytes: SCI_RNDV_BYTES.read(env),
    poolParts: SCI_POOL_PARTS.read(env),
    block: SCI_BLOCK.read(env),
    dmaMin: SCI_DMA_MIN.read(env),
    cache: SCI_CACHE.read(env),
    directPackMin: DIRECT_PACK_MIN.read(env),
  };
  // The ring's largest message is half of it (see ShortRingSender.maxPayload).
  const ringMax = 88 + (Math.floor(c.slots / 2) - 1) * SLOT;
  if (c.shortMax > ringMax) {
    throw new ConfigError(`TSMPI_SCI_SHORT_MAX=${c.shortMax} does not fit half the short ring: at most ${ringMax} with ` +
      `TSMPI_SCI_SHORT_SLOTS=${c.slots}`);
  }
  if (c.eagerBytes % SLOT !== 0) throw new ConfigError(`TSMPI_SCI_EAGER_BYTES=${c.eagerBytes} is not a multiple of 128`);
  if (c.eagerBytes > 0 && roundUp(c.eagerMax) * (c.eager === 'dynamic' ? 2 : 1) > c.eagerBytes) {
    throw new ConfigError(`TSMPI_SCI_EAGER_MAX=${c.eagerMax} needs TSMPI_SCI_EAGER_BYTES >= ` +
      `${roundUp(c.eagerMax) * (c.eager === 'dynamic' ? 2 : 1)} with the ${c.eager} variant (it is ${c.eagerBytes})`);
  }
  if (c.block % SLOT !== 0) throw new ConfigError(`TSMPI_SCI_BLOCK=${c.block} is not a multiple of 128`);
  if (c.rndvBytes % c.block !== 0) {
    throw new ConfigError(`TSMPI_SCI_RNDV_BYTES=${c.rndvBytes} is not a multiple of TSMPI_SCI_BLOCK=${c.block}`);
  }
  return c;
}

export function roundUp(n: number, to = SLOT): number {
  return Math.ceil(n / to) * to;
}

/** Bytes of the short segment: every sender's ring region, then every peer's one-sided area. */
export function shortSegmentBytes(c: SciConfig, worldSize: number): number {
  return worldSize * (regionBytes(c.slots) + ONE_SIDED_BYTES);
}

/**
 * The per-peer internal one-sided area (003a §2.2) in a rank's short segment, written remotely by
 * that peer and read locally by the owner:
 *   word 0      DYN_READ: dynamic eager, the peer's read position in our slice of its eager segment
 *   word 1      ASLEEP: the peer is about to sleep and asks for an interrupt after each message
 *   words 2..   FREE_RING: static eager, indices of our buffers in its segment it has freed,
 *               each word = (count << 8 | index) so no word must ever be cleared
 */
export const ONE_SIDED_BYTES = 512;
export const OS_DYN_READ = 0;
export const OS_ASLEEP = 1;
export const OS_FREE_RING = 2;
export const FREE_RING_ENTRIES = ONE_SIDED_BYTES / 4 - OS_FREE_RING;
