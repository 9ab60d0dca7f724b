import type { ExposedMemory, MappedMemory, MemoryCapabilities, RemoteAccessMemory } from '../mpid/memory.js';
import type { World } from '../mpid/world.js';
import { AtomicViews } from './atomic.js';
import type { WindowComm } from './channel.js';
import { initLockArea, type LockArea, lockAreaBytes } from './lock-area.js';
import type { LockPolicy } from './select.js';
import { cpuAtomics, exportedReach, selectLock } from './select.js';

/** Parts of a node-segment window start on cache-line boundaries. */
const PART_ALIGN = 64;

/**
 * Where a window's memory and lock areas live, and how this rank reaches each part:
 *  - node segment (Allocate with every rank on one node, Allocate_shared): one segment of the
 *    node's memory (World.nodeMemory) every rank maps, the lock areas first, then each part;
 *  - exposed (Allocate across SCI nodes, Create on MPI.Alloc_mem memory of info type=shared):
 *    each rank's part is memory it exported (World.exposeMemory: a SISCI segment), mapped by
 *    every other rank under the key exchanged here;
 *  - process memory (Create on other memory): reached only through the owner's agent.
 * Lock areas: in the node segment; otherwise in a small exposed segment per rank when a device
 * here exports memory, else (every rank on one node) in a node segment of the window's ranks.
 * Each part and area records the capabilities it is reached with (select.ts chooses by them).
 */

/** A target's part as this rank reaches it for direct access. */
export interface Part {
  readonly mem: RemoteAccessMemory;
  /** Byte offset of the part in mem.bytes. */
  readonly base: number;
  /** What this rank can do with the part's memory (select.ts). */
  readonly reach: MemoryCapabilities;
  /** CPU atomics on it (reach has them: this rank shares memory with the owner); null otherwise. */
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
  /** Each target's part as this rank maps it, or null (not mapped: operations go through the owners' agents). */
  readonly parts: (Part | null)[];
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
 * Collective over `comm` (ranks of one node): rank 0 makes a node segment of `bytes` with the
 * lock areas of all ranks at its start, the others open it by name, and the name is removed
 * once all have.
 */
function nodeSegment(world: World, comm: WindowComm, bytes: number, areaBytes: number, policy: LockPolicy): Int32Array {
  const memory = world.nodeMemory;
  if (memory === null) throw new Error('osc: no device offers node memory for a window of ranks of one node');
  const region = comm.rank === 0 ? memory.create(world.jobId, world.rank, bytes) : null;
  if (region !== null) for (let r = 0; r < comm.size; r++) initLockArea(region.words, (r * areaBytes) >> 2, policy);
  const name = comm.bcastName(region?.name ?? null, 0);
  const mapped = region ?? memory.open(name);
  comm.barrier();
  region?.unlink();
  return mapped.words;
}

/** Collective over `comm`: a node segment with every rank's lock area and part (aligned). */
export function nodeSegmentWindow(world: World, comm: WindowComm, size: number, policy: LockPolicy): WindowMemory {
  const n = comm.size;
  const sizes = new Float64Array(n);
  comm.allgather(Float64Array.of(size), sizes);
  const areaBytes = lockAreaBytes(n);
  const offsets = new Float64Array(n);
  let total = n * areaBytes;
  for (let r = 0; r < n; r++) {
    offsets[r] = total;
    total += Math.ceil(sizes[r]! / PART_ALIGN) * PART_ALIGN;
  }
  const segment = nodeSegment(world, comm, Math.max(total, PART_ALIGN), areaBytes, policy);
  const all = new Uint8Array(segment.buffer);
  const mem = localMemory(all, segment);
  const reach = world.nodeMemoryCaps!;
  const atomics = cpuAtomics(reach) ? new AtomicViews(segment.buffer) : null;
  const words = wordViews(mem);
  const lock = selectLock(reach, policy);
  const me = comm.rank;
  return {
    bytes: all.subarray(offsets[me]!, offsets[me]! + size),
    shared: { bytes: all, offsets },
    parts: Array.from({ length: n }, (_, r) => ({ mem, base: offsets[r]!, reach, atomics, words })),
    areas: Array.from({ length: n }, (_, r) => ({ mem, at: (r * areaBytes) >> 2, method: lock })),
    release: () => undefined,
    remove: () => undefined,
  };
}

/**
 * Collective over `comm`: lock areas for a window whose parts are not in one node segment, and,
 * when `exposedPart` is given (every rank's, or none), direct access to the parts it names.
 * CPU atomics on a part or lock area are used only where its reach has them.
 */
export function spreadWindow(world: World, comm: WindowComm, bytes: Uint8Array, exposedPart: ExposedMemory | null,
                             policy: LockPolicy): WindowMemory {
  const n = comm.size;
  const me = comm.rank;
  const worldRanks = comm.worldRanks;
  const exportCaps = world.exportedMemoryCaps;
  const reachOf = (r: number): MemoryCapabilities => exportedReach(world.memoryCapsOf(worldRanks[r]!), exportCaps!);
  const areaBytes = lockAreaBytes(n);
  const releases: (() => void)[] = [];
  const removes: (() => void)[] = [];

  // Lock areas: exported per rank when a device here exports memory, else one node segment (all ranks are on our node).
  const ownArea = world.exposeMemory(areaBytes);
  const areas: LockArea[] = [];
  if (ownArea !== null) {
    initLockArea(ownArea.words, 0, policy);
    removes.push(() => ownArea.remove());
    const keys = new Float64Array(n);
    comm.allgather(Float64Array.of(ownArea.id), keys);
    for (let r = 0; r < n; r++) {
      const method = selectLock(reachOf(r), policy);
      if (r === me) {
        areas.push({ mem: ownArea, at: 0, method });
        continue;
      }
      const m = world.mapMemory(worldRanks[r]!, keys[r]!, areaBytes);
      releases.push(() => m.release());
      areas.push({ mem: m, at: 0, method });
    }
  } else {
    const segment = nodeSegment(world, comm, n * areaBytes, areaBytes, policy);
    const mem = localMemory(new Uint8Array(segment.buffer), segment);
    const method = selectLock(world.nodeMemoryCaps!, policy);
    for (let r = 0; r < n; r++) areas.push({ mem, at: (r * areaBytes) >> 2, method });
  }

  // Parts: direct access when every rank's part is exposed memory.
  // (key, byte offset of the part in it, part bytes) per rank; key -1: not exposed.
  const base = exposedPart !== null ? bytes.byteOffset - exposedPart.bytes.byteOffset : 0;
  const parts3 = new Float64Array(3 * n);
  comm.allgather(Float64Array.of(exposedPart !== null ? exposedPart.id : -1, base, bytes.length), parts3);
  const parts: (Part | null)[] = new Array<Part | null>(n).fill(null);
  if (Array.from({ length: n }, (_, r) => parts3[3 * r]!).every((id) => id >= 0)) {
    for (let r = 0; r < n; r++) {
      const reach = reachOf(r);
      if (r === me) {
        parts[r] = { mem: exposedPart!, base, reach, atomics: new AtomicViews(exposedPart!.words.buffer), words: wordViews(exposedPart!) };
        continue;
      }
      const at = parts3[3 * r + 1]!;
      const m: MappedMemory = world.mapMemory(worldRanks[r]!, parts3[3 * r]!, at + parts3[3 * r + 2]!);
      releases.push(() => m.release());
      parts[r] = { mem: m, base: at, reach, atomics: cpuAtomics(reach) ? new AtomicViews(m.words.buffer) : null, words: wordViews(m) };
    }
  }
  return {
    bytes, shared: null, parts, areas,
    release: () => { for (const f of releases) f(); },
    remove: () => { for (const f of removes) f(); },
  };
}
