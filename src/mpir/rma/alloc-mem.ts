// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { exposeUserMemory, removeUserMemory } from '../../osc/index.js';
import { ErrorClass } from '../error-classes.js';
import { MPIException } from '../exception.js';
import { Info } from '../info.js';
import { runtime } from '../runtime.js';
import type { BufferLike, InfoArg } from '../types.js';
import { describe } from '../buffer.js';
import { show } from '../validate.js';

/** Memory of Alloc_mem not yet given back: Free_mem takes only these (MPI.ERR_BASE for any other). */
const allocated = new WeakSet<ArrayBufferLike>();

/**
 * MPI.Alloc_mem with SCI-MPICH's info key `type` (003b §3.1, its ch. 7.2.2): `shared` gives
 * memory that ranks of other SCI nodes can map (an exported SISCI segment), so a window made
 * on it with Win.Create is reached by direct loads and stores from every node and needs
 * nothing from its owner; `private` and `default` give process memory. Both are a
 * SharedArrayBuffer; exported memory is whole 64-byte lines (at least the size asked for).
 * Without ch_sci every rank shares our node, and `shared` gives process memory too.
 */
export function allocMem(size: number, info: InfoArg = null): SharedArrayBuffer {
  if (!Number.isSafeInteger(size) || size < 0) throw new MPIException(ErrorClass.ERR_SIZE, `MPI.Alloc_mem: size ${show(size)} is not a byte count`);
  if (info !== null && info !== undefined && !(info instanceof Info)) {
    throw new MPIException(ErrorClass.ERR_INFO, `MPI.Alloc_mem: info must be an MPI.Info or MPI.INFO_NULL, got ${describe(info)}`);
  }
  const type = info instanceof Info ? info.Get('type') : null;
  if (type !== null && type !== 'shared' && type !== 'private' && type !== 'default') {
    throw new MPIException(ErrorClass.ERR_INFO_VALUE, `MPI.Alloc_mem: info type=${JSON.stringify(type)}; ` +
      'it takes shared, private or default');
  }
  const world = runtime.requireRunning('MPI.Alloc_mem');
  const buffer = type === 'shared' ? exposeUserMemory(world, size) : null;
  const memory = buffer ?? new SharedArrayBuffer(size);
  allocated.add(memory);
  return memory;
}

/** Frees memory of Alloc_mem (no window may use it any more). */
export function freeMem(memory: BufferLike): void {
  const buffer = ArrayBuffer.isView(memory) ? memory.buffer : memory;
  if (typeof buffer !== 'object' || buffer === null || !allocated.has(buffer)) {
    throw new MPIException(ErrorClass.ERR_BASE, `MPI.Free_mem: memory ${describe(memory)} is not memory of MPI.Alloc_mem ` +
      '(or was freed already)');
  }
  allocated.delete(buffer);
  removeUserMemory(buffer);
}
