import {
  ATOMIC_ADD, ATOMIC_AND, ATOMIC_CSWAP, ATOMIC_OR, ATOMIC_SWAP, ATOMIC_XOR, type MemoryCapabilities, type RmaService,
} from '../mpid/memory.js';
import {
  KIND_FLOAT32, KIND_FLOAT64, KIND_INT32, KIND_INT64, KIND_UINT32, KIND_UINT64, kindBytes, OP_BAND, OP_BOR, OP_BXOR,
  OP_NO_OP, OP_REPLACE, OP_SUM, type Reducer,
} from './codes.js';
import { CAS, GET_ACC } from './wire.js';
import { oscCounters } from './counters.js';

/**
 * The device-RMA access method (select.ts ACCESS_DEVICE): a target's part reached by a
 * network device's operations (ch_ucx: UCX put, get and atomics), not mapped.
 *
 *   Put           device put, posted; complete at the next flush of the target (Win.Flush,
 *                 Unlock, Fence, Complete flush the device, flush()).
 *   Get           device get, then a flush of the target: the result is in the caller's buffer
 *                 when the call returns (the face may unpack a non-contiguous result at once).
 *   Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap on elements of 4 or 8 bytes,
 *                 aligned, at most DEVICE_UPDATE_MAX of them: device atomics per element:
 *                   SUM on integers -> add, BAND/BOR/BXOR -> and/or/xor, REPLACE -> swap,
 *                   NO_OP -> add 0 (a fetch), Compare_and_swap -> compare-and-swap;
 *                   any other op (PROD, MIN, MAX, logical ops, floating point) by a
 *                   compare-and-swap loop on the element's bits (fetch, reduce, swap if unchanged).
 *                 Everything else goes to the target's agent (update() returns false): 1- and
 *                 2-byte elements, pair types (MINLOC/MAXLOC), unaligned elements, derived target
 *                 types, longer runs (one message instead of one round trip per element). The
 *                 agent applies them with CPU atomics where the elements take them (the owner's
 *                 direct path), so they are atomic with the device's atomics on other elements
 *                 of the same window; see lock-area.ts for why CPU and UCX atomics mix over tcp.
 *   Targets whose memory takes no CPU atomics from its owner (Win.Create on memory that is not
 *   a SharedArrayBuffer) have their updates go to the agent altogether (DEVICE_AGENT_UPDATES).
 */

/** Longest run of elements updated by device atomics (one round trip each); longer ones go to the agent. */
export const DEVICE_UPDATE_MAX = 16;

/** A target's part as the device reaches it. */
export interface RemotePart {
  readonly rma: RmaService;
  /** The owner's world rank. */
  readonly target: number;
  /** The handle of the region's key (importKey). */
  readonly key: number;
  /** Byte offset of the part in the region. */
  readonly base: number;
  readonly reach: MemoryCapabilities;
}

const NATIVE_OP: Record<number, number> = {
  [OP_SUM]: ATOMIC_ADD, [OP_BAND]: ATOMIC_AND, [OP_BOR]: ATOMIC_OR, [OP_BXOR]: ATOMIC_XOR, [OP_REPLACE]: ATOMIC_SWAP,
  [OP_NO_OP]: ATOMIC_ADD,
};

function isIntegerKind(kind: number): boolean {
  return kind === KIND_INT32 || kind === KIND_UINT32 || kind === KIND_INT64 || kind === KIND_UINT64;
}

function isDeviceWordKind(kind: number): boolean {
  return isIntegerKind(kind) || kind === KIND_FLOAT32 || kind === KIND_FLOAT64;
}

export class DeviceAccess {
  /** One element's bits: the operand, the current value, the new value (reduce works on bytes). */
  private readonly scratch = new Uint8Array(24);
  private readonly view = new DataView(this.scratch.buffer);
  /** Targets with posted operations since their last flush (window ranks). */
  private readonly touched: Uint8Array;
  readonly counters = { puts: 0, gets: 0, atomics: 0, casLoops: 0, toAgent: 0 };

  constructor(private readonly parts: readonly (RemotePart | null)[], private readonly reducer: Reducer) {
    this.touched = new Uint8Array(parts.length);
  }

  /** Put (data into the part) or Get (the part into `into`, there on return). */
  transfer(t: number, put: boolean, offset: number, list: Float64Array | null, bytes: number, data: Uint8Array | null,
           into: Uint8Array | null): void {
    const p = this.parts[t]!;
    const at = p.base + offset;
    const n = list !== null ? list.length : 2;
    for (let b = 0, pos = 0; b < n; b += 2) {
      const o = at + (list !== null ? list[b]! : 0);
      const len = list !== null ? list[b + 1]! : bytes;
      if (put) p.rma.put!(p.target, p.key, o, data!, pos, len);
      else p.rma.get!(p.target, p.key, o, into!, pos, len);
      pos += len;
    }
    if (put) {
      this.touched[t] = 1;
      this.counters.puts++;
      oscCounters.devicePuts++;
    } else {
      p.rma.flush!(p.target);
      this.touched[t] = 0;
      this.counters.gets++;
      oscCounters.deviceGets++;
    }
  }

  /**
   * An accumulate, Get_accumulate or Compare_and_swap (request `kind`) by device atomics; false
   * when it must go to the target's agent (see the module comment), before anything was done.
   */
  update(t: number, kind: number, offset: number, list: Float64Array | null, elemKind: number, op: number, bytes: number,
         data: Uint8Array | null, into: Uint8Array | null): boolean {
    const size = kindBytes(elemKind);
    const p = this.parts[t]!;
    const at = p.base + offset;
    if (list !== null || !isDeviceWordKind(elemKind) || at % size !== 0 || bytes / size > DEVICE_UPDATE_MAX) {
      this.counters.toAgent++;
      oscCounters.toAgent++;
      return false;
    }
    const s = this.scratch;
    for (let pos = 0; pos < bytes; pos += size) {
      if (kind === CAS) {
        s.set(data!.subarray(0, size), 0);
        s.set(data!.subarray(size, 2 * size), 8);
        const old = p.rma.atomic!(p.target, p.key, at, ATOMIC_CSWAP, size, this.word(0, size), this.word(8, size));
        this.setWord(16, size, old);
        into!.set(s.subarray(16, 16 + size), 0);
        break;
      }
      const fetch = kind === GET_ACC || into !== null;
      const old = this.updateElement(t, p, at + pos, elemKind, size, op, data, pos, fetch);
      if (fetch) {
        this.setWord(16, size, old);
        into!.set(s.subarray(16, 16 + size), pos);
      }
    }
    this.counters.atomics++;
    oscCounters.deviceAtomics++;
    return true;
  }

  /** Completes the device operations to window rank `t`. */
  flush(t: number): void {
    if (this.touched[t] === 0) return;
    const p = this.parts[t]!;
    p.rma.flush!(p.target);
    this.touched[t] = 0;
  }

  flushAll(): void {
    for (let t = 0; t < this.parts.length; t++) if (this.touched[t] !== 0) this.flush(t);
  }

  /** One element at byte `at` of the region; returns its old bits. */
  private updateElement(t: number, p: RemotePart, at: number, elemKind: number, size: number, op: number, data: Uint8Array | null,
                        pos: number, fetch: boolean): bigint {
    const s = this.scratch;
    const native = NATIVE_OP[op];
    if (op === OP_NO_OP || data === null) return p.rma.atomic!(p.target, p.key, at, ATOMIC_ADD, size, 0n, 0n);
    s.set(data.subarray(pos, pos + size), 0);
    if (native !== undefined && (isIntegerKind(elemKind) || op === OP_REPLACE)) {
      if (!fetch && native !== ATOMIC_SWAP) {
        // Accumulate: nothing to wait for; complete at the next flush of the target.
        p.rma.post!(p.target, p.key, at, native, size, this.word(0, size));
        this.touched[t] = 1;
        return 0n;
      }
      return p.rma.atomic!(p.target, p.key, at, native, size, this.word(0, size), 0n);
    }
    // A compare-and-swap loop: fetch, reduce (operand op current), swap in if nobody changed it.
    let current = p.rma.atomic!(p.target, p.key, at, ATOMIC_ADD, size, 0n, 0n);
    for (;;) {
      this.setWord(8, size, current);
      s.set(data.subarray(pos, pos + size), 0);
      this.reducer.reduce(op, elemKind, s.subarray(0, size), s.subarray(8, 8 + size), 1);
      const seen = p.rma.atomic!(p.target, p.key, at, ATOMIC_CSWAP, size, this.word(8, size), current);
      if (seen === current) return current;
      current = seen;
      this.counters.casLoops++;
    }
  }

  /** The unsigned word of `size` bytes at scratch[at]. */
  private word(at: number, size: number): bigint {
    return size === 8 ? this.view.getBigUint64(at, true) : BigInt(this.view.getUint32(at, true));
  }

  private setWord(at: number, size: number, v: bigint): void {
    if (size === 8) this.view.setBigUint64(at, BigInt.asUintN(64, v), true);
    else this.view.setUint32(at, Number(BigInt.asUintN(32, v)), true);
  }
}
