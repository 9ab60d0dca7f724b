/**
 * What the UCX peer scenarios send and what the tests expect of them: shared by the peer
 * programs and the tests (this module has no side effects, unlike the peers).
 */

// messages: COUNT messages each way; sizes cycle through SIZES, with BIG at the BIG_AT positions.
export const SIZES = [0, 1, 7, 8 * 1024 + 3, (1 << 20) + 5];
export const BIG = 64 << 20;
export const COUNT = 240;
export const BIG_AT = new Set([100, 200]);
export const sizeOf = (seq: number): number => (BIG_AT.has(seq) ? BIG : SIZES[seq % SIZES.length]!);
/** Payload bytes one side receives in the message scenario. */
export function messageBytes(): number {
  let n = 0;
  for (let seq = 0; seq < COUNT; seq++) n += sizeOf(seq);
  return n;
}

// rndv-later: the large message B receives only after A saw it pending.
export const LATER_BYTES = (16 << 20) + 3;

// atomics
export const FADDS = 10_000;
export const CSWAPS = 1_000;
export const SWAPPED = 0x1234_5678_9abc;
/** Both sides OR distinct bits, then A ANDs some away while B XORs one of the kept ones. */
export const BITS_FINAL = ((0x0f0 | 0xf00) & ~0x030) ^ 0x001;

// wake
export const WAKE_MODES = ['wait', 'bell-sync', 'bell-async'] as const;
export const SLEEP_MS = 1000;
