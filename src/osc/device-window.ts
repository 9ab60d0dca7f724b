// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import {
  ALL_ATOMICS, ALL_WIDTHS, MEM_CPU_ATOMICS, MEM_LOAD_STORE, type MemoryCapabilities, type RegisteredMemory, type RmaService,
} from '../mpid/memory.js';
import type { World } from '../mpid/world.js';
import { AtomicViews } from './atomic.js';
import type { WindowComm } from './channel.js';
import type { RemotePart } from './device-rma.js';
import { initLockArea, type LockArea, lockAreaBytes } from './lock-area.js';
import { LOCK_AGENT, LOCK_CPU, LOCK_DEVICE, type LockPolicy } from './select.js';
import type { Part, WindowMemory } from './window-memory.js';

/** Parts in a group's segment start on cache-line boundaries. */
const PART_ALIGN = 64;

/** Memory of our own process, or a segment of our host's memory: loads, stores and CPU atomics. */
const LOCAL_CAPS: MemoryCapabilities = { flags: MEM_LOAD_STORE | MEM_CPU_ATOMICS, atomicWidths: ALL_WIDTHS, atomicOps: ALL_ATOMICS };

/** A window whose ranks of other hosts are reached by a network device's operations. */
export interface DeviceWindowMemory extends WindowMemory {
  /** Each target's part as the device reaches it (null: ours, or our host's, or not reached by the device). */
  readonly remote: (RemotePart | null)[];
  /** Whether each remote part's owner applies updates with CPU atomics (device atomics may then mix with them). */
  readonly atomicParts: boolean[];
}

/**
 * Whether a window over `comm` goes across hosts by device RMA (collective: every rank must
 * agree, so each says whether a network device reaches all ranks it does not share memory
 * with, and all must say yes; false at once where no such device runs, the same on every rank).
 */
export function deviceWindowPossible(world: World, comm: WindowComm): boolean {
  if (!world.hasDeviceRma()) return false;
  let apart = 0;
  let ok = 1;
  for (const w of comm.worldRanks) {
    if (world.sharesMemoryWith(w)) continue;
    apart++;
    if (world.deviceRmaOf(w) === null) ok = 0;
  }
  const all = new Float64Array(2 * comm.size);
  comm.allgather(Float64Array.of(ok, apart), all);
  let anyApart = false;
  for (let r = 0; r < comm.size; r++) {
    if (all[2 * r] === 0) return false;
    if (all[2 * r + 1]! > 0) anyApart = true;
  }
  return anyApart;
}

/**
 * Collective over `comm` (after deviceWindowPossible said yes): the window memory of research
 * 004's setting, ranks on several hosts.
 *
 * The ranks that share memory (one host: ch_shmem; under TSMPI_DEVICE=ucx each rank alone) form
 * a group. Each group has one segment of its host's memory (a plain SharedArrayBuffer for a
 * group of one) holding the lock areas of its members, then, for Win.Allocate (`own` null), their
 * parts. Ranks of a group reach each other's parts and areas by loads, stores and CPU atomics
 * (direct access, the lock's cpu mode); every rank registers its group's segment (and, for
 * Win.Create, its own memory) with the network device, and the keys are exchanged here, so a
 * rank of another group reaches a part by the device's put/get/atomics on the owner's own
 * registration: the owner's device (its progress thread over tcp) serves them, nobody else.
 * Dynamic windows (`dynamic`): the lock areas only; their parts stay with the owners' agents.
 */
export function deviceWindow(world: World, comm: WindowComm, own: Uint8Array | null, size: number, policy: LockPolicy,
                             dynamic = false): DeviceWindowMemory {
  const n = comm.size;
  const me = comm.rank;
  const worldRanks = comm.worldRanks;
  // Groups: the lowest rank we share memory with names ours.
  let leader = me;
  for (let r = 0; r < n; r++) {
    if (world.sharesMemoryWith(worldRanks[r]!)) {
      leader = r;
      break;
    }
  }
  const info = new Float64Array(2 * n);
  comm.allgather(Float64Array.of(leader, size), info);
  const groupOf = Array.from({ length: n }, (_, r) => info[2 * r]!);
  const sizes = Array.from({ length: n }, (_, r) => info[2 * r + 1]!);
  const areaBytes = lockAreaBytes(n);
  // Each rank's area and part offset in its group's segment, and each group's bytes.
  const areaAt = new Float64Array(n);
  const partAt = new Float64Array(n);
  const groupBytes = new Map<number, number>();
  for (let r = 0; r < n; r++) {
    const g = groupOf[r]!;
    areaAt[r] = groupBytes.get(g) ?? 0;
    groupBytes.set(g, areaAt[r]! + areaBytes);
  }
  if (own === null) {
    for (let r = 0; r < n; r++) {
      const g = groupOf[r]!;
      partAt[r] = groupBytes.get(g)!;
      groupBytes.set(g, partAt[r]! + Math.ceil(Math.max(sizes[r]!, 1) / PART_ALIGN) * PART_ALIGN);
    }
  }
  const segment = groupSegment(world, comm, groupOf, groupBytes, areaAt, policy);
  const words = new Int32Array(segment);
  const bytes = new Uint8Array(segment);
  const localMem = { bytes, words, write: (o: number, src: Uint8Array, s: number, len: number) => bytes.set(src.subarray(s, s + len), o),
    storeBarrier: () => undefined };
  const atomics = new AtomicViews(segment);
  const wordViews = { i32: words, i64: new BigInt64Array(segment, 0, Math.floor(segment.byteLength / 8)) };

  // Registrations and their keys: the segment's, and (Win.Create) our own memory's.
  const rma = serviceFor(world, comm);
  const registered: RegisteredMemory[] = [rma.register!(bytes)];
  if (own !== null && !dynamic) registered.push(rma.register!(own));
  const ownAtomic = own === null || own.buffer instanceof SharedArrayBuffer;
  const segKeys = exchangeKeys(comm, registered[0]!.key);
  const partKeys = own !== null && !dynamic ? exchangeKeys(comm, registered[1]!.key) : segKeys;
  const atomicFlags = new Float64Array(n);
  comm.allgather(Float64Array.of(ownAtomic ? 1 : 0), atomicFlags);

  const imported: { service: RmaService; handle: number }[] = [];
  const parts: (Part | null)[] = new Array<Part | null>(n).fill(null);
  const remote: (RemotePart | null)[] = new Array<RemotePart | null>(n).fill(null);
  const areas: LockArea[] = [];
  const myGroup = groupOf[me]!;
  for (let r = 0; r < n; r++) {
    const w = worldRanks[r]!;
    if (groupOf[r] === myGroup) {
      if (own === null) parts[r] = { mem: localMem, base: partAt[r]!, reach: LOCAL_CAPS, atomics, words: wordViews };
      areas.push({ mem: localMem, at: areaAt[r]! >> 2, method: LOCK_CPU });
      continue;
    }
    const service = world.deviceRmaOf(w)!;
    const segKey = service.importKey!(w, segKeys[r]!);
    imported.push({ service, handle: segKey });
    let partKey = segKey;
    if (own !== null && !dynamic) {
      partKey = service.importKey!(w, partKeys[r]!);
      imported.push({ service, handle: partKey });
    }
    if (!dynamic) remote[r] = { rma: service, target: w, key: partKey, base: own === null ? partAt[r]! : 0, reach: service.caps! };
    areas.push(policy === 'cpu'
      ? { mem: localMem, at: 0, method: LOCK_AGENT }
      : { mem: localMem, at: 0, method: LOCK_DEVICE, device: { rma: service, target: w, key: segKey, base: areaAt[r]! } });
  }
  return {
    bytes: own ?? bytes.subarray(partAt[me]!, partAt[me]! + size),
    shared: null,
    parts,
    areas,
    remote,
    atomicParts: Array.from({ length: n }, (_, r) => atomicFlags[r] === 1),
    release: () => { for (const k of imported) k.service.dropKey!(k.handle); },
    remove: () => { for (const m of registered) m.release(); },
  };
}

/** The network device's RMA service (the one that reaches the first rank we share no memory with). */
function serviceFor(world: World, comm: WindowComm): RmaService {
  for (const w of comm.worldRanks) {
    if (world.sharesMemoryWith(w)) continue;
    const s = world.deviceRmaOf(w);
    if (s !== null) return s;
  }
  throw new Error('osc: no network device reaches the ranks of this window that share no memory with us');
}

/**
 * Collective: our group's segment, lock areas set up. A group of one makes a SharedArrayBuffer;
 * a larger group's leader creates a segment of the host's memory, every leader's name goes to
 * all (one broadcast per such group, in rank order), its members open it, and the name is
 * removed after a barrier, once all have.
 */
function groupSegment(world: World, comm: WindowComm, groupOf: number[], groupBytes: Map<number, number>, areaAt: Float64Array,
                      policy: LockPolicy): SharedArrayBuffer {
  const me = comm.rank;
  const mine = groupOf[me]!;
  const members = groupOf.map((g, r) => (g === mine ? r : -1)).filter((r) => r >= 0);
  const total = Math.max(groupBytes.get(mine)!, PART_ALIGN);
  const init = (words: Int32Array): void => { for (const r of members) initLockArea(words, areaAt[r]! >> 2, policy); };
  const leaders = [...new Set(groupOf)].filter((g) => groupOf.filter((x) => x === g).length > 1).sort((a, b) => a - b);
  if (members.length === 1 && leaders.length === 0) {
    const sab = new SharedArrayBuffer(total);
    init(new Int32Array(sab));
    return sab;
  }
  const memory = world.nodeMemory;
  if (memory === null && leaders.length > 0) throw new Error('osc: no device offers node memory for the ranks of one host in a window');
  let region = null;
  if (leaders.includes(me)) {
    region = memory!.create(world.jobId, world.rank, total);
    init(region.words);
  }
  let mapped: SharedArrayBuffer | null = null;
  for (const l of leaders) {
    const name = comm.bcastName(l === me ? region!.name : null, l);
    if (l === mine) mapped = (region ?? memory!.open(name)).words.buffer as SharedArrayBuffer;
  }
  comm.barrier();
  region?.unlink();
  if (mapped === null) {
    const sab = new SharedArrayBuffer(total);
    init(new Int32Array(sab));
    return sab;
  }
  return mapped;
}

/** Collective: every rank's key bytes (lengths first, then the keys padded to the longest). */
function exchangeKeys(comm: WindowComm, key: Uint8Array): Uint8Array[] {
  const n = comm.size;
  const lengths = new Float64Array(n);
  comm.allgather(Float64Array.of(key.length), lengths);
  const slot = Math.ceil(Math.max(...lengths) / 8);
  const mine = new Float64Array(slot);
  new Uint8Array(mine.buffer).set(key);
  const all = new Float64Array(slot * n);
  comm.allgather(mine, all);
  const raw = new Uint8Array(all.buffer);
  return Array.from({ length: n }, (_, r) => raw.slice(r * slot * 8, r * slot * 8 + lengths[r]!));
}
