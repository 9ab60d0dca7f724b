/**
 * Runs two UCX peer programs (peer.ts) against each other: relays their side-channel lines,
 * collects their RESULT lines, and kills both when the time bound passes, so a hang fails the
 * test. `host` places a peer on an emulated host (netns-hosts.sh); by default both run here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

import { DIST } from '../../helpers.js';
import { NETNS_HOSTS } from '../../emulated-hosts.js';

export const PEER = path.join(DIST, 'test', 'unit', 'ucx', 'peer.js');

export type Role = 'a' | 'b';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Result = Record<string, any>;

export interface PairOptions {
  readonly scenario: string;
  readonly limitMs: number;
  /** Emulated hosts to run a and b on (netns-hosts.sh exec), or none. */
  readonly hosts?: readonly [string, string];
  /** Extra environment (UCX_TLS=tcp is always set). */
  readonly env?: NodeJS.ProcessEnv;
  /** Sees every side-channel message on its way, with the children (to kill one, say). */
  readonly onMessage?: (from: Role, message: Result, children: Record<Role, ChildProcess>) => void;
}

export interface PairResult {
  readonly a: Result;
  readonly b: Result;
  /** When each RESULT line arrived (ms since the start). */
  readonly at: Record<Role, number>;
  readonly logs: string[];
  readonly stderr: Record<Role, string>;
}

export function runPair(options: PairOptions): Promise<PairResult> {
  const started = Date.now();
  const env = { ...process.env, UCX_TLS: 'tcp', UCX_WARN_UNUSED_ENV_VARS: 'n', ...options.env };
  const start = (role: Role): ChildProcess => {
    const args = [PEER, role, options.scenario];
    const host = options.hosts?.[role === 'a' ? 0 : 1];
    return host === undefined
      ? spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn('bash', [NETNS_HOSTS, 'exec', host, process.execPath, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  };
  const children: Record<Role, ChildProcess> = { a: start('a'), b: start('b') };
  const results: Partial<Record<Role, Result>> = {};
  const at: Record<Role, number> = { a: -1, b: -1 };
  const stderr: Record<Role, string> = { a: '', b: '' };
  const logs: string[] = [];
  return new Promise((resolve, reject) => {
    let open = 2;
    const timer = setTimeout(() => {
      for (const c of Object.values(children)) c.kill('SIGKILL');
      reject(new Error(`UCX scenario ${options.scenario} did not finish within ${options.limitMs} ms; ` +
        `results so far ${JSON.stringify(results)}\nlog:\n${logs.join('\n')}\nstderr a:\n${stderr.a}\nstderr b:\n${stderr.b}`));
    }, options.limitMs);
    for (const role of ['a', 'b'] as const) {
      const child = children[role];
      const other = children[role === 'a' ? 'b' : 'a'];
      other.stdin!.on('error', () => {}); // a partner that died: its pipe is closed
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr[role] += d));
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        const space = line.indexOf(' ');
        const kind = line.slice(0, space);
        const body = line.slice(space + 1);
        if (kind === 'PEER') {
          if (other.exitCode === null && other.signalCode === null) other.stdin!.write(body + '\n');
          options.onMessage?.(role, JSON.parse(body) as Result, children);
        } else if (kind === 'RESULT') {
          results[role] = JSON.parse(body) as Result;
          at[role] = Date.now() - started;
        } else {
          logs.push(`${role}: ${line}`);
        }
      });
      child.on('close', (code, signal) => {
        results[role] ??= { exited: code ?? signal, stderr: stderr[role] };
        if (--open > 0) return;
        clearTimeout(timer);
        resolve({ a: results.a!, b: results.b!, at, logs, stderr });
      });
    }
  });
}
