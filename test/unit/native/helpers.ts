/**
 * Helpers for the native addon tests: child Node processes that load the same compiled addon,
 * unique segment names, and a way to know that a thread is asleep on a given futex cell.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

/** dist/src/native/addon.js, seen from dist/test/unit/native/. */
export const ADDON_URL = new URL('../../../src/native/addon.js', import.meta.url).href;

/** A segment name no other test or run uses. */
export function uniqueName(tag: string): string {
  return `tsmpi-test-${tag}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** The arguments that run `body` as an ES module with `addon` imported. */
function nodeArgs(body: string, flags: readonly string[]): string[] {
  const source = `import { addon } from ${JSON.stringify(ADDON_URL)};\n${body}`;
  return [...flags, '--input-type=module', '-e', source];
}

export interface ChildResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A child `node` process running `body` (with `addon` in scope), read line by line. It is killed
 * when `limitMs` passes, so a hang fails the test rather than stalling the run.
 */
export class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<ChildResult>;
  private stdout = '';
  private stderr = '';
  private readonly lines: string[] = [];
  private readonly readers: Array<(line: string | null) => void> = [];
  private ended = false;

  constructor(body: string, limitMs: number, flags: readonly string[] = []) {
    this.process = spawn(process.execPath, nodeArgs(body, flags), {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const killer = setTimeout(() => this.process.kill('SIGKILL'), limitMs);
    let partial = '';
    this.process.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      partial += chunk;
      let newline: number;
      while ((newline = partial.indexOf('\n')) >= 0) {
        this.push(partial.slice(0, newline));
        partial = partial.slice(newline + 1);
      }
    });
    this.process.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.process.on('close', (status, signal) => {
        clearTimeout(killer);
        this.ended = true;
        for (const reader of this.readers.splice(0)) reader(null);
        resolve({ status, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  private push(line: string): void {
    const reader = this.readers.shift();
    if (reader) reader(line);
    else this.lines.push(line);
  }

  /** The next line of its output; rejects if it exits first. */
  async line(): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) return queued;
    const line = this.ended ? null : await new Promise<string | null>((r) => this.readers.push(r));
    if (line === null) {
      const { status, signal, stderr } = await this.exited;
      throw new Error(`child exited (status ${status}, signal ${signal}) before a line; stderr:\n${stderr}`);
    }
    return line;
  }

  /** The next line, parsed as JSON. */
  async json<T>(): Promise<T> {
    return JSON.parse(await this.line()) as T;
  }

  /** Writes one line to its stdin. */
  send(line: string): void {
    this.process.stdin!.write(`${line}\n`);
  }

  kill(): void {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGKILL');
  }
}

/** Runs `body` in a child node process to its end (killed after `limitMs`). */
export function runChild(body: string, limitMs: number, flags: readonly string[] = []): Promise<ChildResult> {
  const child = new Child(body, limitMs, flags);
  child.process.stdin!.end();
  return child.exited;
}

/**
 * The ids of the threads of process `pid` blocked in a system call whose first argument is one of
 * `addresses`: for futex waits, the threads asleep on those cells. Reads
 * /proc/<pid>/task/<tid>/syscall.
 */
export function sleeperTids(pid: number, addresses: readonly number[]): string[] {
  const wanted = new Set(addresses.map((a) => `0x${a.toString(16)}`));
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];  // the process is gone
  }
  return tids.filter((tid) => {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'utf8').split(' ');
      return fields[1] !== undefined && wanted.has(fields[1]);
    } catch {
      return false;  // the thread ended meanwhile
    }
  });
}

/** How many threads of `pid` are asleep on the futex cells at `addresses`. */
export function sleepersOn(pid: number, addresses: readonly number[]): number {
  return sleeperTids(pid, addresses).length;
}

/** The ids of all threads of this process. */
export function ownThreadIds(): string[] {
  return fs.readdirSync('/proc/self/task');
}

/** Whether some thread of `pid` is asleep on the futex cell at `address`. */
export function asleepOn(pid: number, address: number): boolean {
  return sleepersOn(pid, [address]) > 0;
}

/** Resolves once `condition()` holds, polling every few milliseconds; rejects after `limitMs`. */
export async function until(condition: () => boolean, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Synchronous variant of `until`, for a thread that must not return to the event loop. */
export function untilSync(condition: () => boolean, limitMs: number, what: string): void {
  const deadline = Date.now() + limitMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    Atomics.wait(pause, 0, 0, 2);
  }
}
