// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { ExposedMemory } from '../mpid/memory.js';
import type { World } from '../mpid/world.js';

/**
 * Memory of MPI.Alloc_mem with info type=shared (003b §3.1, its ch. 7.2.2): exported by the
 * device that exports memory (ch_sci: a SISCI segment ranks of other nodes map), so a window
 * made on it with Win.Create is reached by direct loads and stores from every node, and a
 * large Get into it can be served by remote-put. Kept here by buffer, so that a window or a
 * Get finds the exported memory a user's buffer lies in.
 */
const exposed = new Map<ArrayBufferLike, ExposedMemory>();

/** Exports at least `bytes` (whole 64-byte lines); null when no device here exports memory (every rank is on our node). */
export function exposeUserMemory(world: World, bytes: number): SharedArrayBuffer | null {
  const mem = world.exposeMemory(Math.ceil(Math.max(bytes, 1) / 64) * 64);
  if (mem === null) return null;
  const buffer = mem.bytes.buffer as SharedArrayBuffer;
  exposed.set(buffer, mem);
  return buffer;
}

/** Removes memory of exposeUserMemory (no window may use it any more); other buffers are left alone. */
export function removeUserMemory(buffer: ArrayBufferLike): void {
  const mem = exposed.get(buffer);
  if (mem === undefined) return;
  exposed.delete(buffer);
  mem.remove();
}

/** The exported memory `buffer` lies in, if exposeUserMemory made it. */
export function exposedMemoryOf(buffer: ArrayBufferLike): ExposedMemory | null {
  return exposed.get(buffer) ?? null;
}
