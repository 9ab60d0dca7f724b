import type { ExposedMemory } from '../../mpid/remote-memory.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { Info } from '../info.js';
import { runtime } from '../runtime.js';
import type { BufferLike, InfoArg } from '../types.js';

/**
 * MPI.Alloc_mem with SCI-MPICH's info key `type` (003b §3.1, its ch. 7.2.2): `shared` gives
 * memory that ranks of other SCI nodes can map (an exported SISCI segment), so a window made
 * on it with Win.Create is reached by direct loads and stores from every node and needs
 * nothing from its owner; `private` and `default` give process memory. Both are a
 * SharedArrayBuffer; exported memory is whole 64-byte lines (at least the size asked for).
 * Without ch_sci every rank shares our node, and `shared` gives process memory too.
 */
const exposed = new Map<ArrayBufferLike, ExposedMemory>();

export function allocMem(size: number, info: InfoArg = null): SharedArrayBuffer {
  if (!Number.isSafeInteger(size) || size < 0) throw new MPIException(ErrorClass.ERR_SIZE, `MPI.Alloc_mem: size ${size} is not a byte count`);
  const type = info instanceof Info ? info.Get('type') : null;
  if (type !== null && type !== 'shared' && type !== 'private' && type !== 'default') {
    throw new MPIException(ErrorClass.ERR_INFO_VALUE, `MPI.Alloc_mem: info type=${JSON.stringify(type)}; ` +
      'it takes shared, private or default');
  }
  const world = runtime.requireRunning('MPI.Alloc_mem');
  if (type === 'shared') {
    const mem = world.exposeMemory(Math.ceil(Math.max(size, 1) / 64) * 64);
    if (mem !== null) {
      const buffer = mem.bytes.buffer as SharedArrayBuffer;
      exposed.set(buffer, mem);
      return buffer;
    }
  }
  return new SharedArrayBuffer(size);
}

/** Frees memory of Alloc_mem (no window may use it any more). */
export function freeMem(memory: BufferLike): void {
  const buffer = ArrayBuffer.isView(memory) ? memory.buffer : memory;
  const mem = exposed.get(buffer as ArrayBufferLike);
  if (mem === undefined) return;
  exposed.delete(buffer as ArrayBufferLike);
  mem.remove();
}

/** @internal The exported memory `buffer` lies in, if Alloc_mem made it with type=shared. */
export function exposedMemoryOf(buffer: ArrayBufferLike): ExposedMemory | null {
  return exposed.get(buffer) ?? null;
}
