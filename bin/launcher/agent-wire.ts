import type net from 'node:net';

/**
 * What tsmpiexec and its host agents (bin/launcher/agent.ts) say to each other. The launcher
 * starts one agent per host through the ssh-compatible command and writes an AgentConfig as one
 * JSON line to its stdin (stdin, not the command line: it carries the job's secret; and stdin
 * stays open, so its end tells the agent the launcher is gone). The agent then connects back
 * over TCP, presents the secret, and both sides exchange JSON lines on that connection: over
 * the network, so a host that drops off it falls silent there, and the heartbeats tell.
 */
export interface AgentConfig {
  /** The host's name in the launcher's host list (for messages). */
  readonly host: string;
  /** Where the launcher takes agent connections, host:port. */
  readonly agentPort: string;
  /** Where the ranks reach the PMI service, host:port (their PMI_PORT). */
  readonly pmiPort: string;
  readonly secret: string;
  readonly jobId: string;
  readonly size: number;
  /** The world ranks this host runs (none: an agent started for a spawn only). */
  readonly ranks: readonly number[];
  readonly command: string;
  readonly args: readonly string[];
  /** The ranks' environment on top of the agent's own (the launcher's, as hydra passes it). */
  readonly env: Readonly<Record<string, string>>;
  /** The launcher's working directory; the ranks start there when this host has it. */
  readonly cwd: string;
  /** Silence from the launcher after which the agent stops its ranks and exits. */
  readonly silenceMs: number;
  readonly heartbeatMs: number;
}

/**
 * A process of a spawned job for an agent to start. `id` is its PMI_ID, unique over the
 * launcher's jobs, and names it in every later message (where a first-job rank's is its rank).
 */
export interface SpawnSpec {
  readonly id: number;
  readonly rank: number;
  readonly size: number;
  readonly jobId: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The cwd came from info wdir: a host without it refuses the spawn (else it starts in home). */
  readonly cwdGiven: boolean;
  /** Variables on top of the job's environment (the info env, PMI_SPAWNED). */
  readonly env: Readonly<Record<string, string>>;
}

export type ToAgent =
  | { readonly t: 'hb' }
  /** Signal one rank's process group (stopping the job). */
  | { readonly t: 'kill'; readonly rank: number; readonly signal: NodeJS.Signals }
  /** Signal one process by pid (a rank's own pid from its business card: the state report). */
  | { readonly t: 'signal'; readonly pid: number; readonly signal: NodeJS.Signals }
  /** The job is over: stop what still runs, sweep this host's segments (of every job), say `swept`, exit. */
  | { readonly t: 'end' }
  /** Start these processes of a spawned job (all, or none when one cannot start); answer `spawned`. */
  | { readonly t: 'spawn'; readonly req: number; readonly procs: readonly SpawnSpec[] };

export type FromAgent =
  | { readonly t: 'hb' }
  | { readonly t: 'hello'; readonly host: string; readonly hostname: string }
  | { readonly t: 'started'; readonly rank: number; readonly pid: number }
  /** Whole lines of a rank's stdout (fd 1) or stderr (fd 2). */
  | { readonly t: 'out'; readonly rank: number; readonly fd: 1 | 2; readonly text: string }
  | { readonly t: 'exit'; readonly rank: number; readonly pid: number; readonly code: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly t: 'error'; readonly rank: number; readonly message: string }
  | { readonly t: 'swept'; readonly names: readonly string[] }
  /** The answer to `spawn` number `req`: error null when every process started. */
  | { readonly t: 'spawned'; readonly req: number; readonly error: string | null };

/** Writes one message as a JSON line. */
export function sendMessage(socket: net.Socket, message: ToAgent | FromAgent): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls `onMessage` for each JSON line arriving on `socket`, starting with `already`. */
export function readMessages<T>(socket: net.Socket, already: string, onMessage: (m: T) => void,
                                onBad: (line: string) => void): void {
  let pending = '';
  const take = (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line === '') continue;
      let message: T;
      try {
        message = JSON.parse(line) as T;
      } catch {
        onBad(line);
        continue;
      }
      onMessage(message);
    }
  };
  socket.setEncoding('utf8');
  socket.on('data', take);
  if (already !== '') take(already);
}
