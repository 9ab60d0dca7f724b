import { KIND_GREQ, type CoreRequest } from '../../mpid/index.js';
import { Request } from '../request.js';
import { runtime } from '../runtime.js';
import type { Status } from '../status.js';
import { stepDone, type Steps } from './two-phase.js';

/** One non-blocking collective access in flight: its steps, the step it waits for, and its outcome. */
interface Access {
  readonly steps: Steps<number>;
  readonly request: CollectiveFileRequest;
  current: Request<unknown> | null;
}

/**
 * The non-blocking collective accesses of one file (Iread_all, Iwrite_at_all, ...), advanced by
 * a progress hook of the engine: whenever anything drives progress (Wait or Test on any
 * request, a blocking call), the first access in the queue takes its next step if the
 * collective it waits for has completed. Accesses of one file run one after the other, in the
 * order they were started, which every rank shares, so their collectives (on a communicator of
 * their own, never the blocking calls') are started in the same order everywhere. (It is an
 * mpid ProgressHook by shape; naming the type here would put mpid in the public declarations.)
 */
export class CollectiveQueue {
  private readonly queue: Access[] = [];
  private hooked = false;
  /** Set while a step runs: a step that waits (atomic mode's Win.Lock) drives progress, which must not run a step again. */
  private running = false;

  /** Starts an access: its first step runs now, the rest from the hook. */
  start(steps: Steps<number>, request: CollectiveFileRequest): void {
    this.queue.push({ steps, request, current: null });
    if (!this.hooked) {
      runtime.requireRunning('File').engine.addProgressHook(this);
      this.hooked = true;
    }
    this.advance();
  }

  advance(): number {
    if (this.running) return 0;
    this.running = true;
    try {
      return this.steps();
    } finally {
      this.running = false;
    }
  }

  private steps(): number {
    let moved = 0;
    while (this.queue.length > 0) {
      const a = this.queue[0]!;
      if (a.current !== null && !stepDone(a.current)) return moved;
      moved++;
      try {
        // The step's request is complete: Wait only releases it (no progress, so the hook is not re-entered).
        if (a.current !== null) a.current.Wait();
        a.current = null;
        const next = a.steps.next();
        if (next.done === true) {
          this.queue.shift();
          a.request.complete(next.value, null);
        } else a.current = next.value;
      } catch (e) {
        this.queue.shift();
        a.request.complete(0, e);
      }
    }
    return moved;
  }

  /** Completes every access still in flight (Close), then leaves the engine's hooks. */
  drain(): void {
    const world = runtime.requireRunning('File.Close');
    while (this.queue.length > 0) world.progress.step();
    if (this.hooked) world.engine.removeProgressHook(this);
    this.hooked = false;
  }
}

/**
 * The request of a non-blocking collective access: an engine request (a generalized one, as a
 * collective schedule's) that the queue completes; Wait and Test give the status (the bytes
 * accessed) or raise the access's error through the file's handler.
 */
export class CollectiveFileRequest extends Request {
  private bytes = 0;
  private error: unknown = null;

  /** @internal */
  constructor(private readonly after: (n: number) => void, private readonly raise: (e: unknown) => never) {
    super(runtime.requireRunning('File').engine.requests.acquire(KIND_GREQ), null);
  }

  /** @internal Called by the queue: the access ended with `bytes` moved, or with `error`. */
  complete(bytes: number, error: unknown): void {
    this.bytes = bytes;
    this.error = error;
    if (error === null) {
      try {
        this.after(bytes);
      } catch (e) {
        this.error = e;
      }
    }
    runtime.requireRunning('File').engine.complete(this.core as CoreRequest);
  }

  protected override finish(status: Status | undefined, call: string): void {
    super.finish(status, call);
    if (status) status.count = this.bytes;
  }

  protected override onInactive(): void {
    if (this.error !== null) {
      const e = this.error;
      this.error = null;
      this.raise(e);
    }
  }

  /** MPI does not cancel a started file access (MPI-4 §14.4.4: it may be ignored); it completes. */
  override Cancel(): void {}
}
