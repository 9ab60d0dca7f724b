import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { acceptAuthenticated } from '../../src/pmi/auth.js';
import { readMessages, sendMessage, type AgentConfig, type FromAgent, type SpawnSpec } from './agent-wire.js';
import { quoteForShell } from './command.js';
import { forwardLines } from './output.js';

/** How often launcher and agents tell each other they are alive. */
const HEARTBEAT_MS = 500;
/**
 * Silence after which a host counts as lost. A few heartbeats, so a loaded machine does not
 * lose a host that is merely slow, and short enough that a cut host ends the job in seconds.
 */
export const HOST_TIMEOUT_MS = 4000;
/** How long an agent may take to connect back after its ssh was started (ssh can be slow to log in). */
const AGENT_CONNECT_MS = 30_000;
/** How long the launcher waits at the end for the agents to stop their ranks and sweep. */
const END_WAIT_MS = 3000;

/** Variables of the launcher's environment that describe its own host or session, not the job's. */
const HOST_LOCAL = /^(?:HOSTNAME|PWD|OLDPWD|SHLVL|_|SSH_\w+|PMI_\w+|TSMPI_PMI_FD_ID|TSMPI_JOBID|TSMPI_SCI_NODE|TSMPI_PMI_SECRET)$/;

/** A rank as the job sees it, wherever it runs. */
export interface RemoteRank {
  /** Its rank in the first job; for a spawned job's process, its PMI_ID (unique over the jobs). */
  readonly rank: number;
  readonly host: string;
  exited: boolean;
  readonly done: Promise<void>;
  kill(signal: NodeJS.Signals): void;
  /** Sends `signal` to process `pid` on the rank's host (the rank's own pid, from its card). */
  signalPid(pid: number, signal: NodeJS.Signals): void;
}

/** What the agents report to the job. */
export interface AgentEvents {
  exit(rank: number, pid: number, code: number | null, signal: NodeJS.Signals | null, host: string): void;
  fail(message: string, exitCode: number): void;
  /** Process `rank` (see RemoteRank) could not be started on `host`. */
  failProcess(rank: number, host: string, message: string): void;
  output(rank: number, fd: 1 | 2, text: string): void;
}

interface RankEntry extends RemoteRank {
  finish(): void;
}

/** One host's agent: its ssh process, its connection, its ranks. */
class AgentLink {
  socket: net.Socket | null = null;
  lastHeard = Date.now();
  /** The agent has swept its host after `end`, or the host is given up: nothing more to wait for. */
  finished = false;
  lost = false;
  child: ChildProcess | null = null;
  private sweptWaiter: (() => void) | null = null;
  /** Spawn requests sent to the agent and not yet answered, by request number. */
  readonly spawnsDue = new Map<number, (error: string | null) => void>();
  private connectWaiters: (() => void)[] = [];

  constructor(readonly host: string, readonly ranks: RankEntry[]) {}

  /** Resolves once the agent has connected back (or the host is given up). */
  connected(): Promise<void> {
    if (this.socket !== null || this.lost) return Promise.resolve();
    return new Promise((resolve) => this.connectWaiters.push(resolve));
  }

  markConnected(): void {
    for (const w of this.connectWaiters.splice(0)) w();
  }

  send(m: Parameters<typeof sendMessage>[1]): void {
    if (this.socket !== null && !this.lost) sendMessage(this.socket, m);
  }

  markSwept(): void {
    this.finished = true;
    this.sweptWaiter?.();
  }

  /** Resolves when the agent has swept its host, or after `ms`. */
  waitSwept(ms: number): Promise<void> {
    if (this.finished) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.sweptWaiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * The launcher's side of a multi-host job: starts an agent per host through the ssh-compatible
 * command, takes their authenticated connections, turns their messages into the job's rank
 * exits and output, and watches their heartbeats: a host whose agent falls silent for
 * HOST_TIMEOUT_MS, whose connection closes or whose agent exits early ends the job, named.
 */
export class HostAgents {
  private readonly links = new Map<string, AgentLink>();
  private readonly listener = net.createServer();
  private heartbeat: NodeJS.Timeout | null = null;
  private ending = false;
  /** The configuration the first job's agents got, for agents started later for a spawn. */
  private base: Omit<AgentConfig, 'host' | 'ranks'> | null = null;
  private nextSpawn = 0;

  constructor(private readonly events: AgentEvents, private readonly secret: string,
              private readonly launcherExec: readonly string[], private readonly launcherHost: string) {}

  /**
   * Starts the agents for `placement` (host -> its ranks) and returns every rank of the job,
   * indexed by rank. `base` is the rest of each agent's configuration.
   */
  async start(placement: ReadonlyMap<string, readonly number[]>,
              base: Omit<AgentConfig, 'host' | 'ranks' | 'agentPort' | 'env' | 'silenceMs' | 'heartbeatMs' | 'secret'>,
              exports: ReadonlyMap<string, string>): Promise<RemoteRank[]> {
    const port = await listenTcp(this.listener);
    acceptAuthenticated(this.listener, this.secret, 'agent', (socket, rest) => this.onConnection(socket, rest));
    const env = jobEnvironment(exports);
    const all: RemoteRank[] = [];
    this.base = {
      ...base, env, secret: this.secret, agentPort: hostPort(this.launcherHost, port),
      // Longer than ours: when the network between us fails, the launcher names the host
      // first; the agent then cleans up its host on its own.
      silenceMs: 2 * HOST_TIMEOUT_MS, heartbeatMs: HEARTBEAT_MS,
    };
    for (const [host, ranks] of placement) {
      const entries = ranks.map((r) => this.rankEntry(r, host));
      for (const e of entries) all[e.rank] = e;
      this.addLink(host, entries, ranks);
    }
    this.heartbeat = setInterval(() => this.checkHeartbeats(), HEARTBEAT_MS);
    return all;
  }

  /**
   * Starts processes of a spawned job on `host` through its agent (started now if the host had
   * no rank yet). `started` are the processes as the job sees them, at once; `result` resolves
   * when the agent has started them all (null) or refused the lot (why).
   */
  spawn(host: string, procs: readonly SpawnSpec[]): { started: RemoteRank[]; result: Promise<string | null> } {
    const entries = procs.map((p) => this.rankEntry(p.id, host));
    let link = this.links.get(host);
    if (link === undefined) link = this.addLink(host, [], []);
    const target = link;
    target.ranks.push(...entries);
    const req = this.nextSpawn++;
    const result = target.connected().then(() => new Promise<string | null>((resolve) => {
      if (target.lost || target.finished) {
        resolve(`the agent on host ${host} is gone`);
        return;
      }
      target.spawnsDue.set(req, resolve);
      target.send({ t: 'spawn', req, procs });
    })).then((error) => {
      // Refused: nothing started there, so its entries are over.
      if (error !== null) for (const e of entries) e.finish();
      return error;
    });
    return { started: entries, result };
  }

  private addLink(host: string, entries: RankEntry[], ranks: readonly number[]): AgentLink {
    const link = new AgentLink(host, entries);
    this.links.set(host, link);
    this.spawnAgent(link, { ...this.base!, host, ranks });
    return link;
  }

  /** The job is over: each agent stops what still runs and sweeps its host; waits for that, bounded. */
  async end(): Promise<void> {
    this.ending = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    const waits: Promise<void>[] = [];
    for (const link of this.links.values()) {
      if (link.lost || link.socket === null) continue;
      link.send({ t: 'end' });
      waits.push(link.waitSwept(END_WAIT_MS));
    }
    await Promise.all(waits);
    for (const link of this.links.values()) this.release(link);
    this.listener.close();
  }

  private rankEntry(rank: number, host: string): RankEntry {
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entry: RankEntry = {
      rank, host, exited: false, done,
      kill: (signal) => this.links.get(host)?.send({ t: 'kill', rank, signal }),
      signalPid: (pid, signal) => this.links.get(host)?.send({ t: 'signal', pid, signal }),
      finish: () => {
        entry.exited = true;
        finish();
      },
    };
    return entry;
  }

  private spawnAgent(link: AgentLink, config: AgentConfig): void {
    const script = fileURLToPath(new URL('./agent.js', import.meta.url));
    const commandLine = `exec ${[process.execPath, ...process.execArgv, script].map(quoteForShell).join(' ')}`;
    const [exe, ...pre] = this.launcherExec;
    const shown = [...this.launcherExec, link.host].join(' ');
    // The agent's stderr (its own messages, and ssh's) comes through a pipe rather than being
    // inherited, so an ssh that lingers after a lost host does not hold our caller's stderr open.
    const child = spawn(exe!, [...pre, link.host, commandLine], { stdio: ['pipe', 'ignore', 'pipe'] });
    void forwardLines(child.stderr!, process.stderr, '');
    link.child = child;
    child.stdin!.on('error', () => {});
    child.stdin!.write(`${JSON.stringify(config)}\n`);
    child.on('error', (e) => this.hostLost(link, `cannot start the agent on host ${link.host} with \`${shown}\`: ${e.message}`, 127));
    child.on('exit', (code, signal) => {
      if (link.finished || this.ending) return;
      const how = signal !== null ? `was killed by signal ${signal}` : `exited with status ${code}`;
      const hint = link.socket === null ? ` before it connected back (is tsmpi installed at ${script} there, can ${link.host} reach this host as ${this.launcherHost}? see --launcher-host)` : ' before the job ended';
      this.hostLost(link, `the agent on host ${link.host} (started with \`${shown}\`) ${how}${hint}`, code === 255 ? 255 : 1);
    });
    setTimeout(() => {
      if (link.socket === null && !link.lost && !this.ending) {
        this.hostLost(link, `the agent on host ${link.host} did not connect back within ${AGENT_CONNECT_MS / 1000} s (can ${link.host} reach this host as ${this.launcherHost}? see --launcher-host)`, 1);
      }
    }, AGENT_CONNECT_MS).unref();
  }

  private onConnection(socket: net.Socket, rest: string): void {
    socket.setNoDelay(true);
    let link: AgentLink | null = null;
    readMessages<FromAgent>(socket, rest, (m) => {
      if (link === null) {
        // The first message names the host as the configuration we handed that agent did
        // (the connection presented the secret, so it is one of our agents).
        if (m.t !== 'hello') {
          socket.destroy();
          return;
        }
        link = [...this.links.values()].find((l) => l.socket === null && !l.lost && l.host === m.host) ?? null;
        if (link === null) {
          socket.destroy();
          return;
        }
        link.socket = socket;
        link.lastHeard = Date.now();
        link.markConnected();
        socket.on('close', () => {
          if (!link!.finished && !this.ending) this.hostLost(link!, `lost the connection to the agent on host ${link!.host}`, 1);
        });
        return;
      }
      this.onMessage(link, m);
    }, () => socket.destroy());
    socket.on('error', () => socket.destroy());
  }

  private onMessage(link: AgentLink, m: FromAgent): void {
    link.lastHeard = Date.now();
    switch (m.t) {
      case 'out':
        this.events.output(m.rank, m.fd, m.text);
        return;
      case 'exit': {
        const entry = link.ranks.find((r) => r.rank === m.rank);
        if (entry === undefined || entry.exited) return;
        this.events.exit(m.rank, m.pid, m.code, m.signal, link.host);
        entry.finish();
        return;
      }
      case 'error': {
        const entry = link.ranks.find((r) => r.rank === m.rank);
        this.events.failProcess(m.rank, link.host, m.message);
        entry?.finish();
        return;
      }
      case 'spawned': {
        const answer = link.spawnsDue.get(m.req);
        link.spawnsDue.delete(m.req);
        answer?.(m.error);
        return;
      }
      case 'swept':
        link.markSwept();
        return;
      default:
        // hb, hello again, started: being heard is all they say.
    }
  }

  private checkHeartbeats(): void {
    const now = Date.now();
    for (const link of this.links.values()) {
      if (link.lost || link.finished) continue;
      if (link.socket !== null) link.send({ t: 'hb' });
      const silent = now - link.lastHeard;
      if (link.socket !== null && silent > HOST_TIMEOUT_MS) {
        const ranks = link.ranks.filter((r) => !r.exited).map((r) => r.rank);
        this.hostLost(link, `host ${link.host} stopped answering: no word from its agent for ${(silent / 1000).toFixed(1)} s ` +
          `(the host is down or the network to it is cut); its rank(s) ${ranks.join(', ')} are lost`, 1);
      }
    }
  }

  /** Gives up on a host: the job fails with `message`, and its ranks count as ended. */
  private hostLost(link: AgentLink, message: string, exitCode: number): void {
    if (link.lost) return;
    link.lost = true;
    this.events.fail(message, exitCode);
    for (const r of link.ranks) if (!r.exited) r.finish();
    for (const answer of link.spawnsDue.values()) answer(`host ${link.host} was lost`);
    link.spawnsDue.clear();
    link.markConnected();
    this.release(link);
  }

  /**
   * Lets go of an agent: closing its stdin tells it the launcher is gone (it then stops its
   * ranks and sweeps its host by itself), and the launcher does not wait for its ssh.
   */
  private release(link: AgentLink): void {
    link.finished = true;
    link.socket?.destroy();
    const child = link.child;
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      child.unref();
      // Its last words still come through while we run, but we do not wait for them.
      (child.stderr as net.Socket | null)?.unref();
    }
  }
}

/** The ranks' environment: the launcher's own (as hydra passes it), without what is local to this host, plus -x. */
function jobEnvironment(exports: ReadonlyMap<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !HOST_LOCAL.test(k)) env[k] = v;
  for (const [k, v] of exports) env[k] = v;
  return env;
}

/** `host:port`, with an IPv6 address in brackets. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function listenTcp(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, () => resolve((server.address() as net.AddressInfo).port));
  });
}
