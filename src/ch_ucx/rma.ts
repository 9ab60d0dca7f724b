import {
  addon, UCX_AMO_ADD, UCX_AMO_AND, UCX_AMO_CSWAP, UCX_AMO_OR, UCX_AMO_SWAP, UCX_AMO_XOR, type UcxContext,
  type UcxEndpoint, type UcxRkey, type UcxWorker,
} from '../native/addon.js';
import {
  ATOMIC_ADD, ATOMIC_AND, ATOMIC_CSWAP, ATOMIC_OR, ATOMIC_SWAP, ATOMIC_XOR, type MemoryCapabilities, RMA_ATOMICS,
  RMA_FLUSH, RMA_GET, RMA_PUT, type RegisteredMemory, type RmaService, WIDTH_4, WIDTH_8,
} from '../mpid/memory.js';

/**
 * What ch_ucx does with memory: UCX's put, get and atomics (4 and 8 bytes: add, and, or, xor,
 * swap, compare-and-swap), complete at flush. No mapping: the window layer reaches its targets
 * by these operations (src/osc/device-rma.ts).
 */
export const UCX_MEMORY: MemoryCapabilities = {
  flags: RMA_PUT | RMA_GET | RMA_ATOMICS | RMA_FLUSH,
  atomicWidths: WIDTH_4 | WIDTH_8,
  atomicOps: ATOMIC_ADD | ATOMIC_AND | ATOMIC_OR | ATOMIC_XOR | ATOMIC_SWAP | ATOMIC_CSWAP,
};

/** Completion tokens of one-sided operations (device.ts hands them here): kind in bits 24-31, the target below. */
export const TOKEN_RMA = 4 << 24;
const TOKEN_RMA_FLUSH = 5 << 24;
const TOKEN_RMA_ATOMIC = 6 << 24;
export const TOKEN_RMA_KINDS = [TOKEN_RMA, TOKEN_RMA_FLUSH, TOKEN_RMA_ATOMIC] as const;
const TARGET_MASK = 0xffffff;


/** A key's bytes: the region's address (float64, exact below 2^53), then UCX's packed rkey. */
const ADDRESS_BYTES = 8;

const AMO_OF: Record<number, number> = {
  [ATOMIC_ADD]: UCX_AMO_ADD, [ATOMIC_AND]: UCX_AMO_AND, [ATOMIC_OR]: UCX_AMO_OR, [ATOMIC_XOR]: UCX_AMO_XOR,
  [ATOMIC_SWAP]: UCX_AMO_SWAP, [ATOMIC_CSWAP]: UCX_AMO_CSWAP,
};

interface ImportedKey {
  readonly target: number;
  readonly ep: UcxEndpoint;
  readonly rkey: UcxRkey;
  readonly base: number;
}

/**
 * ch_ucx's RMA service (memory.ts): window memory registered with ucp_mem_map, its packed rkey
 * as the key, and put/get/atomic/flush on the endpoint of the target. Operations that UCX does
 * not finish within the call are counted per target until their completion arrives (device.ts
 * routes TOKEN_RMA* completions to complete()); flush(target) flushes the endpoint and waits
 * for both. Waiting is progress of the device (its poll), so messages keep flowing meanwhile.
 *
 * Over tcp, UCX does put, get and atomics in software at the target, during the target's worker
 * progress; the binding's progress thread (ucx_wake.cc) does that progress while the target's
 * JavaScript computes, so passive-target epochs do not wait for it.
 */
export class UcxRma implements RmaService {
  readonly caps = UCX_MEMORY;
  private readonly keys: (ImportedKey | null)[] = [];
  private readonly freeKeys: number[] = [];
  /** Operations in flight per target (their completion has not arrived). */
  private inFlight: Int32Array;
  private flushing: Int32Array;
  /** Targets written (or read) since their last flush: a put UCX finished in the call may still be on its way. */
  private written: Uint8Array;
  private atomicPending = false;
  private failure = 0;
  private serving = false;
  private idlePolls = 0;
  /** Operands (compare, then value) and the fetched word: aligned scratch, reused. */
  private readonly operands = new BigUint64Array(2);
  private readonly operandBytes = new Uint8Array(this.operands.buffer);
  private readonly operands32 = new Uint32Array(this.operands.buffer);
  private readonly result = new BigUint64Array(1);
  private readonly resultBytes = new Uint8Array(this.result.buffer);
  private readonly result32 = new Uint32Array(this.result.buffer);
  /** Counters (MPI.T, tests). */
  readonly counters = { puts: 0, gets: 0, atomics: 0, flushes: 0, registered: 0 };

  constructor(
    private readonly context: UcxContext,
    private readonly worker: UcxWorker,
    private readonly eps: readonly (UcxEndpoint | null)[],
    /** One step of the device's progress (drains completions into complete()); how much it moved. */
    private readonly poll: () => number,
    /** Sleeps until UCX has an event (on the rank's doorbell). */
    private readonly sleep: () => void,
    /** Fruitless polls before a wait sleeps. */
    private readonly spinBudget: number,
    /** Throws the device's error for a lost peer. */
    private readonly lost: (target: number, status: number) => never,
  ) {
    this.inFlight = new Int32Array(eps.length);
    this.flushing = new Int32Array(eps.length);
    this.written = new Uint8Array(eps.length);
  }

  reaches(target: number): boolean {
    return this.eps[target] !== null && this.eps[target] !== undefined;
  }

  register(memory: Uint8Array): RegisteredMemory {
    // UCX refuses an empty map; a window part of 0 bytes is still a region others may name.
    const mapped = memory.length > 0 ? memory : new Uint8Array(new ArrayBuffer(8));
    const mem = addon.ucxMemMap(this.context, mapped);
    // From now on others reach our memory: the relay progresses our worker while we compute.
    if (!this.serving) addon.ucxBellServe(this.worker, (this.serving = true));
    const rkey = addon.ucxRkeyPack(mem);
    const key = new Uint8Array(ADDRESS_BYTES + rkey.length);
    new Float64Array(key.buffer, 0, 1)[0] = addon.ucxMemAddress(mem);
    key.set(rkey, ADDRESS_BYTES);
    this.counters.registered++;
    return { key, release: () => addon.ucxMemUnmap(mem) };
  }

  importKey(target: number, key: Uint8Array): number {
    if (key.length <= ADDRESS_BYTES) throw new Error(`ch_ucx: a remote key of ${key.length} bytes from rank ${target} is not a ch_ucx key`);
    const ep = this.endpoint(target);
    const copy = key.slice();
    const base = new Float64Array(copy.buffer, 0, 1)[0]!;
    const rkey = addon.ucxRkeyUnpack(ep, copy.subarray(ADDRESS_BYTES));
    const handle = this.freeKeys.length > 0 ? this.freeKeys.pop()! : this.keys.length;
    this.keys[handle] = { target, ep, rkey, base };
    return handle;
  }

  dropKey(handle: number): void {
    const k = this.keys[handle];
    if (k === null || k === undefined) return;
    addon.ucxRkeyDestroy(k.rkey);
    this.keys[handle] = null;
    this.freeKeys.push(handle);
  }

  put(target: number, key: number, offset: number, src: Uint8Array, srcOffset: number, length: number): void {
    if (length === 0) return;
    const k = this.keyOf(target, key);
    this.posted(target, addon.ucxPut(k.ep, src, srcOffset, length, k.base + offset, k.rkey, TOKEN_RMA | target));
    this.counters.puts++;
  }

  get(target: number, key: number, offset: number, dst: Uint8Array, dstOffset: number, length: number): void {
    if (length === 0) return;
    const k = this.keyOf(target, key);
    this.posted(target, addon.ucxGet(k.ep, dst, dstOffset, length, k.base + offset, k.rkey, TOKEN_RMA | target));
    this.counters.gets++;
  }

  atomic(target: number, key: number, offset: number, op: number, width: number, operand: bigint, compare: bigint): bigint {
    const k = this.keyOf(target, key);
    const amo = AMO_OF[op];
    if (amo === undefined || (width !== 4 && width !== 8)) throw new Error(`ch_ucx: no UCX atomic for op ${op} of ${width} bytes`);
    if (width === 8) {
      this.operands[0] = BigInt.asUintN(64, amo === UCX_AMO_CSWAP ? compare : operand);
      this.operands[1] = BigInt.asUintN(64, operand);
    } else {
      this.operands32[0] = Number(BigInt.asUintN(32, amo === UCX_AMO_CSWAP ? compare : operand));
      this.operands32[1] = Number(BigInt.asUintN(32, operand));
    }
    this.atomicPending = true;
    const r = addon.ucxAtomic(k.ep, amo, width, this.operandBytes, 0, this.resultBytes, 0, k.base + offset, k.rkey,
      TOKEN_RMA_ATOMIC | target);
    if (r < 0) this.lost(target, r);
    if (r === 1) while (this.atomicPending) this.step(target);
    this.atomicPending = false;
    this.counters.atomics++;
    return width === 8 ? this.result[0]! : BigInt(this.result32[0]!);
  }

  post(target: number, key: number, offset: number, op: number, width: number, operand: bigint): void {
    const k = this.keyOf(target, key);
    const amo = AMO_OF[op];
    if (amo === undefined || amo === UCX_AMO_SWAP || amo === UCX_AMO_CSWAP || (width !== 4 && width !== 8)) {
      throw new Error(`ch_ucx: no posted UCX atomic for op ${op} of ${width} bytes`);
    }
    // The binding copies the operand (UCX may read it after the call): the scratch is reused.
    if (width === 8) this.operands[0] = BigInt.asUintN(64, operand);
    else this.operands32[0] = Number(BigInt.asUintN(32, operand));
    this.posted(target, addon.ucxAtomic(k.ep, amo, width, this.operandBytes, 0, null, 0, k.base + offset, k.rkey,
      TOKEN_RMA | target));
    this.counters.atomics++;
  }

  /** Room for `n` targets (processes of other jobs joined the device's peers). */
  grow(n: number): void {
    if (n <= this.inFlight.length) return;
    const inFlight = new Int32Array(n);
    inFlight.set(this.inFlight);
    const flushing = new Int32Array(n);
    flushing.set(this.flushing);
    const written = new Uint8Array(n);
    written.set(this.written);
    this.inFlight = inFlight;
    this.flushing = flushing;
    this.written = written;
  }

  /** Completes every operation to `target`; `always`: also every message sent on its endpoint (Disconnect). */
  flush(target: number, always = false): void {
    if (always) this.written[target] = 1;
    if (this.inFlight[target] === 0 && this.flushing[target] === 0 && !this.dirty(target)) return;
    this.flushing[target] = 1;
    const r = addon.ucxEpFlush(this.endpoint(target), TOKEN_RMA_FLUSH | target);
    if (r < 0) this.lost(target, r);
    if (r === 0) this.flushing[target] = 0;
    while (this.flushing[target] !== 0 || this.inFlight[target] !== 0) this.step(target);
    this.written[target] = 0;
    this.counters.flushes++;
  }

  /** How often the relay thread progressed our worker while the rank computed. */
  get served(): number {
    return this.serving ? addon.ucxBellServed(this.worker) : 0;
  }

  /** A completion of ours (device.ts): `token` is TOKEN_RMA* | target. */
  complete(token: number, status: number): void {
    const target = token & TARGET_MASK;
    if (status < 0 && this.failure === 0) this.failure = status;
    switch (token & ~TARGET_MASK) {
      case TOKEN_RMA:
        this.inFlight[target]!--;
        break;
      case TOKEN_RMA_FLUSH:
        this.flushing[target] = 0;
        break;
      case TOKEN_RMA_ATOMIC:
        this.atomicPending = false;
        break;
    }
  }

  private dirty(target: number): boolean {
    return this.written[target] !== 0;
  }

  private posted(target: number, r: number): void {
    if (r < 0) this.lost(target, r);
    if (r === 1) this.inFlight[target]!++;
    this.written[target] = 1;
  }

  /**
   * One step of a wait for our operations: a poll of the device, and after the rank's spin
   * budget of fruitless ones a sleep until UCX has an event (the device's doorbell sleep), so
   * that a rank with a core of its own answers at once and one on an oversubscribed machine
   * leaves the CPU to the target, whose worker does our operation (over tcp, in software). A
   * fixed nap here cost 20-40 us per operation: Fetch_and_op across hosts took 49 us, 20 us
   * spinning, against MPICH's 12.
   */
  private step(target: number): void {
    if (this.poll() > 0) this.idlePolls = 0;
    else if (++this.idlePolls >= this.spinBudget) {
      this.idlePolls = 0;
      this.sleep();
    }
    if (this.failure !== 0) {
      const f = this.failure;
      this.failure = 0;
      this.lost(target, f);
    }
  }

  private keyOf(target: number, handle: number): ImportedKey {
    const k = this.keys[handle];
    if (k === null || k === undefined || k.target !== target) {
      throw new Error(`ch_ucx: remote key ${handle} is not one imported for rank ${target}`);
    }
    return k;
  }

  private endpoint(target: number): UcxEndpoint {
    const ep = this.eps[target];
    if (ep === null || ep === undefined) throw new Error(`ch_ucx: no endpoint to rank ${target} for one-sided operations`);
    return ep;
  }
}
