import { STATE_DONE, type CompletionListener, type CoreRequest } from '../mpid/index.js';
import { BSEND_OVERHEAD } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import { runtime } from './runtime.js';
import type { BufferLike } from './types.js';

/**
 * The buffer of MPI.Attach_buffer: Bsend copies the message and accounts its size plus
 * BSEND_OVERHEAD against the attached bytes until the copy has been delivered, so a program
 * that would overflow the buffer gets MPI.ERR_BUFFER as MPI requires.
 */
class BsendBuffer implements CompletionListener {
  private attached: BufferLike | null = null;
  private capacity = 0;
  private used = 0;
  private readonly inFlight = new Map<CoreRequest, number>();

  attach(buf: BufferLike): void {
    if (this.attached !== null) {
      throw new MPIException(ErrorClass.ERR_BUFFER, 'MPI.Attach_buffer: a buffer is already attached; detach it first');
    }
    this.attached = buf;
    this.capacity = buf.byteLength;
    this.used = 0;
  }

  /** Waits until every buffered send has left, then returns the buffer. */
  detach(): BufferLike | null {
    this.flush('MPI.Detach_buffer');
    const b = this.attached;
    this.attached = null;
    this.capacity = 0;
    return b;
  }

  /** MPI.Flush_buffer (MPI-4.1): waits until every buffered send has left; the buffer stays attached. */
  flush(call: string): void {
    const world = runtime.requireRunning(call);
    while (this.inFlight.size > 0) world.progress.step();
  }

  /** A private copy of `bytes` for a buffered send, charged to the attached buffer (throws without prefix). */
  reserve(bytes: Uint8Array): Uint8Array {
    const need = bytes.length + BSEND_OVERHEAD;
    if (this.attached === null) {
      throw new MPIException(ErrorClass.ERR_BUFFER, `no buffer is attached (call MPI.Attach_buffer with at least ${need} bytes)`);
    }
    if (this.used + need > this.capacity) {
      throw new MPIException(ErrorClass.ERR_BUFFER, `a message of ${bytes.length} bytes needs ${need} bytes of the ` +
        `attached buffer, ${this.capacity - this.used} of ${this.capacity} are free`);
    }
    this.used += need;
    return bytes.slice();
  }

  /** Follows a started buffered send until it is delivered (at once if it already was). */
  track(core: CoreRequest, bytes: number): void {
    if (core.state === STATE_DONE) {
      this.used -= bytes + BSEND_OVERHEAD;
      runtime.requireRunning('Bsend').engine.free(core);
      return;
    }
    this.inFlight.set(core, bytes + BSEND_OVERHEAD);
    core.listener = this;
  }

  requestDone(core: CoreRequest): void {
    this.used -= this.inFlight.get(core) ?? 0;
    this.inFlight.delete(core);
    runtime.requireRunning('Bsend').engine.free(core);
  }
}

export const bsendBuffer = new BsendBuffer();
