/**
 * One-sided scenarios of peer.ts: put/get into a window B mapped (its remote key traded over the
 * side channel), and atomics on words of B's window from both sides at once (B through an
 * endpoint to its own worker, so every update goes through UCX).
 */
import {
  addon, UCX_AMO_ADD, UCX_AMO_AND, UCX_AMO_CSWAP, UCX_AMO_OR, UCX_AMO_SWAP, UCX_AMO_XOR,
  type UcxEndpoint, type UcxRkey,
} from '../../../src/native/addon.js';
import { report, tell } from './channel.js';
import { fromHex, toHex, until } from './kit.js';
import { closeTogether, listen, type Peer } from './peer-common.js';
import { CSWAPS, FADDS, SWAPPED } from './plan.js';

// ------------------------------------------------------------------ put / get

const WIN = (1 << 20) + 13;
const targetByte = (i: number): number => (i * 3 + 1) & 255;
const originByte = (i: number): number => (i * 7 + 5) & 255;
/** [offset, length] of the puts: odd places and sizes, the first and last byte included. */
export const PUT_REGIONS: readonly (readonly [number, number])[] = [[0, 1], [7, 4099], [100_000, 65_537], [700_001, 300_000], [WIN - 1, 1]];
const inRegion = (i: number): boolean => PUT_REGIONS.some(([o, l]) => i >= o && i < o + l);
const expectedAfter = (i: number): number => (inRegion(i) ? originByte(i) : targetByte(i));

/** The first index where bytes differ from want(i), or -1. */
function firstBad(bytes: Uint8Array, want: (i: number) => number): number {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== want(i)) return i;
  return -1;
}

async function complete(p: Peer, r: number, token: number, what: string): Promise<number> {
  if (r < 0) throw new Error(`${what} failed at once: ${addon.ucxStatusName(r)}`);
  if (r === 0) return 0;
  await until(() => (p.tracker.poll(), p.tracker.done.has(token)), what, 30_000);
  return p.tracker.take(token)!;
}

export async function rma(p: Peer): Promise<void> {
  const { rank, ep } = p;
  if (p.role === 'b') {
    const window = new Uint8Array(new ArrayBuffer(WIN)).map((_, i) => targetByte(i));
    const mem = addon.ucxMemMap(rank.context, window);
    tell({ rkey: toHex(addon.ucxRkeyPack(mem)), address: addon.ucxMemAddress(mem) });
    await listen(p); // A has put and flushed
    const bad = firstBad(window, expectedAfter);
    await closeTogether(p);
    addon.ucxMemUnmap(mem);
    report({ bad });
    return;
  }
  const { rkey: hex, address } = await listen<{ rkey: string; address: number }>(p);
  const rkey = addon.ucxRkeyUnpack(ep, fromHex(hex));
  const before = new Uint8Array(WIN);
  const sGet = await complete(p, addon.ucxGet(ep, before, 0, WIN, address, rkey, 1), 1, 'the first get');
  const source = new Uint8Array(WIN).map((_, i) => originByte(i));
  const statuses: number[] = [];
  for (let k = 0; k < PUT_REGIONS.length; k++) {
    const [off, len] = PUT_REGIONS[k]!;
    statuses.push(await complete(p, addon.ucxPut(ep, source, off, len, address + off, rkey, 10 + k), 10 + k, `put ${k}`));
  }
  const sFlush = await complete(p, addon.ucxEpFlush(ep, 20), 20, 'the flush');
  tell({ flushed: true });
  const after = new Uint8Array(WIN);
  const sGet2 = await complete(p, addon.ucxGet(ep, after, 0, WIN, address, rkey, 2), 2, 'the second get');
  addon.ucxRkeyDestroy(rkey);
  await closeTogether(p);
  report({ getBefore: firstBad(before, targetByte), getAfter: firstBad(after, expectedAfter), statuses: [sGet, ...statuses, sFlush, sGet2] });
}

// ------------------------------------------------------------------ atomics

const SLOTS = 32;
const OFF_FADD64 = 0;
const OFF_FADD32 = 8;
const OFF_CSWAP = 16;
const OFF_BITS64 = 24;
const OFF_BITS32 = 32;
const OFF_SWAP = 40;

/** `count` fetch-and-adds of 1 on the word at `off` (size 4 or 8), up to SLOTS in flight; the fetched values. */
async function fetchAdds(p: Peer, ep: UcxEndpoint, rkey: UcxRkey, address: number, size: 4 | 8, count: number): Promise<number[]> {
  const one = size === 8 ? new BigUint64Array([1n]) : new Uint32Array([1]);
  const results = size === 8 ? new BigUint64Array(SLOTS) : new Uint32Array(SLOTS);
  const busy = new Array<boolean>(SLOTS).fill(false);
  const fetched: number[] = [];
  let issued = 0;
  const readSlot = (s: number): void => {
    fetched.push(Number(results[s]!));
    busy[s] = false;
  };
  await until(() => {
    while (issued < count && !busy[issued % SLOTS]) {
      const s = issued % SLOTS;
      const r = addon.ucxAtomic(ep, UCX_AMO_ADD, size, one, 0, results, s * size, address, rkey, 100 + s);
      if (r < 0) throw new Error(`fetch-and-add failed: ${addon.ucxStatusName(r)}`);
      issued++;
      busy[s] = true;
      if (r === 0) readSlot(s);
    }
    p.tracker.poll();
    for (let s = 0; s < SLOTS; s++) {
      const status = busy[s] ? p.tracker.take(100 + s) : undefined;
      if (status === undefined) continue;
      if (status !== 0) throw new Error(`fetch-and-add completed with ${addon.ucxStatusName(status)}`);
      readSlot(s);
    }
    return fetched.length === count;
  }, 'the fetch-and-adds', 60_000);
  return fetched;
}

/** `count` increments of the 64-bit word at `address` by compare-and-swap; the old values of the successful ones. */
async function casIncrements(p: Peer, ep: UcxEndpoint, rkey: UcxRkey, address: number, count: number): Promise<{ won: number[]; tries: number }> {
  const operands = new BigUint64Array(2);
  const result = new BigUint64Array(1);
  const won: number[] = [];
  let guess = 0n;
  let tries = 0;
  while (won.length < count) {
    operands[0] = guess;
    operands[1] = guess + 1n;
    tries++;
    const r = addon.ucxAtomic(ep, UCX_AMO_CSWAP, 8, operands, 0, result, 0, address, rkey, 200);
    if (await complete(p, r, 200, 'a compare-and-swap') !== 0) throw new Error('compare-and-swap failed');
    const old = result[0]!;
    if (old === guess) won.push(Number(old));
    guess = old === guess ? old + 1n : old;
  }
  return { won, tries };
}

async function bits(p: Peer, ep: UcxEndpoint, rkey: UcxRkey, base: number, op: number, mask: number): Promise<void> {
  const v64 = new BigUint64Array([BigInt(mask)]);
  const v32 = new Uint32Array([mask]);
  await complete(p, addon.ucxAtomic(ep, op, 8, v64, 0, null, 0, base + OFF_BITS64, rkey, 300), 300, 'a 64-bit bit operation');
  await complete(p, addon.ucxAtomic(ep, op, 4, v32, 0, null, 0, base + OFF_BITS32, rkey, 301), 301, 'a 32-bit bit operation');
}

/** A barrier over the side channel, progressing meanwhile. */
async function barrier(p: Peer): Promise<void> {
  tell({ barrier: true });
  await listen(p);
}

export async function atomics(p: Peer): Promise<void> {
  const { rank } = p;
  let ep: UcxEndpoint;
  let rkey: UcxRkey;
  let address: number;
  let words: DataView | undefined;
  if (p.role === 'b') {
    const window = new ArrayBuffer(64);
    words = new DataView(window);
    const mem = addon.ucxMemMap(rank.context, window);
    const packed = addon.ucxRkeyPack(mem);
    address = addon.ucxMemAddress(mem);
    tell({ rkey: toHex(packed), address });
    ep = rank.connect(rank.address(), 99); // B updates its own window through UCX too
    rkey = addon.ucxRkeyUnpack(ep, packed);
  } else {
    const m = await listen<{ rkey: string; address: number }>(p);
    address = m.address;
    ep = p.ep;
    rkey = addon.ucxRkeyUnpack(ep, fromHex(m.rkey));
  }
  await barrier(p);
  const t0 = Date.now();
  const fetched64 = await fetchAdds(p, ep, rkey, address + OFF_FADD64, 8, FADDS);
  const fetched32 = await fetchAdds(p, ep, rkey, address + OFF_FADD32, 4, FADDS);
  const faddMs = Date.now() - t0;
  const cas = await casIncrements(p, ep, rkey, address + OFF_CSWAP, CSWAPS);
  // Bits: both OR distinct bits; then A clears some with AND while B flips one with XOR
  // (inside the kept bits, so the two commute): 0x0f0 | 0xf00 = 0xff0, & ~0x030 = 0xfc0, ^ 1 = 0xfc1.
  await bits(p, ep, rkey, address, UCX_AMO_OR, p.role === 'a' ? 0x0f0 : 0xf00);
  await barrier(p);
  await bits(p, ep, rkey, address, p.role === 'a' ? UCX_AMO_AND : UCX_AMO_XOR, p.role === 'a' ? ~0x030 >>> 0 : 0x001);
  let swappedOut = -1;
  if (p.role === 'a') {
    const value = new BigUint64Array([BigInt(SWAPPED)]);
    const old = new BigUint64Array(1).fill(77n);
    await complete(p, addon.ucxAtomic(ep, UCX_AMO_SWAP, 8, value, 0, old, 0, address + OFF_SWAP, rkey, 400), 400, 'the swap');
    swappedOut = Number(old[0]);
  }
  await complete(p, addon.ucxEpFlush(ep, 500), 500, 'the flush');
  await barrier(p);
  let final: Record<string, number> = {};
  if (words !== undefined) {
    final = {
      fadd64: Number(words.getBigUint64(OFF_FADD64, true)), fadd32: words.getUint32(OFF_FADD32, true),
      cswap: Number(words.getBigUint64(OFF_CSWAP, true)), bits64: Number(words.getBigUint64(OFF_BITS64, true)),
      bits32: words.getUint32(OFF_BITS32, true), swap: Number(words.getBigUint64(OFF_SWAP, true)),
    };
    addon.ucxEpClose(ep, true, 600);
  }
  await closeTogether(p);
  report({ fetched64, fetched32, won: cas.won, tries: cas.tries, swappedOut, final, faddMs });
}
