// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { BusinessCard } from './business-card.js';

/**
 * The memory contract between a device and the window layer (src/osc): what a device declares
 * it can do with memory (capability flags, read without opening it), and the services behind
 * those flags. The model is Open MPI's btl flags (FLAGS_PUT, FLAGS_GET, FLAGS_ATOMIC_OPS with
 * btl_atomic_flags) and MPICH ch4's netmod RMA hooks: the window layer chooses, per target,
 * how to reach that target's memory from the flags of the device that reaches it
 * (src/osc/select.ts), and never asks a device by name.
 *
 * Three kinds of memory access, one flag each:
 *   MEM_LOAD_STORE  the target's memory is mapped into ours (same node): Put and Get are
 *                   stores and loads, complete when they return; with MEM_CPU_ATOMICS the
 *                   CPU's atomic instructions on it are atomic with the owner's (ch_shmem, self).
 *   MEM_EXPORTED    the target exports segments that ranks of other nodes map: loads read them
 *                   (remote reads), stores are posted remote writes ordered by a store barrier,
 *                   a block copy is checked (RMA_CHECKED: SCI's sequence check) and complete on
 *                   return. No remote atomics on SCI: read-modify-writes need a mutex made of
 *                   loads and stores (Lamport's, in src/osc/lock-area.ts) (ch_sci).
 *   RMA_PUT/GET/ATOMICS without a mapping: a network device (ch_ucx) that moves bytes by
 *                   device operations addressed by (target, key, offset, length), complete at
 *                   flush(target) (RMA_FLUSH), with atomics of the widths and ops its masks
 *                   name (src/osc/device-rma.ts).
 *
 * Remote keys: a region is named by the key its owner got when it exposed or registered it. For
 * exported memory that is a number (ch_sci's segment id); for registered memory it is opaque
 * bytes (ch_ucx: the region's address and UCX's packed rkey), which an origin imports once
 * (importKey) into a number, the handle its device operations take. The window layer exchanges
 * every rank's keys when it creates a window, and an origin addresses a target's memory as
 * (target, key, offset).
 */

/** Memory of the peer is mapped here and reached by CPU loads and stores (same node). */
export const MEM_LOAD_STORE = 1 << 0;
/** CPU atomics on mapped memory are atomic with the owner's and every other mapper's. */
export const MEM_CPU_ATOMICS = 1 << 1;
/** The device exports segments that ranks of other nodes map (expose/map of RmaService). */
export const MEM_EXPORTED = 1 << 2;
/** Writes into a target's memory (stores into mapped memory, or the device's put). */
export const RMA_PUT = 1 << 3;
/** Reads of a target's memory (loads from mapped memory, or the device's get). */
export const RMA_GET = 1 << 4;
/** Atomic read-modify-writes on a target's memory by the device (atomicWidths, atomicOps). */
export const RMA_ATOMICS = 1 << 5;
/** Block writes are checked for transfer errors and rewritten (SCI's sequence check). */
export const RMA_CHECKED = 1 << 6;
/** Operations complete at flush(target), not when they return. */
export const RMA_FLUSH = 1 << 7;

/** Atomic widths, as a mask of byte sizes. */
export const WIDTH_1 = 1 << 0;
export const WIDTH_2 = 1 << 1;
export const WIDTH_4 = 1 << 2;
export const WIDTH_8 = 1 << 3;
export const ALL_WIDTHS = WIDTH_1 | WIDTH_2 | WIDTH_4 | WIDTH_8;

/** Atomic operations, as a mask (Open MPI's MCA_BTL_ATOMIC_SUPPORTS_*). */
export const ATOMIC_ADD = 1 << 0;
export const ATOMIC_AND = 1 << 1;
export const ATOMIC_OR = 1 << 2;
export const ATOMIC_XOR = 1 << 3;
export const ATOMIC_SWAP = 1 << 4;
export const ATOMIC_CSWAP = 1 << 5;
/** Any other op (min, max, products, floating point) by a compare-and-swap loop on the element's bits. */
export const ATOMIC_ANY = 1 << 6;
export const ALL_ATOMICS = ATOMIC_ADD | ATOMIC_AND | ATOMIC_OR | ATOMIC_XOR | ATOMIC_SWAP | ATOMIC_CSWAP | ATOMIC_ANY;

/** What a device can do with memory (DeviceDescriptor.memory). */
export interface MemoryCapabilities {
  /** MEM_* and RMA_* flags. */
  readonly flags: number;
  /** Widths of its atomics (WIDTH_* mask; 0 without MEM_CPU_ATOMICS or RMA_ATOMICS). */
  readonly atomicWidths: number;
  /** Its atomic operations (ATOMIC_* mask; 0 without atomics). */
  readonly atomicOps: number;
}

/** A device that reaches no memory: everything one-sided goes as messages to the target's agent. */
export const NO_MEMORY: MemoryCapabilities = { flags: 0, atomicWidths: 0, atomicOps: 0 };

export function hasFlags(caps: MemoryCapabilities, flags: number): boolean {
  return (caps.flags & flags) === flags;
}

// ------------------------------------------------------------------ node memory (MEM_LOAD_STORE)

/**
 * A shared segment for a group of ranks of one node (one-sided windows, the shm_counter
 * barrier). One member creates it under the job's segment prefix (so the launcher's sweep
 * removes it after a crash), tells the others its name, they open it, and the creator unlinks
 * the name once all have: the mapping lives on in every member until it is dropped, and
 * nothing is left behind.
 */
export interface NodeRegion {
  readonly name: string;
  readonly words: Int32Array;
  /** Removes the name (creator only; once every member has opened the segment). */
  unlink(): void;
}

/** The node's shared memory, offered by a device with MEM_LOAD_STORE (DeviceDescriptor.nodeMemory). */
export interface NodeMemory {
  /** Creates a region of `bytes` (zeroed) named after the job and the creating world rank. */
  create(jobId: string, worldRank: number, bytes: number): NodeRegion;
  /** Opens the region another member created. */
  open(name: string): NodeRegion;
}

// ------------------------------------------------------------------ exported memory (MEM_EXPORTED)

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

/** Our exposed memory: `id` is the remote key others reach it by (with our rank). */
export interface ExposedMemory extends RemoteAccessMemory {
  readonly id: number;
  /** After every mapping of it was released (a collective point). */
  remove(): void;
}

/** Another rank's exposed memory, mapped here. */
export interface MappedMemory extends RemoteAccessMemory {
  release(): void;
}

// ------------------------------------------------------------------ registered memory (RMA_PUT/GET)

/** Memory this rank registered with a network device for the device operations of others. */
export interface RegisteredMemory {
  /** What others name it by: opaque bytes (importKey turns them into a handle at the origin). */
  readonly key: Uint8Array;
  /** After every origin is done with it (a collective point): deregisters it. */
  release(): void;
}

/** A remote key as the window layer exchanges it: a number (exported memory) or bytes (registered memory). */
export type RemoteKey = number | Uint8Array;

/**
 * The RMA service of an opened device (Device.rma), behind its capability flags. A device with
 * MEM_EXPORTED implements expose and map (ch_sci: exported SISCI segments, behind
 * MPI.Alloc_mem(type=shared) and windows across nodes, 003b §3.1). A network device implements
 * register, importKey and the device operations (RMA_PUT, RMA_GET, RMA_ATOMICS, RMA_FLUSH):
 * addressed by the target's world rank, the handle importKey gave for its key and an offset,
 * posted when they return and complete at flush (atomic waits for its own result).
 */
export interface RmaService {
  /** The device operations' capabilities (the network device's descriptor memory), when it has them. */
  readonly caps?: MemoryCapabilities;
  /** Whether the device operations reach `target` (a world rank), also one another device carries. */
  reaches?(target: number): boolean;
  /** Exposes `bytes` of new memory every rank running this device can reach; its id is the key. */
  expose?(bytes: number): ExposedMemory;
  /** Maps memory the rank of `owner` exposed under key `id` (`owner` is its business card). */
  map?(owner: BusinessCard, id: number, bytes: number): MappedMemory;
  /** Registers `memory` (which stays where it is) for the device operations of other ranks. */
  register?(memory: Uint8Array): RegisteredMemory;
  /** The handle of `target`'s key `key` (its register()'s bytes) for put/get/atomic. */
  importKey?(target: number, key: Uint8Array): number;
  /** Forgets a handle (before the target releases the memory). */
  dropKey?(handle: number): void;
  /** Writes src[srcOffset, +length) at `offset` of the region; `src` must stay unchanged until flush(target). */
  put?(target: number, key: number, offset: number, src: Uint8Array, srcOffset: number, length: number): void;
  /** Reads `length` bytes at `offset` of the region into `dst`, which holds them after flush(target). */
  get?(target: number, key: number, offset: number, dst: Uint8Array, dstOffset: number, length: number): void;
  /**
   * One atomic of `width` bytes (4 or 8) and ATOMIC_* op (ATOMIC_CSWAP: store `operand` where the
   * word equals `compare`) at an aligned offset; waits for it and returns the word's old value
   * (as an unsigned integer of `width` bytes).
   */
  atomic?(target: number, key: number, offset: number, op: number, width: number, operand: bigint, compare: bigint): bigint;
  /** An atomic as atomic() that fetches nothing: posted, complete at flush(target). */
  post?(target: number, key: number, offset: number, op: number, width: number, operand: bigint): void;
  /** Completes every operation issued to `target` so far, at the target too. */
  flush?(target: number): void;
}
