import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (tests run from dist/test/..., sources and testlists live beside dist). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(ROOT, 'dist');
export const TSMPIEXEC = path.join(DIST, 'bin', 'tsmpiexec.js');

export type RunOptions = SpawnOptions & {
  onStdout?: (text: string) => void;
  onSpawn?: (child: ChildProcess) => void;
};

export interface RunResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * Runs a command to its end, bounded by `limitMs` (then SIGKILL and a rejected promise,
 * so a hang fails the test instead of stalling it). `onSpawn` sees the child, e.g. to signal it.
 */
export function run(command: string, args: readonly string[], limitMs: number,
                    options: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      options.onStdout?.(d);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${limitMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, limitMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** tsmpiexec with the given launcher flags and command. */
export function tsmpiexec(args: readonly string[], limitMs = 60_000, options: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [TSMPIEXEC, ...args], limitMs, options);
}

/** Names in /dev/shm that belong to tsmpi (optionally one job). */
export function tsmpiSegments(jobId = ''): string[] {
  return fs.readdirSync('/dev/shm').filter((n) => n.startsWith(`tsmpi-${jobId}`));
}

export function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir, command);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

/** Whether a process of this pid exists (signal 0 reaches it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
