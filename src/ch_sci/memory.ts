// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { BusinessCard } from '../mpid/business-card.js';
import type { ExposedMemory, MappedMemory, RmaService } from '../mpid/memory.js';
import type { Descriptor } from '../sisci/index.js';
import { CONNECT_TIMEOUT_MS, MAX_RETRIES, type SciCounters } from './peer.js';

/** Segment ids of exported one-sided memory: above the device's (rank * 4 + kind + 1), a block per rank. */
const MEMORY_ID_BASE = 0x40000000;
const MEMORY_IDS_PER_RANK = 0x4000;

/**
 * Memory for one-sided access across SCI nodes (one-sided windows, their lock areas,
 * MPI.Alloc_mem with info type=shared; 003b §3.1): each exposure is a SISCI segment of its own,
 * with an id unique on our node (ids above the device's own, numbered per rank); another rank
 * maps it by our SCI node id (our card's ch_sci field) and that id.
 */
export class SciMemory implements RmaService {
  private serial = 0;

  constructor(private readonly desc: Descriptor, private readonly rank: number, private readonly cardName: string,
              private readonly counters: SciCounters) {}

  expose(bytes: number): ExposedMemory {
    const id = MEMORY_ID_BASE + this.rank * MEMORY_IDS_PER_RANK + (this.serial++ % MEMORY_IDS_PER_RANK);
    // Whole lines, so that the memory is whole words for Atomics.
    const segment = this.desc.createSegment(id, Math.ceil(Math.max(bytes, 64) / 64) * 64);
    const map = segment.map();
    segment.setAvailable();
    return {
      id, bytes: map.bytes.subarray(0, bytes), words: map.words,
      write: (offset, src, srcOffset, length) => { map.bytes.set(src.subarray(srcOffset, srcOffset + length), offset); },
      storeBarrier: () => undefined,
      remove: () => {
        map.unmap();
        segment.remove();
      },
    };
  }

  /** Loads and stores reach the mapped memory; writes are checked. */
  map(owner: BusinessCard, id: number, bytes: number): MappedMemory {
    const field = owner.devices.get(this.cardName);
    if (field === undefined) throw new Error(`ch_sci: rank ${owner.rank} runs no ch_sci, its memory cannot be mapped`);
    const segment = this.desc.connect(Number(field), id, CONNECT_TIMEOUT_MS);
    const map = segment.map(0, Math.ceil(Math.max(bytes, 64) / 64) * 64);
    const sequence = map.sequence();
    return {
      bytes: map.bytes.subarray(0, bytes), words: map.words,
      write: (offset, src, srcOffset, length) => {
        this.counters.dataRetries += sequence.writeChecked(offset, src, srcOffset, length, MAX_RETRIES);
      },
      storeBarrier: () => sequence.storeBarrier(),
      release: () => {
        sequence.remove();
        map.unmap();
        segment.disconnect();
      },
    };
  }
}
