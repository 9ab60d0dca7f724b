import { MPI } from '../../../src/index.js';

/**
 * Messages for the buffered-send tests: `bytes` long, above TSMPI_EAGER_MAX (128 KiB), so a
 * buffered copy stays in flight until the receiver matches it and the buffer's accounting shows;
 * byte i of the message made from `seed` is (i * stride + seed) & 0xff, so a receiver can tell
 * whose message it got and that it arrived whole.
 */
export function heldMessages(bytes: number, stride: number): {
  charge: (n: number) => number;
  make: (seed: number) => Uint8Array;
  intact: (b: Uint8Array, seed: number) => boolean;
} {
  return {
    charge: (n) => n + MPI.BSEND_OVERHEAD,
    make: (seed) => Uint8Array.from({ length: bytes }, (_, i) => (i * stride + seed) & 0xff),
    intact: (b, seed) => b.every((v, i) => v === ((i * stride + seed) & 0xff)),
  };
}
