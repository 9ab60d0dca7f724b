import type { BufferLike } from './types.js';

/**
 * MPI.BUFFER_AUTOMATIC (MPI-4.1): attached in place of a buffer (MPI.Attach_buffer,
 * comm.Attach_buffer), it lets buffered sends use as much memory as they need; Detach_buffer
 * gives it back. Apart from bsend.ts so that the public declarations need none of mpid's.
 */
export const BUFFER_AUTOMATIC: unique symbol = Symbol('MPI.BUFFER_AUTOMATIC');

/** What Attach_buffer takes and Detach_buffer returns. */
export type AttachArg = BufferLike | typeof BUFFER_AUTOMATIC;
