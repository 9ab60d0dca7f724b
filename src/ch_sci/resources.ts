// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { createTrace } from '../common/trace.js';
import type { PackedData } from '../mpid/device.js';
import { type Descriptor, type RemoteSegment, type SciMap, SEQ_OK, type Sequence, SisciError } from '../sisci/index.js';

const trace = createTrace('tsmpi:sci:rsrc');

/** What a remote resource is for; part of its key (003a §4.4: segment id, owner rank, type). */
export type ResourceKind = 'eager' | 'pool';
const KIND_CODE: Record<ResourceKind, number> = { eager: 0, pool: 1 };

/** A connected and mapped part of another rank's segment, with a sequence for checked writes. */
export interface Resource {
  /** (segment id, owner rank, kind) as one number: no string is built on the eager path. */
  readonly key: number;
  readonly segment: RemoteSegment;
  readonly map: SciMap;
  readonly sequence: Sequence;
  /** Holders right now (a pool is shared by every transfer to its owner). */
  users: number;
}

/** Errors that say the adapter or the library ran out of something: evict and try again. */
const EXHAUSTED = new Set(['SCI_ERR_NOSPC', 'SCI_ERR_API_NOSPC', 'SCI_ERR_HW_NOSPC', 'SCI_ERR_MAX_ENTRIES']);

/** How long a connect may wait for a segment its owner published at Init (it is there already). */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * The resource manager of 003a §4.4 for ch_sci's dynamically connected resources (eager slices
 * and rendezvous pools of other ranks): two tables, "in use" and "available", keyed by
 * (segment id, owner rank, kind). A released resource moves to "available", the cache; the
 * policy decides what happens there: `lru` keeps it connected and mapped until an allocation
 * fails for lack of resources, then frees the least recently released ones one by one until the
 * allocation succeeds; `null` frees it at once (no caching, the thesis's baseline).
 *
 * acquire() returns null when nothing can be freed (every resource in use): the caller then
 * waits (rendezvous) or takes another protocol (eager → rendezvous), so a message never fails
 * for lack of resources. Deviation from the thesis: the RSRC_REQ/RSRC_OK round among the ranks
 * of a node is not built, because the emulation's limits are per process (what a node peer
 * holds does not count against ours); on real hardware that round would go where acquire()
 * gives up.
 */
export class ResourceCache {
  private readonly inUse = new Map<number, Resource>();
  /** Insertion order is release order: the first entry is the least recently used. */
  private readonly available = new Map<number, Resource>();
  /** misses: resources connected and mapped anew; exhausted: requests that found no room even after evicting. */
  readonly counters = { hits: 0, misses: 0, evictions: 0, exhausted: 0, freed: 0 };

  constructor(private readonly desc: Descriptor, private readonly policy: 'lru' | 'null') {}

  /**
   * The resource for [offset, offset + size) of segment `segmentId` of node `nodeId`, owned by
   * world rank `owner`; null when the limits leave no room even after evicting every cached one.
   */
  acquire(nodeId: number, segmentId: number, owner: number, kind: ResourceKind, offset: number,
          size: number): Resource | null {
    const key = (segmentId * 0x10000 + owner) * 4 + KIND_CODE[kind];
    let r = this.inUse.get(key);
    if (r !== undefined) {
      r.users++;
      this.counters.hits++;
      return r;
    }
    r = this.available.get(key);
    if (r !== undefined) {
      this.available.delete(key);
      this.inUse.set(key, r);
      r.users = 1;
      this.counters.hits++;
      return r;
    }
    for (;;) {
      try {
        r = this.allocate(key, nodeId, segmentId, offset, size);
        this.inUse.set(key, r);
        this.counters.misses++;
        return r;
      } catch (e) {
        if (!(e instanceof SisciError) || !EXHAUSTED.has(e.code)) throw e;
        const victim = this.available.keys().next();
        if (victim.done === true) {
          this.counters.exhausted++;
          trace('%s: %s and nothing cached to free', key, e.code);
          return null;
        }
        this.free(this.available.get(victim.value)!);
        this.available.delete(victim.value);
        this.counters.evictions++;
      }
    }
  }

  release(r: Resource): void {
    if (--r.users > 0) return;
    this.inUse.delete(r.key);
    if (this.policy === 'null') this.free(r);
    else this.available.set(r.key, r);
  }

  /** Frees every resource (Finalize); nothing may be in use any more. */
  clear(): void {
    for (const r of this.available.values()) this.free(r);
    for (const r of this.inUse.values()) this.free(r);
    this.available.clear();
    this.inUse.clear();
  }

  get cached(): number {
    return this.available.size;
  }

  private allocate(key: number, nodeId: number, segmentId: number, offset: number, size: number): Resource {
    const segment = this.desc.connect(nodeId, segmentId, CONNECT_TIMEOUT_MS);
    let map: SciMap | null = null;
    try {
      map = segment.map(offset, size);
      return { key, segment, map, sequence: map.sequence(), users: 1 };
    } catch (e) {
      if (map !== null) map.unmap();
      segment.disconnect();
      throw e;
    }
  }

  private free(r: Resource): void {
    r.sequence.remove();
    r.map.unmap();
    r.segment.disconnect();
    this.counters.freed++;
  }
}

/**
 * Writes source bytes [from, from + len) (or packed bytes of `packed`) to `at` of a mapped
 * remote resource and checks the sequence, writing again while it says RETRIABLE; returns the
 * rewrites. The check includes a store barrier, so the data are visible before any later
 * control message.
 */
export function writeChecked(r: Resource, at: number, source: Uint8Array | null, srcOff: number, from: number, len: number,
                             packed: PackedData | null, maxRetries: number): number {
  if (packed === null) return r.sequence.writeChecked(at, source!, srcOff + from, len, maxRetries);
  for (let attempt = 0; ; attempt++) {
    r.sequence.start();
    packed.pack(from, len, r.map.bytes, at);
    if (r.sequence.check() === SEQ_OK) return attempt;
    if (attempt === maxRetries) {
      throw new Error(`ch_sci: a transfer into segment ${r.segment.id} of SCI node ${r.segment.nodeId} failed its ` +
        `sequence check ${maxRetries + 1} times`);
    }
  }
}
