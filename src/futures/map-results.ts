/**
 * What MPIPoolExecutor.map returns: the results of fn over the zipped iterables, as an async
 * iterable (`for await (const y of executor.map(f, xs))`) and as a thenable of the whole list
 * (`const ys = await executor.map(f, xs)`). Every task was submitted when map returned (as
 * mpi4py's map does); the results come in the order of the arguments, or with `unordered: true`
 * in the order the chunks complete (the values of one chunk stay together, in order).
 *
 * A task that failed ends the iteration with its error at its place; `timeout` (seconds,
 * from the map call) ends it with TimeoutError. An iteration that ends early (error, timeout,
 * break) cancels the chunks no worker has started yet, as concurrent.futures does.
 */
import type { Future } from './future.js';

/** A map result that did not come within the map's timeout, as Python's TimeoutError. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

export class MapResults<T> implements AsyncIterable<T>, PromiseLike<T[]> {
  /** @internal */
  constructor(private readonly chunks: readonly Future<T[]>[], private readonly unordered: boolean,
              private readonly deadline: number | null) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    let finished = false;
    try {
      const completed = this.unordered ? this.inCompletionOrder() : null;
      for (let i = 0; i < this.chunks.length; i++) {
        const chunk = completed === null ? this.chunks[i]! : (await this.within(completed(i))).chunk;
        for (const value of await this.within(chunk)) yield value;
      }
      finished = true;
    } finally {
      if (!finished) for (const f of this.chunks) f.cancel();
    }
  }

  then<R1 = T[], R2 = never>(onFulfilled?: ((value: T[]) => R1 | PromiseLike<R1>) | null,
                             onRejected?: ((reason: any) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.collect().then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: any) => R | PromiseLike<R>) | null): Promise<T[] | R> {
    return this.collect().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T[]> {
    return this.collect().finally(onFinally);
  }

  get [Symbol.toStringTag](): string {
    return 'MapResults';
  }

  private async collect(): Promise<T[]> {
    const all: T[] = [];
    for await (const value of this) all.push(value);
    return all;
  }

  /**
   * A function giving the i-th chunk to complete (i = 0, 1, ... in turn), boxed: a future is a
   * thenable, which a promise would unwrap into its value.
   */
  private inCompletionOrder(): (i: number) => Promise<{ chunk: Future<T[]> }> {
    const done: Future<T[]>[] = [];
    let wake: (() => void) | null = null;
    for (const f of this.chunks) {
      f.add_done_callback(() => {
        done.push(f);
        wake?.();
      });
    }
    return (i) => new Promise((resolve) => {
      const take = (): void => {
        wake = null;
        resolve({ chunk: done[i]! });
      };
      if (done.length > i) take();
      else wake = take;
    });
  }

  /** `p`, or TimeoutError once the map's deadline passes. */
  private within<V>(p: PromiseLike<V>): Promise<V> {
    if (this.deadline === null) return Promise.resolve(p);
    const left = this.deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError('MPIPoolExecutor.map: a result did not come within the timeout')),
        Math.max(0, left));
    });
    return Promise.race([Promise.resolve(p), late]).finally(() => clearTimeout(timer));
  }
}
