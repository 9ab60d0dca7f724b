import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { addon } from '../../src/native/addon.js';
import type { PmiServer } from '../../src/pmi/index.js';
import { GATE_FD, type StartGate } from './start-gate.js';
import { resolveExecutable } from './command.js';
import { forwardLines } from './output.js';

/**
 * The fd number of the PMI socket in a rank (PMI_FD). Not 3: wrappers between tsmpiexec and
 * node take the low numbers for their own children (tsx and npm put an IPC channel at fd 3).
 * An inherited fd that is not close-on-exec passes unchanged through node, npm, sh and tsx to
 * the rank, so a number above the 3..9 that programs and shell scripts use by hand survives.
 */
export const PMI_FD_NUMBER = 20;

/** How to start one process of a job on this host (a rank of the first job or of a spawned one). */
export interface LocalRankSpec {
  readonly rank: number;
  readonly size: number;
  /** Unique over every job of the launcher: the rank's PMI_ID. */
  readonly pmiId: number;
  readonly jobId: string;
  readonly command: string;
  readonly argv: readonly string[];
  /** The environment on top of which the PMI variables are set. */
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly server: PmiServer;
  /** The launcher's PMI_PORT (a Unix socket), where a rank whose inherited fd was lost connects. */
  readonly socketPath: string;
  /** Also hand the rank a connected socket (PMI_FD); without it the rank connects to PMI_PORT with PMI_ID. */
  readonly pmiFd: boolean;
  readonly gate: StartGate | null;
  readonly stdin: 'inherit' | 'ignore';
  /** Put before each line of the rank's output. */
  readonly prefix: string;
}

export interface LocalRankEvents {
  /** The process could not be started (spawn's error). */
  startFailed(error: Error): void;
  exited(pid: number, code: number | null, signal: NodeJS.Signals | null): void;
  /** Whole lines the rank wrote on stderr (the launcher watches them for state reports). */
  stderr(lines: string): void;
}

export interface LocalRank {
  exited: boolean;
  readonly child: ChildProcess;
  /** Resolves when the process has exited and its output is fully forwarded. */
  readonly done: Promise<void>;
}

/** Starts one rank here, its PMI socket attached to `spec.server`, its output forwarded to ours. */
export function startLocalRank(spec: LocalRankSpec, events: LocalRankEvents): LocalRank {
  const env: NodeJS.ProcessEnv = { ...spec.env };
  env.TSMPI_JOBID = spec.jobId;
  env.PMI_RANK = String(spec.rank);
  env.PMI_SIZE = String(spec.size);
  for (const k of ['PMI_FD', 'PMI_PORT', 'PMI_ID', 'TSMPI_PMI_FD_ID']) delete env[k];
  const stdio: (number | 'inherit' | 'ignore' | 'pipe')[] = [spec.stdin, 'pipe', 'pipe'];
  let childEnd = -1;
  env.PMI_PORT = spec.socketPath;
  env.PMI_ID = String(spec.pmiId);
  if (spec.pmiFd) {
    const [parentEnd, theirs] = addon.socketpair();
    childEnd = theirs;
    spec.server.attach(new net.Socket({ fd: parentEnd, readable: true, writable: true }), spec.rank);
    while (stdio.length < PMI_FD_NUMBER) stdio.push('ignore');
    stdio.push(childEnd);
    env.PMI_FD = String(PMI_FD_NUMBER);
    // Lets the rank tell our socket from another one a wrapper may have put at the same number.
    env.TSMPI_PMI_FD_ID = socketIdentity(childEnd);
  }
  let [file, argv] = [spec.command, [...spec.argv]];
  // A command that cannot be run is spawned as it is, so spawn's own error names it.
  const resolved = spec.gate === null ? null : resolveExecutable(spec.command, env);
  if (spec.gate !== null && resolved !== null) {
    while (stdio.length <= GATE_FD) stdio.push('ignore');
    stdio[GATE_FD] = spec.gate.childEnd;
    [file, argv] = spec.gate.wrap(resolved, argv);
  }
  // Own process group, so a terminal's Ctrl-C reaches ranks only through us, exactly once.
  const child = spawn(file, argv, { env, stdio, detached: true, cwd: spec.cwd });
  if (childEnd >= 0) fs.closeSync(childEnd);
  const outputs = [
    forwardLines(child.stdout!, process.stdout, spec.prefix),
    forwardLines(child.stderr!, process.stderr, spec.prefix, (lines) => events.stderr(lines)),
  ];
  const entry: LocalRank = {
    exited: false,
    child,
    done: new Promise<void>((resolve) => {
      child.on('error', (err) => {
        entry.exited = true;
        events.startFailed(err);
        resolve();
      });
      child.on('exit', (code, signal) => {
        entry.exited = true;
        events.exited(child.pid ?? -1, code, signal);
        void Promise.all(outputs).then(() => resolve());
      });
    }),
  };
  return entry;
}

/** What identifies a socket across processes: its device and inode (as the rank's fstat sees them). */
function socketIdentity(fd: number): string {
  const st = fs.fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
}
