import type { World } from '../../mpid/world.js';
import { NodeRegion } from '../../mpid/node-region.js';
import type { ExposedMemory, MappedMemory, RemoteAccessMemory } from '../../mpid/remote-memory.js';
import type { Intracomm } from '../comm.js';
import { AtomicViews } from './atomic.js';
import { initLockArea, type LockArea, lockAreaBytes, type LockPolicy } from './lock-area.js';

/** Parts of a node-segment window start on cache-line boundaries. */
const PART_ALIGN = 64;

/**
 * Where a window's memory and lock areas live, and how this rank reaches each part:
 *  - node segment (Allocate with every rank on one node, Allocate_shared): one segment every
 *    rank maps, the lock areas first, then each rank's part;
 *  - exposed (Allocate across SCI nodes, Create on MPI.Alloc_mem memory of info type=shared):
 *    each rank's part is memory it exported (a SISCI segment), mapped by every other rank;
 *  - process memory (Create on other memory): reached only through the owner's agent.
 * Lock areas: in the node segment; otherwise in a small exposed segment per rank when the
 * rank runs ch_sci, else (every rank on one node) in a node segment of the window's ranks.
 */

/** A target's part as this rank reaches it for direct access. */
export interface Part {
  readonly mem: RemoteAccessMemory;
  /** Byte offset of the part in mem.bytes. */
  readonly base: number;
  /** CPU atomics on it (this rank shares memory with the owner); null for remote parts. */
  readonly atomics: AtomicViews | null;
  /** Word views of mem (single loads and stores of aligned words, local or remote). */
  readonly words: { readonly i32: Int32Array; readonly i64: BigInt64Array };
}

function wordViews(mem: RemoteAccessMemory): Part['words'] {
  const b = mem.words.buffer;
  return { i32: mem.words, i64: new BigInt64Array(b, 0, Math.floor(b.byteLength / 8)) };
}

export interface SharedSegment {
  readonly bytes: Uint8Array;
  readonly offsets: Float64Array;
}

export interface WindowMemory {
  /** This rank's part (what the agent applies requests to). */
  readonly bytes: Uint8Array;
  readonly shared: SharedSegment | null;
  /** Direct access to every part, or null (operations go through the owners' agents). */
  readonly parts: Part[] | null;
  readonly areas: LockArea[];
  /** Before the last barrier of Free: drop mappings of others' memory. */
  release(): void;
  /** After it: remove what this rank exported. */
  remove(): void;
}

/** A node segment seen as RemoteAccessMemory: plain copies, no barrier needed. */
function localMemory(bytes: Uint8Array, words: Int32Array): RemoteAccessMemory {
  return { bytes, words, write: (o, src, s, len) => bytes.set(src.subarray(s, s + len), o), storeBarrier: () => undefined };
}

/**
 * Collective over `req` (ranks of one node): rank 0 makes a node segment of `bytes` with the
 * lock areas of all `n` ranks at its start, the others map it by name, and the name is
 * removed once all have (NodeRegion).
 */
function nodeSegment(world: World, req: Intracomm, bytes: number, areaBytes: number, policy: LockPolicy): Int32Array {
  const region = req.rank === 0 ? NodeRegion.create(world.jobId, world.rank, bytes) : null;
  if (region !== null) for (let r = 0; r < req.size; r++) initLockArea(region.words, (r * areaBytes) >> 2, policy);
  const name = req.bcast(region?.name ?? null, 0) as string;
  const mapped = region ?? NodeRegion.open(name);
  req.Barrier();
  region?.unlink();
  return mapped.words;
}

/** Collective over `req`: a node segment with every rank's lock area and part (aligned). */
export function nodeSegmentWindow(world: World, req: Intracomm, size: number, policy: LockPolicy): WindowMemory {
  const n = req.size;
  const sizes = new Float64Array(n);
  req.Allgather(Float64Array.of(size), sizes);
  const areaBytes = lockAreaBytes(n);
  const offsets = new Float64Array(n);
  let total = n * areaBytes;
  for (let r = 0; r < n; r++) {
    offsets[r] = total;
    total += Math.ceil(sizes[r]! / PART_ALIGN) * PART_ALIGN;
  }
  const segment = nodeSegment(world, req, Math.max(total, PART_ALIGN), areaBytes, policy);
  const all = new Uint8Array(segment.buffer);
  const mem = localMemory(all, segment);
  const atomics = new AtomicViews(segment.buffer);
  const words = wordViews(mem);
  const me = req.rank;
  return {
    bytes: all.subarray(offsets[me]!, offsets[me]! + size),
    shared: { bytes: all, offsets },
    parts: Array.from({ length: n }, (_, r) => ({ mem, base: offsets[r]!, atomics, words })),
    areas: Array.from({ length: n }, (_, r) => ({ mem, at: (r * areaBytes) >> 2, local: true })),
    release: () => undefined,
    remove: () => undefined,
  };
}

/**
 * Collective over `req`: lock areas for a window whose parts are not in one node segment, and,
 * when `exposedPart` is given (every rank's, or none), direct access to the parts it names.
 * CPU atomics on a part or lock area are used only where this rank shares memory with its owner.
 */
export function spreadWindow(world: World, req: Intracomm, worldRanks: Int32Array, bytes: Uint8Array,
                             exposedPart: ExposedMemory | null, policy: LockPolicy): WindowMemory {
  const n = req.size;
  const me = req.rank;
  const sharesMemory = (r: number): boolean => world.sharesMemoryWith(worldRanks[r]!);
  const areaBytes = lockAreaBytes(n);
  const releases: (() => void)[] = [];
  const removes: (() => void)[] = [];

  // Lock areas: exported per rank when we run ch_sci, else one node segment (all ranks are on our node).
  const ownArea = world.exposeMemory(areaBytes);
  const areas: LockArea[] = [];
  if (ownArea !== null) {
    initLockArea(ownArea.words, 0, policy);
    removes.push(() => ownArea.remove());
    const ids = new Float64Array(n);
    req.Allgather(Float64Array.of(ownArea.id), ids);
    for (let r = 0; r < n; r++) {
      if (r === me) {
        areas.push({ mem: ownArea, at: 0, local: true });
        continue;
      }
      const m = world.mapMemory(worldRanks[r]!, ids[r]!, areaBytes);
      releases.push(() => m.release());
      areas.push({ mem: m, at: 0, local: sharesMemory(r) });
    }
  } else {
    const segment = nodeSegment(world, req, n * areaBytes, areaBytes, policy);
    const mem = localMemory(new Uint8Array(segment.buffer), segment);
    for (let r = 0; r < n; r++) areas.push({ mem, at: (r * areaBytes) >> 2, local: true });
  }

  // Parts: direct access when every rank's part is exposed memory.
  // (segment id, byte offset of the part in it, part bytes) per rank; id -1: not exposed.
  const base = exposedPart !== null ? bytes.byteOffset - exposedPart.bytes.byteOffset : 0;
  const parts3 = new Float64Array(3 * n);
  req.Allgather(Float64Array.of(exposedPart !== null ? exposedPart.id : -1, base, bytes.length), parts3);
  let parts: Part[] | null = null;
  if (Array.from({ length: n }, (_, r) => parts3[3 * r]!).every((id) => id >= 0)) {
    parts = [];
    for (let r = 0; r < n; r++) {
      if (r === me) {
        parts.push({ mem: exposedPart!, base, atomics: new AtomicViews(exposedPart!.words.buffer), words: wordViews(exposedPart!) });
        continue;
      }
      const at = parts3[3 * r + 1]!;
      const m: MappedMemory = world.mapMemory(worldRanks[r]!, parts3[3 * r]!, at + parts3[3 * r + 2]!);
      releases.push(() => m.release());
      parts.push({ mem: m, base: at, atomics: sharesMemory(r) ? new AtomicViews(m.words.buffer) : null, words: wordViews(m) });
    }
  }
  return {
    bytes, shared: null, parts, areas,
    release: () => { for (const f of releases) f(); },
    remove: () => { for (const f of removes) f(); },
  };
}
