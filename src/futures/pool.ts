/**
 * WorkerPool: the master's side of the workers, shared by every executor of the process. It
 * keeps each worker busy with one task at a time: a submitted task goes to an idle worker at
 * once, or waits in a first-in first-out queue until a result comes back and frees a worker
 * (so a worker that finishes early takes the next task: the load balances itself).
 *
 * Results arrive on one receive from MPI.ANY_SOURCE (taken at once when a probe finds one there),
 * posted and awaited while any task is out and not posted otherwise, so an idle master leaves its event loop empty (the program can end)
 * and uses no CPU.
 */
import { serializer } from './serializer.js';
import { MPI, type Comm, type Request } from '../index.js';
import { TaskError, type Future } from './future.js';
import { TAG_RESULT, TAG_STOP, TAG_TASK, type ResultMessage } from './protocol.js';

/** A task as the pool holds it: its serialized TaskMessage and the future it settles. */
export interface PoolTask {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly future: Future<any>;
  /** The future takes the single call's value (a submit) rather than the list of values (a map chunk). */
  readonly single: boolean;
  /** Called when the task is settled or dropped (cancelled), once. */
  readonly onSettled: () => void;
}

interface OutTask {
  readonly task: PoolTask;
  readonly send: Request;
}

export class WorkerPool {
  /** How many workers the pool has. */
  readonly size: number;
  private readonly queue: PoolTask[] = [];
  private queueHead = 0;
  private readonly idle: number[];
  private readonly workers: readonly number[];
  private readonly out = new Map<number, OutTask>();
  private receiving = false;
  private lastId = 0;
  private stopped = false;

  /**
   * `workers`: the ranks that serve (worker.ts's serve) in `comm`, an intracommunicator with
   * the master in it (running-job mode, MPICommExecutor) or the intercommunicator to spawned
   * workers (spawn mode: the ranks of the remote group).
   */
  constructor(private readonly comm: Comm, workers: readonly number[]) {
    this.workers = [...workers];
    // Popped from the end: the lowest rank gets the first task.
    this.idle = [...workers].reverse();
    this.size = workers.length;
  }

  /** Whether stop() was called (the workers are gone). */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** A fresh task id (ids tell results apart; the worker sends the id back). */
  nextId(): number {
    return ++this.lastId;
  }

  /** Queues a task and starts it if a worker is idle. */
  add(task: PoolTask): void {
    this.queue.push(task);
    this.dispatch();
  }

  /**
   * Tells every worker to stop (they finish their task, MPI-finalize and exit). Tasks still
   * queued are cancelled; a task out on a worker gets no result.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (let i = this.queueHead; i < this.queue.length; i++) {
      const task = this.queue[i]!;
      task.future.cancel();
      task.onSettled();
    }
    this.queue.length = 0;
    this.queueHead = 0;
    const stop = serializer().serialize(null);
    for (const rank of this.workers) this.comm.Send(stop, rank, TAG_STOP);
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queueHead < this.queue.length) {
      const task = this.queue[this.queueHead]!;
      this.queue[this.queueHead++] = undefined as unknown as PoolTask;
      if (!task.future.setRunning()) {
        task.onSettled();
        continue;
      }
      const worker = this.idle.pop()!;
      this.out.set(task.id, { task, send: this.comm.Isend(task.bytes, worker, TAG_TASK) });
    }
    if (this.queueHead === this.queue.length) {
      this.queue.length = 0;
      this.queueHead = 0;
    }
    if (this.out.size > 0 && !this.receiving) void this.receiveResults();
  }

  private async receiveResults(): Promise<void> {
    this.receiving = true;
    try {
      while (this.out.size > 0) {
        // Results already here are taken at once (many come together when tasks are short);
        // only an empty queue costs an await, and the sleep on the doorbell behind it.
        const result = this.comm.iprobe(MPI.ANY_SOURCE, TAG_RESULT) ? this.comm.recv<ResultMessage>(MPI.ANY_SOURCE, TAG_RESULT)
          : await this.comm.irecv<ResultMessage>(MPI.ANY_SOURCE, TAG_RESULT);
        const out = this.out.get(result.id);
        if (out === undefined) throw new Error(`futures: a result for task ${result.id}, which no worker has`);
        this.out.delete(result.id);
        // The worker has the task (it answered), so the send is complete: this only releases it.
        out.send.Wait();
        this.idle.push(result.worker);
        const { task } = out;
        if (result.ok) task.future.setResult(task.single ? result.values[0] : result.values);
        else task.future.setException(new TaskError(result.error, result.worker));
        task.onSettled();
        this.dispatch();
      }
    } catch (e) {
      // The pool itself failed (not a task): every task out is lost; say so on each future.
      for (const { task } of this.out.values()) {
        task.future.setException(e);
        task.onSettled();
      }
      this.out.clear();
    } finally {
      this.receiving = false;
    }
  }
}
