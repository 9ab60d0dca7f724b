#!/usr/bin/env node
/**
 * tsmpiexec's agent on one host of a multi-host job (like hydra's proxy). Started once per host
 * through the ssh-compatible command, it reads its AgentConfig from stdin, connects back to the
 * launcher over TCP with the job's secret, starts this host's ranks, forwards their output and
 * exits, and stops them when the launcher says so. It cleans up after the job whatever ends it:
 * the launcher's `end`, its stdin closing (the launcher or ssh died), the connection closing,
 * or the launcher falling silent (its host or the network between us went down): then it
 * stops this host's ranks and removes this host's shared segments of the job, which no other
 * host can reach.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { sweepJobSegments } from '../../src/common/segment-names.js';
import { authLine, SECRET_ENV } from '../../src/pmi/auth.js';
import { readMessages, sendMessage, type AgentConfig, type SpawnSpec, type ToAgent } from './agent-wire.js';
import { resolveExecutable } from './command.js';
import { killGroup, onWholeLines } from './output.js';

/** How long ranks get after SIGTERM before SIGKILL when the agent stops them on its own. */
const KILL_GRACE_MS = 500;
const CONNECT_TIMEOUT_MS = 10_000;

interface LocalRank {
  readonly rank: number;
  readonly child: ChildProcess;
  exited: boolean;
  readonly done: Promise<void>;
}

class Agent {
  private readonly ranks: LocalRank[] = [];
  private socket: net.Socket | null = null;
  private lastHeard = Date.now();
  private stopping = false;
  /** Every job with processes here (the first, and spawned ones): each one's segments are swept at the end. */
  private readonly jobIds: Set<string>;

  constructor(private readonly config: AgentConfig) {
    this.jobIds = new Set([config.jobId]);
  }

  async run(): Promise<void> {
    this.socket = await this.connectRetrying();
    sendMessage(this.socket, { t: 'hello', host: this.config.host, hostname: os.hostname() });
    readMessages<ToAgent>(this.socket, '', (m) => this.onMessage(m), (line) => this.say(`bad line from the launcher: ${line.slice(0, 80)}`));
    this.socket.on('close', () => void this.shutdown('its connection to the launcher closed'));
    this.socket.on('error', () => this.socket?.destroy());
    const beat = setInterval(() => {
      if (this.socket !== null) sendMessage(this.socket, { t: 'hb' });
      const silent = Date.now() - this.lastHeard;
      if (silent > this.config.silenceMs) void this.shutdown(`the launcher fell silent for ${(silent / 1000).toFixed(1)} s (its host or the network is down)`);
    }, this.config.heartbeatMs);
    beat.unref();
    const { command, args, cwd, jobId, size } = this.config;
    for (const rank of this.config.ranks) {
      this.ranks.push(this.start({ id: rank, rank, size, jobId, command, args, cwd, cwdGiven: false, env: {} }));
    }
  }

  /**
   * Connects to the launcher; a failed name lookup (EAI_AGAIN: a resolver or an /etc/hosts
   * being rewritten) is tried again for a while, anything else fails at once.
   */
  private async connectRetrying(): Promise<net.Socket> {
    const deadline = Date.now() + CONNECT_TIMEOUT_MS;
    for (;;) {
      try {
        return await this.connect();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAI_AGAIN' || Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private connect(): Promise<net.Socket> {
    const colon = this.config.agentPort.lastIndexOf(':');
    const host = this.config.agentPort.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
    const port = Number(this.config.agentPort.slice(colon + 1));
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`cannot reach the launcher at ${this.config.agentPort} within ${CONNECT_TIMEOUT_MS / 1000} s`));
      }, CONNECT_TIMEOUT_MS);
      socket.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(Object.assign(new Error(`cannot reach the launcher at ${this.config.agentPort}: ${e.message}`), { code: e.code }));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.setNoDelay(true);
        socket.write(authLine(this.config.secret, 'agent'));
        resolve(socket);
      });
    });
  }

  private onMessage(m: ToAgent): void {
    this.lastHeard = Date.now();
    switch (m.t) {
      case 'hb':
        return;
      case 'kill': {
        const r = this.ranks.find((x) => x.rank === m.rank);
        if (r !== undefined && !r.exited) killGroup(r.child, m.signal);
        return;
      }
      case 'signal':
        try {
          process.kill(m.pid, m.signal);
        } catch {
          // Exited meanwhile.
        }
        return;
      case 'end':
        void this.shutdown(null);
        return;
      case 'spawn':
        this.send({ t: 'spawned', req: m.req, error: this.spawn(m.procs) });
    }
  }

  /**
   * Starts the processes of a spawned job, all or none: a command this host cannot find or an
   * info wdir it does not have refuses the whole spawn. Returns null, or why.
   */
  private spawn(procs: readonly SpawnSpec[]): string | null {
    if (this.stopping) return `the agent on ${this.config.host} is stopping`;
    for (const p of procs) {
      const env = { ...process.env, ...this.config.env, ...p.env };
      if (p.cwdGiven && !isDirectory(p.cwd)) return `info wdir ${JSON.stringify(p.cwd)} is not a directory on host ${this.config.host}`;
      const cwd = existingDir(p.cwd);
      if (resolveExecutable(p.command.includes('/') ? path.resolve(cwd, p.command) : p.command, env) === null) {
        return `cannot find an executable ${JSON.stringify(p.command)} on host ${this.config.host}` +
          `${p.command.includes('/') ? '' : ' (on its PATH)'}; give its full path, or the directory in info path`;
      }
    }
    for (const p of procs) {
      this.jobIds.add(p.jobId);
      this.ranks.push(this.start(p));
    }
    return null;
  }

  private start(spec: SpawnSpec): LocalRank {
    const { secret } = this.config;
    const { id, rank, size, jobId, command, args, cwd } = spec;
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.config.env, ...spec.env };
    for (const k of ['PMI_FD', 'TSMPI_PMI_FD_ID', 'TSMPI_SCI_NODE']) delete env[k];
    env.TSMPI_JOBID = jobId;
    env.PMI_PORT = this.pmiPort();
    env.PMI_ID = String(id);
    env.PMI_RANK = String(rank);
    env.PMI_SIZE = String(size);
    env[SECRET_ENV] = secret;
    // Own process group, so stopping a rank stops its children too (a wrapper such as npx).
    const child = spawn(command, [...args], { env, cwd: existingDir(cwd), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // Messages name the process by its PMI_ID (a first-job rank's is its rank).
    const outputs = [this.forward(id, child.stdout!, 1), this.forward(id, child.stderr!, 2)];
    const entry: LocalRank = {
      rank: id,
      child,
      exited: false,
      done: new Promise<void>((resolve) => {
        child.on('spawn', () => this.send({ t: 'started', rank: id, pid: child.pid! }));
        child.on('error', (err) => {
          entry.exited = true;
          this.send({ t: 'error', rank: id, message: `cannot start ${JSON.stringify(command)}: ${err.message}` });
          resolve();
        });
        child.on('exit', (code, signal) => {
          entry.exited = true;
          // Output first, so the launcher has every line before it hears of the exit.
          void Promise.all(outputs).then(() => {
            this.send({ t: 'exit', rank: id, pid: child.pid ?? -1, code, signal });
            resolve();
          });
        });
      }),
    };
    return entry;
  }

  /**
   * The launcher's PMI address for the ranks: its numeric address as this agent reached it, so
   * ranks do not look the name up again (and cannot get another answer than the agent did).
   */
  private pmiPort(): string {
    const address = this.socket?.remoteAddress;
    const port = this.config.pmiPort.slice(this.config.pmiPort.lastIndexOf(':') + 1);
    if (address === undefined) return this.config.pmiPort;
    const v4 = address.replace(/^::ffff:/, '');
    return v4.includes(':') ? `[${v4}]:${port}` : `${v4}:${port}`;
  }

  /** Sends whole lines of a rank's stream; a last line without a newline when the stream ends. */
  private forward(rank: number, from: Readable, fd: 1 | 2): Promise<void> {
    return onWholeLines(from, (text) => this.send({ t: 'out', rank, fd, text }));
  }

  private send(m: Parameters<typeof sendMessage>[1]): void {
    if (this.socket !== null) sendMessage(this.socket, m);
  }

  /**
   * Stops this host's ranks (SIGTERM, SIGKILL after KILL_GRACE_MS), removes the job's segments
   * in this host's /dev/shm, and exits; `why` is null when the launcher ended the job.
   */
  async shutdown(why: string | null): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const alive = this.ranks.filter((r) => !r.exited);
    if (why !== null) this.say(`${why}; stopping ${alive.length} rank(s) of this host`);
    for (const r of alive) killGroup(r.child, 'SIGTERM');
    const kill = setTimeout(() => {
      for (const r of this.ranks) if (!r.exited) killGroup(r.child, 'SIGKILL');
    }, KILL_GRACE_MS);
    await Promise.all(this.ranks.map((r) => r.done));
    clearTimeout(kill);
    const names = [...this.jobIds].flatMap((jobId) => sweepJobSegments(jobId));
    if (why !== null && names.length > 0) this.say(`removed ${names.length} shared segment(s) of the job`);
    this.send({ t: 'swept', names });
    if (this.socket !== null && !this.socket.destroyed) this.socket.end(() => process.exit(why === null ? 0 : 1));
    setTimeout(() => process.exit(why === null ? 0 : 1), 1000).unref();
    if (this.socket === null || this.socket.destroyed) process.exit(why === null ? 0 : 1);
  }

  private say(text: string): void {
    process.stderr.write(`tsmpi agent on ${this.config.host}: ${text}\n`);
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** `dir` when this host has it, else the home directory (what ssh would start in). */
function existingDir(dir: string): string {
  try {
    if (fs.statSync(dir).isDirectory()) return dir;
  } catch {
    // Not here.
  }
  return os.homedir();
}

/** Reads the first line of stdin: the AgentConfig. */
function readConfig(): Promise<AgentConfig> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: string) => {
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      process.stdin.off('data', onData);
      try {
        resolve(JSON.parse(text.slice(0, nl)) as AgentConfig);
      } catch (e) {
        reject(new Error(`the configuration on stdin is not JSON: ${(e as Error).message}`));
      }
    };
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', onData);
    process.stdin.once('end', () => reject(new Error('stdin closed before the configuration arrived (start the agent through tsmpiexec --hosts)')));
  });
}

async function main(): Promise<void> {
  // The launcher reads our stderr through ssh; when it is gone, writing there fails (EPIPE),
  // and the agent must still stop its ranks and sweep its host.
  process.stderr.on('error', () => {});
  const config = await readConfig();
  const agent = new Agent(config);
  // The launcher holds our stdin open for the whole job; its end means the launcher (or the
  // ssh that carries it) is gone.
  process.stdin.on('end', () => void agent.shutdown('the launcher went away (stdin closed)'));
  process.stdin.resume();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void agent.shutdown(`got ${signal}`));
  await agent.run();
}

main().catch((e: unknown) => {
  process.stderr.write(`tsmpi agent on ${os.hostname()}: ${(e as Error).message}\n`);
  process.exit(1);
});
