import type { BusinessCard } from './business-card.js';

/**
 * Memory one rank exposes for one-sided access by ranks of other nodes, seen from either side
 * (a SISCI segment under ch_sci: the owner's local mapping, or another rank's remote mapping).
 * Loads of `bytes`/`words` read it (remote reads on SCI: slow but correct); stores to them are
 * posted remote writes, ordered by storeBarrier(); write() copies a block and checks that it
 * arrived (SCI's sequence check, rewriting while the check says so), complete on return.
 */
export interface RemoteAccessMemory {
  readonly bytes: Uint8Array;
  /** The same memory as 32-bit words (for Atomics.load/store: single-word accesses, in order). */
  readonly words: Int32Array;
  write(offset: number, src: Uint8Array, srcOffset: number, length: number): void;
  /** Every store issued before it is visible at the memory before any issued after it. */
  storeBarrier(): void;
}

/** Our exposed memory: `id` is what others map it by (with our rank). */
export interface ExposedMemory extends RemoteAccessMemory {
  readonly id: number;
  /** After every mapping of it was released (a collective point). */
  remove(): void;
}

/** Another rank's exposed memory, mapped here. */
export interface MappedMemory extends RemoteAccessMemory {
  release(): void;
}

/**
 * A device's memory that ranks off our node can map too (ch_sci: exported SISCI segments), behind
 * MPI.Alloc_mem(type=shared) and one-sided windows across nodes (003b §3.1).
 */
export interface RemoteMemoryProvider {
  /** Exposes `bytes` of new memory every rank running this device can map. */
  expose(bytes: number): ExposedMemory;
  /** Maps memory the rank of `owner` exposed as `id` (`owner` is its business card). */
  map(owner: BusinessCard, id: number, bytes: number): MappedMemory;
}
