import { ownBuffer } from './bsend.js';
import type { AttachArg } from './buffer-automatic.js';
import { Comm } from './comm.js';
import { MPIException } from './exception.js';
import { Request } from './request.js';

/**
 * MPI-4.1's buffer of one communicator (§3.6): comm.Attach_buffer(buf), Detach_buffer(),
 * Flush_buffer() and Iflush_buffer(), mpi4py's names. Buffered sends on the communicator use its
 * buffer while one is attached, else the buffer of the session it derives from, else
 * MPI.Attach_buffer's (bsend.ts: bufferFor); a duplicate or a communicator split from it starts
 * without one. Freeing the communicator lets the messages in flight finish
 * (their copies are tsmpi's, not the buffer's bytes). Errors go through the communicator's
 * handler.
 */

declare module './comm.js' {
  interface Comm {
    /** Attaches a buffer (or MPI.BUFFER_AUTOMATIC) for this communicator's buffered sends (MPI-4.1). */
    Attach_buffer(buf: AttachArg): void;
    /** Waits until this communicator's buffered messages have left, then returns its buffer (null if none). */
    Detach_buffer(): AttachArg | null;
    /** Waits until this communicator's buffered messages have left; the buffer stays attached. */
    Flush_buffer(): void;
    /** A request that completes once the messages buffered so far on this communicator have left. */
    Iflush_buffer(): Request;
  }
}

/** Runs `fn` for `call` on `comm`, raising what it throws through the communicator's handler. */
function through<T>(comm: Comm, call: string, fn: () => T): T {
  comm.coreFor(call);
  try {
    return fn();
  } catch (e) {
    if (e instanceof MPIException) comm.fail(call, e.error_class, e.message);
    throw e;
  }
}

Comm.prototype.Attach_buffer = function (this: Comm, buf: AttachArg): void {
  through(this, 'Attach_buffer', () => ownBuffer(this).attach(buf));
};

Comm.prototype.Detach_buffer = function (this: Comm): AttachArg | null {
  return through(this, 'Detach_buffer', () => ownBuffer(this).detach('Comm.Detach_buffer'));
};

Comm.prototype.Flush_buffer = function (this: Comm): void {
  through(this, 'Flush_buffer', () => ownBuffer(this).flush('Comm.Flush_buffer'));
};

Comm.prototype.Iflush_buffer = function (this: Comm): Request {
  return through(this, 'Iflush_buffer', () => new Request(ownBuffer(this).iflush('Comm.Iflush_buffer'), this));
};
