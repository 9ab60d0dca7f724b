import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import createDebug from 'debug';
import { addon } from '../../src/native/addon.js';
import { PmiServer } from '../../src/pmi/index.js';
import { newSecret } from '../../src/pmi/auth.js';
import { sweepJobSegments } from '../../src/common/segment-names.js';
import { cardKey, decodeCard } from '../../src/mpid/business-card.js';
import { STATE_SIGNAL } from '../../src/mpid/state-request.js';
import type { LaunchOptions } from './args.js';
import { placeRanks } from './hosts.js';
import { rankArgs } from './node-flags.js';
import { resolveExecutable } from './command.js';
import { GATE_FD, StartGate } from './start-gate.js';
import { forwardLines, killGroup, writeLines } from './output.js';
import { HostAgents, hostPort, listenTcp } from './remote.js';
import { collectStats, formatStatsJson, formatStatsTable } from './stats.js';

/** The launcher's own trace (DEBUG=tsmpiexec): the job id and where the ranks go. */
const trace = createDebug('tsmpiexec');

/** How long ranks get after SIGTERM before SIGKILL; a failed job must be down within 1 s. */
const KILL_GRACE_MS = 500;

/** How long the ranks get to report their state (STATE_SIGNAL) before a timeout or signal stops them. */
const REPORT_WAIT_MS = 1000;

/** The last line of a rank's state report (src/mpir/state-report.ts). */
const REPORT_END = /^tsmpi: rank (\d+) \(pid \d+\): \d+ pending requests?, \d+ unexpected messages?$/gm;

/**
 * The fd number of the PMI socket in a rank (PMI_FD). Not 3: wrappers between tsmpiexec and
 * node take the low numbers for their own children (tsx and npm put an IPC channel at fd 3).
 * An inherited fd that is not close-on-exec passes unchanged through node, npm, sh and tsx to
 * the rank, so a number above the 3..9 that programs and shell scripts use by hand survives.
 */
export const PMI_FD_NUMBER = 20;

/** A rank of the job, started here or by a host agent. */
interface Rank {
  readonly rank: number;
  exited: boolean;
  /** Resolves when the process has exited and its output is fully forwarded. */
  readonly done: Promise<void>;
  /** Signals the rank's process group. */
  kill(signal: NodeJS.Signals): void;
  /** Signals process `pid` on the rank's host (the rank's own pid, behind any wrapper). */
  signalPid(pid: number, signal: NodeJS.Signals): void;
}

type Ending =
  | { kind: 'failed'; message: string; exitCode: number }
  | { kind: 'signal'; signal: NodeJS.Signals };

/**
 * One parallel job: a PMI server, N ranks, their output, and the rules for ending early.
 * When a rank fails, aborts or the job times out, every other rank is stopped and the reason
 * is printed; whatever ends the job, the job's shared segments are removed afterwards.
 */
export class Job {
  readonly jobId = randomBytes(8).toString('hex');
  private readonly server: PmiServer;
  private readonly ranks: Rank[] = [];
  private ending: Ending | null = null;
  private listener: net.Server | null = null;
  private socketPath: string | null = null;
  /** The agents of a multi-host job (--hosts, --hostfile); null when every rank starts here. */
  private agents: HostAgents | null = null;
  private tcpListener: net.Server | null = null;
  /** Ranks asked for their state whose report has not come yet, and who to tell when it has. */
  private readonly reportsDue = new Set<number>();
  private reportsDone: (() => void) | null = null;

  constructor(private readonly options: LaunchOptions) {
    this.server = new PmiServer({
      size: options.nprocs,
      kvsname: `tsmpi_${this.jobId}`,
      onAbort: (rank, code, message) =>
        this.fail(`rank ${rank} called MPI_Abort with exit code ${code}${message ? `: ${message}` : ''}`, code),
      onProtocolError: (rank, message) => this.fail(`PMI protocol error from rank ${rank ?? '?'}: ${message}`, 1),
    });
  }

  /** Runs the job to its end and returns the launcher's exit status. */
  async run(): Promise<number> {
    const { nprocs, timeoutSeconds } = this.options;
    // Listening always: ranks that inherit their socket (PMI_FD) fall back to this one when a
    // wrapper between us and node closed the inherited fd.
    await this.listen();
    const forward = (signal: NodeJS.Signals) => this.interrupt(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const timer = timeoutSeconds === null ? null : setTimeout(() => {
      if (this.ending !== null) return;
      const message = `job timed out after ${timeoutSeconds} s; stopping ${this.alive().length} running rank(s)`;
      this.ending = { kind: 'failed', message, exitCode: 124 };
      process.stderr.write(`tsmpiexec: ${message}\n`);
      void this.reportThenStop('SIGTERM');
    }, timeoutSeconds * 1000);
    try {
      if (this.options.hosts !== null) {
        this.ranks.push(...await this.startOnHosts());
      } else {
        const gate = nprocs > 1 ? new StartGate() : null;
        try {
          for (let r = 0; r < nprocs && this.ending === null; r++) this.ranks.push(this.start(r, gate));
        } finally {
          gate?.open();
        }
      }
      await Promise.all(this.ranks.map((r) => r.done));
    } finally {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      await this.agents?.end();
      this.server.close();
      this.listener?.close();
      this.tcpListener?.close();
      if (this.socketPath) fs.rmSync(this.socketPath, { force: true });
      sweepJobSegments(this.jobId);
    }
    if (this.options.stats !== null) this.printStats();
    const ending = this.ending as Ending | null;
    if (ending === null) return 0;
    if (ending.kind === 'signal') return 128 + (os.constants.signals[ending.signal] ?? 15);
    return ending.exitCode;
  }

  /** --stats: what the ranks reported at MPI.Finalize, on stderr after all of their output. */
  private printStats(): void {
    const { nprocs, stats: format } = this.options;
    const { reported, stats } = collectStats(nprocs, (key) => this.server.lookup(key));
    if (reported.length === 0) {
      process.stderr.write('tsmpiexec: --stats: no rank reported its statistics (none reached MPI.Finalize)\n');
      return;
    }
    process.stderr.write(format === 'json' ? formatStatsJson(nprocs, reported, stats) : formatStatsTable(nprocs, reported, stats));
  }

  private async listen(): Promise<void> {
    this.socketPath = path.join(os.tmpdir(), `tsmpi-pmi-${this.jobId}-${randomBytes(8).toString('hex')}.sock`);
    const server = net.createServer();
    this.server.listen(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.socketPath!, () => resolve());
    });
    fs.chmodSync(this.socketPath, 0o600);
    this.listener = server;
  }

  /**
   * Starts the ranks over the hosts through one agent per host (bin/launcher/agent.ts). PMI is
   * served over TCP here, only to connections that present the job's secret.
   */
  private async startOnHosts(): Promise<Rank[]> {
    const { nprocs, command, args, exports, tagOutput, launcherExec } = this.options;
    const launcherHost = this.options.launcherHost ?? os.hostname();
    const secret = newSecret();
    const tcp = net.createServer();
    this.tcpListener = tcp;
    const pmiPort = await listenTcp(tcp);
    this.server.listenAuthenticated(tcp, secret);
    const prefix = (rank: number) => (tagOutput ? `[${rank}] ` : '');
    this.agents = new HostAgents({
      exit: (rank, pid, code, signal, host) => this.onExit(rank, pid, code, signal, host),
      fail: (message, exitCode) => this.fail(message, exitCode),
      output: (rank, fd, text) => {
        writeLines(fd === 1 ? process.stdout : process.stderr, text, prefix(rank));
        if (fd === 2) this.noticeReports(text);
      },
    }, secret, launcherExec, launcherHost);
    const placement = placeRanks(this.options.hosts!, nprocs);
    trace('job %s: PMI on TCP port %d; %s', this.jobId, pmiPort,
      [...placement].map(([host, ranks]) => `${host}: ranks ${ranks.join(',')}`).join('; '));
    return this.agents.start(placement, {
      pmiPort: `${hostPort(launcherHost, pmiPort)}`, jobId: this.jobId, size: nprocs, command,
      args: rankArgs(command, args, Math.max(...[...placement.values()].map((ranks) => ranks.length)),
        { ...process.env, ...Object.fromEntries(exports) }), cwd: process.cwd(),
    }, exports);
  }

  private start(rank: number, gate: StartGate | null): Rank {
    const { nprocs, command, args, exports, tagOutput } = this.options;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of exports) env[k] = v;
    env.TSMPI_JOBID = this.jobId;
    env.PMI_RANK = String(rank);
    env.PMI_SIZE = String(nprocs);
    if (this.options.sciNodes !== null) env.TSMPI_SCI_NODE = String(sciNodeOf(rank, nprocs, this.options.sciNodes));
    delete env.PMI_FD;
    delete env.PMI_PORT;
    delete env.PMI_ID;
    delete env.TSMPI_PMI_FD_ID;
    const stdio: (number | 'inherit' | 'ignore' | 'pipe')[] = [rank === 0 ? 'inherit' : 'ignore', 'pipe', 'pipe'];
    let childEnd = -1;
    env.PMI_PORT = this.socketPath!;
    env.PMI_ID = String(rank);
    if (!this.options.pmiPort) {
      const [parentEnd, theirs] = addon.socketpair();
      childEnd = theirs;
      this.server.attach(new net.Socket({ fd: parentEnd, readable: true, writable: true }), rank);
      while (stdio.length < PMI_FD_NUMBER) stdio.push('ignore');
      stdio.push(childEnd);
      env.PMI_FD = String(PMI_FD_NUMBER);
      // Lets the rank tell our socket from another one a wrapper may have put at the same number.
      env.TSMPI_PMI_FD_ID = socketIdentity(childEnd);
    }
    let [file, argv] = [command, rankArgs(command, args, nprocs, env)];
    // A command that cannot be run is spawned as it is, so spawn's own error names it.
    const resolved = gate === null ? null : resolveExecutable(command, env);
    if (gate !== null && resolved !== null) {
      while (stdio.length <= GATE_FD) stdio.push('ignore');
      stdio[GATE_FD] = gate.childEnd;
      [file, argv] = gate.wrap(resolved, argv);
    }
    // Own process group, so a terminal's Ctrl-C reaches ranks only through us, exactly once.
    const child = spawn(file, argv, { env, stdio, detached: true });
    if (childEnd >= 0) fs.closeSync(childEnd);
    const prefix = tagOutput ? `[${rank}] ` : '';
    const outputs = [
      forwardLines(child.stdout!, process.stdout, prefix),
      forwardLines(child.stderr!, process.stderr, prefix, (lines) => this.noticeReports(lines)),
    ];
    const entry: Rank = {
      rank,
      exited: false,
      kill: (signal) => killGroup(child, signal),
      signalPid: (pid, signal) => process.kill(pid, signal),
      done: new Promise<void>((resolve) => {
        child.on('error', (err) => {
          entry.exited = true;
          this.fail(`rank ${rank}: cannot start ${JSON.stringify(command)}: ${err.message}`, 127);
          resolve();
        });
        child.on('exit', (code, signal) => {
          entry.exited = true;
          this.onExit(rank, child.pid ?? -1, code, signal);
          void Promise.all(outputs).then(() => resolve());
        });
      }),
    };
    return entry;
  }

  private onExit(rank: number, pid: number, code: number | null, signal: NodeJS.Signals | null, host?: string): void {
    if (this.ending !== null) return;
    const who = `rank ${rank} (pid ${pid}${host === undefined ? '' : ` on host ${host}`})`;
    if (signal !== null) {
      this.fail(`${who} was killed by signal ${signal}`, 128 + (os.constants.signals[signal] ?? 0));
    } else if (code !== 0) {
      this.fail(`${who} exited with status ${code}`, code ?? 1);
    } else if (this.server.isActive(rank)) {
      this.fail(`${who} exited with status 0 without calling MPI.Finalize`, 1);
    }
  }

  private alive(): Rank[] {
    return this.ranks.filter((r) => !r.exited);
  }

  private fail(message: string, exitCode: number): void {
    if (this.ending !== null) return;
    this.ending = { kind: 'failed', message, exitCode };
    process.stderr.write(`tsmpiexec: ${message}\n`);
    this.stopAll('SIGTERM');
  }

  private interrupt(signal: NodeJS.Signals): void {
    if (this.ending !== null) {
      // A second interrupt (or one after a failure) does not wait for reports.
      this.stopAll(signal);
      return;
    }
    this.ending = { kind: 'signal', signal };
    process.stderr.write(`tsmpiexec: ${signal}: stopping ${this.alive().length} running rank(s)\n`);
    void this.reportThenStop(signal);
  }

  /**
   * Asks every running rank what it is doing (STATE_SIGNAL; each answers on its stderr, see
   * src/mpir/state-report.ts), waits up to REPORT_WAIT_MS for the answers, says what is known
   * of those that gave none, then stops the ranks with `signal`.
   */
  private async reportThenStop(signal: NodeJS.Signals): Promise<void> {
    const notes: string[] = [];
    for (const r of this.alive()) {
      const pm = this.server.describe(r.rank);
      const pid = this.rankPid(r.rank);
      if (pm.phase === 'not-started' || pm.phase === 'barrier' || pid === null) {
        notes.push(`rank ${r.rank} ${pm.phase === 'running' ? 'is in MPI.Init' : pm.text}`);
        continue;
      }
      try {
        r.signalPid(pid, STATE_SIGNAL);
        this.reportsDue.add(r.rank);
      } catch {
        // Exited meanwhile.
      }
    }
    if (this.reportsDue.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, REPORT_WAIT_MS);
        this.reportsDone = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.reportsDone = null;
      for (const rank of this.reportsDue) {
        if (this.ranks[rank]?.exited) continue;
        notes.push(`rank ${rank} gave no state report within ${REPORT_WAIT_MS} ms: it runs JavaScript outside ` +
          'MPI calls (or a long computation), or spins in a call without sleeping');
      }
      this.reportsDue.clear();
    }
    for (const note of notes) process.stderr.write(`tsmpiexec: ${note}\n`);
    this.stopAll(signal);
  }

  /** The pid of a rank's own process (behind any wrapper), from the business card it published at Init. */
  private rankPid(rank: number): number | null {
    const text = this.server.lookup(cardKey(rank));
    if (text === undefined) return null;
    try {
      return decodeCard(rank, text).pid;
    } catch {
      return null;
    }
  }

  private noticeReports(lines: string): void {
    if (this.reportsDue.size === 0) return;
    for (const m of lines.matchAll(REPORT_END)) this.reportsDue.delete(Number(m[1]));
    if (this.reportsDue.size === 0) this.reportsDone?.();
  }

  private stopAll(signal: NodeJS.Signals): void {
    for (const r of this.alive()) r.kill(signal);
    setTimeout(() => {
      for (const r of this.alive()) r.kill('SIGKILL');
    }, KILL_GRACE_MS).unref();
  }
}

/** What identifies a socket across processes: its device and inode (as the rank's fstat sees them). */
function socketIdentity(fd: number): string {
  const st = fs.fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

/** The emulated SCI node of `rank` when `nprocs` ranks are split into `nodes` blocks (block distribution). */
export function sciNodeOf(rank: number, nprocs: number, nodes: number): number {
  return Math.floor((rank * nodes) / nprocs);
}
