import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTrace } from '../../src/common/trace.js';
import { NameService, PmiRouter, PmiServer, type SpawnOutcome, type SpawnRequest } from '../../src/pmi/index.js';
import { newSecret } from '../../src/pmi/auth.js';
import { sweepJobSegments } from '../../src/common/segment-names.js';
import { cardKey, decodeCard } from '../../src/mpid/business-card.js';
import { STATE_SIGNAL } from '../../src/mpid/state-request.js';
import type { LaunchOptions } from './args.js';
import { placeRanks } from './hosts.js';
import { rankArgs } from './node-flags.js';
import { StartGate } from './start-gate.js';
import { killGroup, writeLines } from './output.js';
import { startLocalRank } from './local-rank.js';
import { planSpawn, type PlannedProcess } from './spawn-plan.js';
import { HostAgents, hostPort, listenTcp, type RemoteRank } from './remote.js';
import { collectStats, formatStatsJson, formatStatsTable } from './stats.js';

/** The launcher's own trace (DEBUG=tsmpiexec): the job id and where the ranks go. */
const trace = createTrace('tsmpiexec');

/** How long ranks get after SIGTERM before SIGKILL; a failed job must be down within 1 s. */
const KILL_GRACE_MS = 500;

/** How long the ranks get to report their state (STATE_SIGNAL) before a timeout or signal stops them. */
const REPORT_WAIT_MS = 1000;

/** The last line of a rank's state report (src/mpir/state-report.ts). */
const REPORT_END = /^tsmpi: rank \d+ \(pid (\d+)\): \d+ pending requests?, \d+ unexpected messages?$/gm;

/** A job the launcher runs: the first one (index 0), or one that a rank spawned (1, 2, ...). */
interface JobPart {
  readonly index: number;
  /** TSMPI_JOBID of its processes: the prefix of their shared segments, swept at the end. */
  readonly jobId: string;
  readonly server: PmiServer;
  /** What was started, for messages: the first command's name and the process count. */
  readonly what: string;
  /** Its processes no longer count: a spawn given up after some had started. */
  abandoned: boolean;
}

/** A process of one of the jobs, started here or by a host agent. */
interface Proc {
  /** Its PMI_ID, unique over every job of the launcher (the first job's ranks: their rank). */
  readonly id: number;
  readonly rank: number;
  readonly part: JobPart;
  /** The host it runs on (--hosts); null: here, in a job without hosts. */
  readonly host: string | null;
  readonly exited: boolean;
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
 * One parallel job: a PMI server, N ranks, their output, and the rules for ending early; and
 * the jobs its ranks spawn (PMI spawn: MPI's Comm.Spawn), each with a PMI server of its own
 * (key-value space, barrier, TSMPI_JOBID) but the same rules: when any process of any job
 * fails, aborts or the run times out, every process of every job is stopped and the reason is
 * printed; whatever ends the run, every job's shared segments are removed afterwards.
 */
export class Job {
  readonly jobId = randomBytes(8).toString('hex');
  /** The first job's PMI server. */
  private readonly server: PmiServer;
  /** Every job: the first, then the spawned ones in the order they were asked for. */
  private readonly parts: JobPart[] = [];
  /** Every process of every job, indexed by PMI_ID. */
  private readonly procs: Proc[] = [];
  /** The next PMI_ID to hand out: a spawned job's ranks get the ids after all earlier jobs'. */
  private nextId: number;
  private readonly names = new NameService();
  private readonly router = new PmiRouter();
  private ending: Ending | null = null;
  private listener: net.Server | null = null;
  private socketPath: string | null = null;
  /** The agents of a multi-host job (--hosts, --hostfile); null when every rank starts here. */
  private agents: HostAgents | null = null;
  private tcpListener: net.Server | null = null;
  /** Processes (by pid) asked for their state whose report has not come yet, and who to tell when it has. */
  private readonly reportsDue = new Map<number, Proc>();
  private reportsDone: (() => void) | null = null;

  constructor(private readonly options: LaunchOptions) {
    this.nextId = options.nprocs;
    this.server = this.newPart(this.jobId, options.nprocs, `${options.command}`, 0, []).server;
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
      const first = this.parts[0]!;
      if (this.options.hosts !== null) {
        await this.startOnHosts(first);
      } else {
        const gate = nprocs > 1 ? new StartGate() : null;
        try {
          for (let r = 0; r < nprocs && this.ending === null; r++) {
            this.startHere(first, r, this.options.command, this.options.args, { ...process.env, ...Object.fromEntries(this.options.exports) },
              undefined, gate);
          }
        } finally {
          gate?.open();
        }
      }
      // A spawn adds processes while others run; the run is over when no process is left.
      for (let waited = 0; waited < this.procs.length;) {
        const upTo = this.procs.length;
        await Promise.all(this.procs.slice(waited, upTo).map((p) => p.done));
        waited = upTo;
      }
    } finally {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      await this.agents?.end();
      for (const part of this.parts) part.server.close();
      this.listener?.close();
      this.tcpListener?.close();
      if (this.socketPath) fs.rmSync(this.socketPath, { force: true });
      for (const part of this.parts) sweepJobSegments(part.jobId);
    }
    if (this.options.stats !== null) this.printStats();
    const ending = this.ending as Ending | null;
    if (ending === null) return 0;
    if (ending.kind === 'signal') return 128 + (os.constants.signals[ending.signal] ?? 15);
    return ending.exitCode;
  }

  /** A job's PMI server, registered with the router and the list of jobs to sweep. */
  private newPart(jobId: string, size: number, what: string, firstId: number,
                  preput: SpawnRequest['preput'], appnums?: readonly number[]): JobPart {
    const index = this.parts.length;
    const hosts = this.options.hosts;
    const server = new PmiServer({
      size,
      kvsname: `tsmpi_${jobId}`,
      // The same for every job of the run: the first job's size, or the hosts' slots when more.
      universeSize: Math.max(this.options.nprocs, hosts === null ? 0 : hosts.reduce((n, h) => n + h.slots, 0)),
      firstId,
      preput,
      names: this.names,
      appnumOf: appnums === undefined ? undefined : (rank) => appnums[rank] ?? 0,
      onSpawn: (rank, request) => this.spawnJob(part, rank, request),
      onAbort: (rank, code, message) =>
        this.fail(`${who(part, rank)} called MPI_Abort with exit code ${code}${message ? `: ${message}` : ''}`, code),
      onProtocolError: (rank, message) => this.fail(`PMI protocol error from ${rank === null ? 'a rank' : who(part, rank)}: ${message}`, 1),
    });
    const part: JobPart = { index, jobId, server, what, abandoned: false };
    this.parts.push(part);
    this.router.add(server);
    return part;
  }

  /**
   * A rank of `parent` asked for a new job: plans it (src: spawn-plan.ts; a request that cannot
   * be met starts nothing and says why), gives it a PMI server and a job id, starts its
   * processes, and resolves once they are started (not when they reach Init).
   */
  private async spawnJob(parent: JobPart, rank: number, request: SpawnRequest): Promise<SpawnOutcome> {
    if (this.ending !== null) return { error: 'the run is ending' };
    const hosts = this.options.hosts;
    const launcherHost = this.options.launcherHost ?? os.hostname();
    const plan = planSpawn(request, {
      hosts,
      localNames: [os.hostname(), 'localhost', launcherHost],
      launcherHost: hosts?.some((h) => h.host === launcherHost) ? launcherHost : null,
      load: (host) => this.procs.filter((p) => !p.exited && p.host === host).length,
      cwd: process.cwd(),
      env: { ...process.env, ...Object.fromEntries(this.options.exports) },
    });
    if ('error' in plan) {
      trace('spawn by %s refused: %s', who(parent, rank), plan.error);
      return plan;
    }
    const size = plan.processes.length;
    // `node child.js`, not the path of node: the script is what names the program.
    const what = request.blocks.map((b) => [b.command, ...b.args.slice(0, 1)].map((w) => path.basename(w)).join(' ')).join(', ');
    const part = this.newPart(randomBytes(8).toString('hex'), size, what, this.nextId, request.preput,
      plan.processes.map((p) => p.appnum));
    this.nextId += size;
    trace('%s spawned job %d (%s): %d process(es), PMI ids %d..%d', who(parent, rank), part.index, part.jobId, size,
      part.server.firstId, part.server.firstId + size - 1);
    const remote = new Map<string, PlannedProcess[]>();
    for (const p of plan.processes) {
      if (p.host === null) {
        this.startHere(part, p.rank, p.command, p.args, { ...process.env, ...Object.fromEntries(this.options.exports), ...p.env }, p.cwd, null);
      } else {
        let list = remote.get(p.host);
        if (list === undefined) remote.set(p.host, (list = []));
        list.push(p);
      }
    }
    if (remote.size > 0) {
      const error = await this.spawnOnHosts(part, remote);
      if (error !== null) {
        // Some hosts may have started theirs: those are stopped, and their ends do not count.
        part.abandoned = true;
        for (const p of this.procs) if (p.part === part && !p.exited) p.kill('SIGKILL');
        return { error };
      }
      // The run ended while the agents were starting them: they missed the stop.
      if (this.ending !== null) for (const p of this.procs) if (p.part === part && !p.exited) p.kill('SIGTERM');
    }
    return { errcodes: new Array<number>(size).fill(0) };
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
    this.router.listen(server);
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
  private async startOnHosts(first: JobPart): Promise<void> {
    const { nprocs, command, args, exports, tagOutput, launcherExec } = this.options;
    const launcherHost = this.options.launcherHost ?? os.hostname();
    const secret = newSecret();
    const tcp = net.createServer();
    this.tcpListener = tcp;
    const pmiPort = await listenTcp(tcp);
    this.router.listenAuthenticated(tcp, secret);
    const procOf = (id: number) => this.procs[id];
    this.agents = new HostAgents({
      exit: (id, pid, code, signal, host) => {
        const p = procOf(id);
        if (p !== undefined) this.onExit(p, pid, code, signal, host);
      },
      fail: (message, exitCode) => this.fail(message, exitCode),
      failProcess: (id: number, host: string, message: string) => {
        const p = procOf(id);
        if (p !== undefined && !p.part.abandoned) this.fail(`${who(p.part, p.rank)} on host ${host}: ${message}`, 127);
      },
      output: (id, fd, text) => {
        const p = procOf(id);
        writeLines(fd === 1 ? process.stdout : process.stderr, text, p === undefined || !tagOutput ? '' : prefixOf(p.part, p.rank));
        if (fd === 2) this.noticeReports(text);
      },
    }, secret, launcherExec, launcherHost);
    const placement = placeRanks(this.options.hosts!, nprocs);
    trace('job %s: PMI on TCP port %d; %s', this.jobId, pmiPort,
      [...placement].map(([host, ranks]) => `${host}: ranks ${ranks.join(',')}`).join('; '));
    const started = await this.agents.start(placement, {
      pmiPort: `${hostPort(launcherHost, pmiPort)}`, jobId: this.jobId, size: nprocs, command,
      args: rankArgs(command, args, Math.max(...[...placement.values()].map((ranks) => ranks.length)),
        { ...process.env, ...Object.fromEntries(exports) }), cwd: process.cwd(),
    }, exports);
    for (const r of started) this.procs[r.rank] = remoteProc(r, r.rank, first);
  }

  /** Starts a spawned job's processes on other hosts through their agents; null, or why it failed. */
  private async spawnOnHosts(part: JobPart, byHost: ReadonlyMap<string, readonly PlannedProcess[]>): Promise<string | null> {
    const agents = this.agents!;
    const size = part.server.size;
    const waits: Promise<string | null>[] = [];
    for (const [host, list] of byHost) {
      const specs = list.map((p) => ({
        id: part.server.firstId + p.rank, rank: p.rank, size, jobId: part.jobId, command: p.command,
        args: rankArgs(p.command, p.args, list.length, { ...process.env, ...p.env }), cwd: p.cwd, cwdGiven: p.cwdGiven, env: p.env,
      }));
      const { started, result } = agents.spawn(host, specs);
      for (const r of started) this.procs[r.rank] = remoteProc(r, specs.find((s) => s.id === r.rank)!.rank, part);
      waits.push(result);
    }
    const errors = (await Promise.all(waits)).filter((e) => e !== null);
    return errors.length === 0 ? null : errors.join('; ');
  }

  /** Starts process `rank` of `part` on this host. */
  private startHere(part: JobPart, rank: number, command: string, args: readonly string[],
                    env: NodeJS.ProcessEnv, cwd: string | undefined, gate: StartGate | null): void {
    const { tagOutput, sciNodes, pmiPort } = this.options;
    const { size, firstId } = part.server;
    const id = firstId + rank;
    // A spawned job is not split into SCI nodes: its processes get what the launcher's environment says.
    if (sciNodes !== null && part.index === 0) env.TSMPI_SCI_NODE = String(sciNodeOf(rank, size, sciNodes));
    const started = startLocalRank({
      rank, size, pmiId: id, jobId: part.jobId, command, argv: rankArgs(command, args, size, env), env, cwd,
      server: part.server, socketPath: this.socketPath!, pmiFd: !pmiPort, gate,
      // Only the first job's rank 0 reads the launcher's stdin, as with hydra.
      stdin: part.index === 0 && rank === 0 ? 'inherit' : 'ignore',
      prefix: tagOutput ? prefixOf(part, rank) : '',
    }, {
      startFailed: (err) => this.fail(`${who(part, rank)}: cannot start ${JSON.stringify(command)}: ${err.message}`, 127),
      exited: (pid, code, signal) => this.onExit(proc, pid, code, signal),
      stderr: (lines) => this.noticeReports(lines),
    });
    const proc: Proc = {
      id, rank, part, host: null,
      get exited() { return started.exited; },
      done: started.done,
      kill: (signal) => killGroup(started.child, signal),
      signalPid: (pid, signal) => process.kill(pid, signal),
    };
    this.procs[id] = proc;
  }

  private onExit(p: Proc, pid: number, code: number | null, signal: NodeJS.Signals | null, host?: string): void {
    if (this.ending !== null || p.part.abandoned) return;
    const named = who(p.part, p.rank, `pid ${pid}${host === undefined ? '' : ` on host ${host}`}`);
    if (signal !== null) {
      this.fail(`${named} was killed by signal ${signal}`, 128 + (os.constants.signals[signal] ?? 0));
    } else if (code !== 0) {
      this.fail(`${named} exited with status ${code}`, code ?? 1);
    } else if (p.part.server.isActive(p.rank)) {
      this.fail(`${named} exited with status 0 without calling MPI.Finalize`, 1);
    }
  }

  private alive(): Proc[] {
    return this.procs.filter((p) => p !== undefined && !p.exited);
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
    for (const p of this.alive()) {
      const pm = p.part.server.describe(p.rank);
      const pid = this.rankPid(p);
      if (pm.phase === 'not-started' || pm.phase === 'barrier' || pid === null) {
        notes.push(`${who(p.part, p.rank)} ${pm.phase === 'running' ? 'is in MPI.Init' : pm.text}`);
        continue;
      }
      try {
        p.signalPid(pid, STATE_SIGNAL);
        this.reportsDue.set(pid, p);
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
      for (const p of this.reportsDue.values()) {
        if (p.exited) continue;
        notes.push(`${who(p.part, p.rank)} gave no state report within ${REPORT_WAIT_MS} ms: it runs JavaScript outside ` +
          'MPI calls (or a long computation), or spins in a call without sleeping');
      }
      this.reportsDue.clear();
    }
    for (const note of notes) process.stderr.write(`tsmpiexec: ${note}\n`);
    this.stopAll(signal);
  }

  /** The pid of a rank's own process (behind any wrapper), from the business card it published at Init. */
  private rankPid(p: Proc): number | null {
    const text = p.part.server.lookup(cardKey(p.rank));
    if (text === undefined) return null;
    try {
      return decodeCard(p.rank, text).pid;
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
    for (const p of this.alive()) p.kill(signal);
    setTimeout(() => {
      for (const p of this.alive()) p.kill('SIGKILL');
    }, KILL_GRACE_MS).unref();
  }
}

/** A process on another host as the job sees it. */
function remoteProc(r: RemoteRank, rank: number, part: JobPart): Proc {
  return {
    id: r.rank, rank, part, host: r.host,
    get exited() { return r.exited; },
    done: r.done,
    kill: (signal) => r.kill(signal),
    signalPid: (pid, signal) => r.signalPid(pid, signal),
  };
}

/** How messages name a rank: `rank 3 (pid 7)` of the first job, `rank 1 of spawned job 2 (node child.js; pid 8)` of a spawned one. */
function who(part: JobPart, rank: number, detail?: string): string {
  const notes = [...(part.index === 0 ? [] : [part.what]), ...(detail === undefined ? [] : [detail])];
  const name = part.index === 0 ? `rank ${rank}` : `rank ${rank} of spawned job ${part.index}`;
  return notes.length === 0 ? name : `${name} (${notes.join('; ')})`;
}

/** The --tag-output prefix: `[3] ` for the first job's ranks, `[2:1] ` for rank 1 of spawned job 2. */
function prefixOf(part: JobPart, rank: number): string {
  return part.index === 0 ? `[${rank}] ` : `[${part.index}:${rank}] `;
}

/** The emulated SCI node of `rank` when `nprocs` ranks are split into `nodes` blocks (block distribution). */
export function sciNodeOf(rank: number, nprocs: number, nodes: number): number {
  return Math.floor((rank * nodes) / nprocs);
}
