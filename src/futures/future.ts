/**
 * Future: the outcome of one submitted task, after concurrent.futures.Future (mpi4py.futures
 * returns those): done(), running(), cancelled(), cancel(), result(), exception(),
 * add_done_callback(). It is also awaitable (`await future`, `future.then(...)`).
 *
 * A future is not a Promise: a task that fails and that nobody awaits stays a failed future, as
 * in Python, instead of an unhandled rejection that ends the process. A Promise is made only
 * when someone awaits (then/catch/finally), and it settles with the future.
 *
 * JavaScript cannot block while the result travels (the event loop delivers it), so result()
 * and exception() do not wait as Python's do: on a future that is not done they throw
 * InvalidStateError; await the future instead.
 */
import type { RemoteError } from './protocol.js';

type State = 'pending' | 'running' | 'finished' | 'cancelled';

/** The reason of a cancelled future, as Python's concurrent.futures.CancelledError. */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
}

/** result() or exception() of a future that is not done yet, as Python's InvalidStateError. */
export class InvalidStateError extends Error {
  override readonly name = 'InvalidStateError';
}

/** A task's error, remade from the worker's report: its name, message and the worker's stack text. */
export class TaskError extends Error {
  /** The rank of the worker where the task threw, in the pool's communicator (COMM_WORLD's ranks in running-job mode). */
  readonly rank: number;

  constructor(remote: RemoteError, rank: number) {
    super(remote.message);
    this.name = remote.name;
    this.rank = rank;
    this.stack = `${remote.stack}\n    (on worker rank ${rank})`;
  }
}

export class Future<T = unknown> implements PromiseLike<T> {
  private state: State = 'pending';
  private value: T | undefined = undefined;
  private error: unknown = undefined;
  private failed = false;
  private callbacks: ((future: Future<T>) => void)[] = [];
  private settled: Promise<T> | null = null;

  /** `[object Future]`; with then/catch/finally it makes a Future usable where a Promise is typed. */
  get [Symbol.toStringTag](): string {
    return 'Future';
  }

  /** Whether the task finished (with a value or an error) or was cancelled. */
  done(): boolean {
    return this.state === 'finished' || this.state === 'cancelled';
  }

  /** Whether a worker is running the task now. */
  running(): boolean {
    return this.state === 'running';
  }

  cancelled(): boolean {
    return this.state === 'cancelled';
  }

  /** Cancels the task if no worker has it yet; returns whether the future is (now) cancelled. */
  cancel(): boolean {
    if (this.state === 'cancelled') return true;
    if (this.state !== 'pending') return false;
    this.state = 'cancelled';
    this.error = new CancelledError('the task was cancelled before a worker started it');
    this.failed = true;
    this.runCallbacks();
    return true;
  }

  /** The task's value; throws its error, CancelledError, or InvalidStateError when not done yet. */
  result(): T {
    this.requireDone('result');
    if (this.failed) throw this.error;
    return this.value as T;
  }

  /** The task's error, or null when it succeeded; throws CancelledError or InvalidStateError. */
  exception(): unknown {
    this.requireDone('exception');
    if (this.state === 'cancelled') throw this.error;
    return this.failed ? this.error : null;
  }

  /** Calls fn(future) once the future is done (at once if it is). */
  add_done_callback(fn: (future: Future<T>) => void): void {
    if (typeof fn !== 'function') throw new TypeError('Future.add_done_callback: fn must be a function');
    if (this.done()) fn(this);
    else this.callbacks.push(fn);
  }

  then<R1 = T, R2 = never>(onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
                           onRejected?: ((reason: any) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.promise().then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: any) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.promise().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.promise().finally(onFinally);
  }

  /** @internal A worker took the task: it can no longer be cancelled. Returns false if it was. */
  setRunning(): boolean {
    if (this.state !== 'pending') return false;
    this.state = 'running';
    return true;
  }

  /** @internal */
  setResult(value: T): void {
    if (this.done()) return;
    this.value = value;
    this.state = 'finished';
    this.runCallbacks();
  }

  /** @internal */
  setException(error: unknown): void {
    if (this.done()) return;
    this.error = error;
    this.failed = true;
    this.state = 'finished';
    this.runCallbacks();
  }

  private promise(): Promise<T> {
    if (this.settled === null) {
      this.settled = new Promise<T>((resolve, reject) => {
        this.add_done_callback(() => (this.failed ? reject(this.error) : resolve(this.value as T)));
      });
    }
    return this.settled;
  }

  private requireDone(call: string): void {
    if (!this.done()) {
      throw new InvalidStateError(`Future.${call}: the task is ${this.state}, not done; await the future for its outcome`);
    }
  }

  private runCallbacks(): void {
    const callbacks = this.callbacks;
    this.callbacks = [];
    for (const fn of callbacks) {
      try {
        fn(this);
      } catch (e) {
        // As concurrent.futures: a failing callback is reported and does not stop the others.
        process.emitWarning(`Future done callback threw: ${(e as Error)?.stack ?? String(e)}`);
      }
    }
  }
}
