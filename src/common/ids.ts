import fs from 'node:fs';

/**
 * Random bytes and digests for ids (segment names, port secrets, the PMI secret, node ids)
 * without node:crypto: loading that module cost every rank ~4 ms before MPI.Init (bench/launch),
 * and nothing here needs more than the kernel's random source and a well-mixed hash.
 */

/** `n` bytes from the kernel's random source (what crypto.randomBytes reads too on Linux). */
export function randomBytes(n: number): Buffer {
  const out = Buffer.alloc(n);
  const fd = fs.openSync('/dev/urandom', 'r');
  try {
    for (let at = 0; at < n;) at += fs.readSync(fd, out, at, n - at, null);
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

/**
 * A 64-bit digest of `text` as 16 hex digits, the first `digits` of them: two 32-bit FNV-1a
 * lanes from different offsets, each finished with murmur3's mix. An id that processes compute
 * alike, never a secret (a name's unguessable part comes from randomBytes).
 */
export function digestHex(text: string, digits = 16): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (hex32(mix(a)) + hex32(mix(b ^ a))).slice(0, digits);
}

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hex32(v: number): string {
  return v.toString(16).padStart(8, '0');
}

/** Whether two byte strings are equal, in a time that does not depend on where they differ. */
export function equalConstantTime(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}
