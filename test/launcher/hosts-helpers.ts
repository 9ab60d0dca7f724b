import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { ucxProbe } from '../../src/native/addon.js';
import { NETNS_HOSTS, NETNS_SSH, whyNoHosts } from '../emulated-hosts.js';
import { DIST, ROOT, run, TSMPIEXEC, type RunResult } from '../helpers.js';

/**
 * Helpers of the multi-host launcher tests: tsmpiexec (or hydra) started on emulated host h1
 * like on a login node, the other hosts reached through the ssh stand-in, output watched as it
 * comes, every run bounded.
 */

/** Why these tests cannot run here (no root for the emulated hosts, no UCX), or false. */
export function whyNoMultiHost(): string | false {
  const noHosts = whyNoHosts();
  if (noHosts !== null) return noHosts;
  if (!ucxProbe().available) return `UCX is not usable here: ${ucxProbe().reason}`;
  return false;
}

/** Why the hydra tests across hosts cannot run here (whyNoMultiHost, or no hydra), or false. */
export function whyNoHydra(): string | false {
  const no = whyNoMultiHost();
  if (no !== false) return no;
  if (!fs.existsSync('/usr/bin/mpiexec.hydra')) return 'mpiexec.hydra is not installed (apt-get install mpich)';
  return false;
}

/**
 * hydra, started on h1 like on a login node, with `n` ranks over `hostList` (`h1,h2` deals the
 * ranks round-robin, `h1:2,h2:2` in blocks), `env` as -genv pairs. hydra runs under `timeout` on
 * h1, so a hung job is ended by hydra itself (which stops its proxies on every host) before the
 * test's own bound.
 */
export function hydraOnH1(hostList: string, n: number, program: string[], limitS: number, env: string[] = []): Promise<RunResult> {
  const genv = env.flatMap((e) => ['-genv', ...e.split('=', 2)]);
  return run('bash', [NETNS_HOSTS, 'exec', 'h1', 'timeout', '-k', '5', String(limitS), 'mpiexec.hydra', '-bootstrap-exec',
    NETNS_SSH, '-hosts', hostList, '-n', String(n), ...genv, process.execPath, ...program], (limitS + 15) * 1000, { cwd: ROOT });
}

/** A test/mpi program's verdict: exit status 0 and its " No Errors" line. */
export function assertNoErrors(r: RunResult): void {
  assert.equal(r.status, 0, `exit status ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stdout, /^ No Errors$/m, `no " No Errors" line\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
}

export interface Watched extends RunResult {
  /** The job id from the launcher's trace (DEBUG=tsmpiexec), '' when it has none. */
  readonly jobId: string;
}

export interface WatchOptions {
  onStdout?: (text: string, child: ChildProcess) => void;
  onStderr?: (text: string, child: ChildProcess) => void;
}

/** Runs `argv` on emulated host `host`, bounded by `limitMs`, watching both streams. */
export function runOn(host: string, argv: readonly string[], limitMs: number, watch: WatchOptions = {}): Promise<Watched> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [NETNS_HOSTS, 'exec', host, ...argv], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBUG: 'tsmpiexec' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      watch.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      watch.onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')} on ${host} did not finish within ${limitMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, limitMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      const jobId = /tsmpiexec job (\w+):/.exec(stderr)?.[1] ?? '';
      resolve({ status, signal, stdout, stderr, ms: Date.now() - started, jobId });
    });
  });
}

/** `tsmpiexec --launcher-exec netns-ssh <args>`, the launcher itself on h1. */
export function tsmpiexecOnH1(args: readonly string[], limitMs: number, watch: WatchOptions = {}): Promise<Watched> {
  return runOn('h1', [process.execPath, TSMPIEXEC, '--launcher-exec', NETNS_SSH, ...args], limitMs, watch);
}

/**
 * Takes a host's link down or up again. After a heal, every host forgets the neighbours it
 * failed to reach during the cut: Linux keeps such entries FAILED for a while, and connections
 * to the healed host (or from it) would fail at once with "No route to host" until then.
 */
export async function link(action: 'cut' | 'heal', host: string): Promise<void> {
  const r = await run('bash', [NETNS_HOSTS, action, host], 30_000);
  if (r.status !== 0) throw new Error(`netns-hosts.sh ${action} ${host}: ${r.stderr}`);
  if (action === 'heal') {
    for (const h of ['h1', 'h2', 'h3']) await run('bash', [NETNS_HOSTS, 'exec', h, 'ip', 'neigh', 'flush', 'all'], 30_000);
  }
}

/** A program of test/mpi (`pt2pt/order`). */
export function mpiProgram(name: string): string {
  return path.join(DIST, 'test', 'mpi', `${name}.js`);
}

/** A program of test/launcher/programs (`behave`). */
export function launcherProgram(name: string): string {
  return path.join(DIST, 'test', 'launcher', 'programs', `${name}.js`);
}

export const node = process.execPath;
