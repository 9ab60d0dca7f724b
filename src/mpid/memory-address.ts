import { addon, type BufferLike } from '../native/addon.js';

/**
 * Addresses of user memory: where single copy (process_vm_readv/writev) finds a buffer's
 * bytes from another process, and what MPI.Get_address returns.
 */
export interface MemoryAddress {
  /**
   * The address of the first byte of `view` (byteOffset included), valid while the buffer is
   * alive: a small on-heap typed array's storage is moved off-heap first. 0 may be returned for
   * an empty buffer.
   */
  addressOf(view: BufferLike): number;
}

/** The addon itself, seen through MemoryAddress: the call is the addon's own, unwrapped. */
export const memoryAddress: MemoryAddress = addon;
