import net from 'node:net';
import { createTrace } from '../common/trace.js';
import { acceptAuthenticated } from './auth.js';
import type { NameService } from './name-service.js';
import { SpawnAssembler, type SpawnRequest } from './spawn-wire.js';
import { formatLine, LineSplitter, parseLine, type PmiMessage } from './wire.js';

/** Every PMI line, tagged with the rank it goes to or comes from (the launcher's side of tsmpi:pmi:wire). */
const wire = createTrace('tsmpi:pmi:wire');

export interface PmiServerOptions {
  readonly size: number;
  readonly kvsname: string;
  /** Each rank's appnum (get_appnum): the index of its command in a Spawn_multiple; 0 if absent. */
  readonly appnumOf?: (rank: number) => number;
  readonly universeSize?: number;
  /**
   * The PMI_ID of rank 0 (initack's pmiid is firstId + rank). Ids are unique across every job of
   * one launcher, as spawned jobs connect to the same PMI_PORT (see src/pmi/router.ts).
   */
  readonly firstId?: number;
  /** Keys in the job's space before any rank starts: the spawner's preput. */
  readonly preput?: ReadonlyArray<readonly [string, string]>;
  /** The launcher's name service, shared by all its jobs; without one, publish/lookup fail. */
  readonly names?: NameService;
  /**
   * A rank asked for a new job (mcmd=spawn). Resolves once its processes are started, with an
   * error code per process, or with why nothing was started; without it, spawn is refused.
   */
  readonly onSpawn?: (rank: number, request: SpawnRequest) => Promise<SpawnOutcome>;
  /** A rank asked to end the job (MPI.Abort, or a fatal error). */
  readonly onAbort: (rank: number, exitcode: number, message: string) => void;
  /** A client broke the protocol; the job cannot go on. */
  readonly onProtocolError: (rank: number | null, message: string) => void;
}

export type SpawnOutcome = { readonly errcodes: readonly number[] } | { readonly error: string };

/** Maxes as hydra announces them; values must fit PMI_MAXLINE with command, kvsname and key. */
const MAXES = { kvsname_max: 256, keylen_max: 64, vallen_max: 1024 } as const;

interface Client {
  rank: number | null;
  readonly socket: net.Socket;
  /** Identified itself with initack (PMI_PORT). */
  acked: boolean;
  initialized: boolean;
  finalized: boolean;
  /** The lines of a spawn request under way (mcmd=spawn ... endcmd, per command). */
  readonly spawn: SpawnAssembler;
}

/**
 * The PMI-1 server of tsmpiexec: one key-value space per job, a barrier that is also the KVS
 * fence, and abort. Ranks reach it on an inherited socket (PMI_FD; the rank is known from the
 * socket) or by connecting to a listening socket (PMI_PORT; the rank comes from initack); a
 * rank may have both and use either.
 */
export class PmiServer {
  private readonly kvs = new Map<string, string>();
  private readonly clients: Client[] = [];
  private barrierWaiting: Client[] = [];

  constructor(private readonly options: PmiServerOptions) {
    for (const [k, v] of options.preput ?? []) this.kvs.set(k, v);
  }

  /** The PMI_ID of rank 0; a rank's is firstId + rank. */
  get firstId(): number {
    return this.options.firstId ?? 0;
  }

  get size(): number {
    return this.options.size;
  }

  /**
   * Serves one rank's connection; rank null means it will identify itself with initack.
   * `already` is what arrived before the connection was handed here (after an auth line).
   */
  attach(socket: net.Socket, rank: number | null, already = ''): void {
    const client: Client = { rank, socket, acked: false, initialized: false, finalized: false, spawn: new SpawnAssembler() };
    this.clients.push(client);
    const lines = new LineSplitter();
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      for (const line of lines.push(chunk)) this.handleLine(client, line);
    });
    socket.on('error', () => socket.destroy());
    if (already !== '') for (const line of lines.push(already)) this.handleLine(client, line);
  }

  /** Serves the PMI_PORT connections that arrive on a listening socket (a private Unix socket). */
  listen(server: net.Server): void {
    server.on('connection', (socket) => this.attach(socket, null));
  }

  /**
   * Serves connections on a TCP socket that anyone may reach: each must first present the
   * job's secret (src/pmi/auth.ts), is told `auth_result rc=0`, and is then served as on
   * PMI_PORT; any other connection is closed without a reply, not even the kvsname.
   */
  listenAuthenticated(server: net.Server, secret: string, onRefused?: (why: string) => void): void {
    acceptAuthenticated(server, secret, 'rank', (socket, rest) => {
      socket.write(formatLine('auth_result', { rc: 0 }));
      this.attach(socket, null, rest);
    }, onRefused);
  }

  /** Whether `rank` started PMI (init) and has not yet finalized: exiting now is a failure. */
  isActive(rank: number): boolean {
    return this.clients.some((c) => c.rank === rank && c.initialized && !c.finalized);
  }

  /** A value in the job's key-value space (what ranks put), or undefined. */
  lookup(key: string): string | undefined {
    return this.kvs.get(key);
  }

  /** Where `rank` is in its PMI life, in words (for the launcher's reports on a stuck job). */
  describe(rank: number): { phase: 'not-started' | 'barrier' | 'running' | 'finalized'; text: string } {
    const client = this.clients.find((c) => c.rank === rank && (c.acked || c.initialized));
    if (client === undefined || !client.initialized) return { phase: 'not-started', text: 'has not called MPI.Init (no PMI init yet)' };
    if (client.finalized) return { phase: 'finalized', text: 'has finished MPI.Finalize' };
    if (this.barrierWaiting.includes(client)) {
      return { phase: 'barrier', text: `waits in a PMI barrier (in MPI.Init, MPI.Finalize or a communicator's creation) for ${this.options.size - this.barrierWaiting.length} other rank(s)` };
    }
    return { phase: 'running', text: 'is running' };
  }

  close(): void {
    for (const c of this.clients) c.socket.destroy();
  }

  /** One line of a spawn request; the whole request goes to onSpawn, its outcome back as spawn_result. */
  private spawnLine(client: Client, line: string): void {
    let request: SpawnRequest | null;
    try {
      request = client.spawn.push(line);
    } catch (e) {
      this.options.onProtocolError(client.rank, (e as Error).message);
      return;
    }
    if (request === null) return;
    const onSpawn = this.options.onSpawn;
    if (onSpawn === undefined) {
      this.send(client, 'spawn_result', { rc: 1, msg: oneLine('this process manager cannot spawn') });
      return;
    }
    onSpawn(client.rank ?? -1, request).then((outcome) => {
      if ('error' in outcome) this.send(client, 'spawn_result', { rc: 1, msg: oneLine(outcome.error) });
      else this.send(client, 'spawn_result', { rc: 0, errcodes: outcome.errcodes.join(',') });
    }, (e: unknown) => this.send(client, 'spawn_result', { rc: 1, msg: oneLine(`the launcher failed to spawn: ${(e as Error).message}`) }));
  }

  private send(client: Client, cmd: string, fields: Record<string, string | number> = {}): void {
    const line = formatLine(cmd, fields);
    wire('[rank %s] -> %s', client.rank, line.trimEnd());
    if (!client.socket.destroyed) client.socket.write(line);
  }

  private handleLine(client: Client, line: string): void {
    wire('[rank %s] <- %s', client.rank, line.trimEnd());
    if (client.spawn.active || line.startsWith('mcmd=')) {
      this.spawnLine(client, line);
      return;
    }
    let msg: PmiMessage;
    try {
      msg = parseLine(line);
    } catch {
      this.options.onProtocolError(client.rank, `malformed PMI line ${JSON.stringify(line)}`);
      return;
    }
    const f = msg.fields;
    switch (msg.cmd) {
      case 'initack': {
        const id = Number(f.get('pmiid')) - this.firstId;
        // A rank's inherited socket (PMI_FD) may sit unused when the rank connected here instead
        // (its fd was lost on the way); only a second live identity for one rank is an error.
        const taken = (c: Client) => c !== client && c.rank === id && (c.acked || c.initialized);
        if (!Number.isInteger(id) || id < 0 || id >= this.options.size || this.clients.some(taken)) {
          this.options.onProtocolError(null, `initack with a bad or duplicate pmiid ${JSON.stringify(f.get('pmiid'))}`);
          return;
        }
        client.rank = id;
        client.acked = true;
        this.send(client, 'initack');
        this.send(client, 'set', { size: this.options.size });
        this.send(client, 'set', { rank: id });
        this.send(client, 'set', { debug: 0 });
        return;
      }
      case 'init':
        client.initialized = true;
        this.send(client, 'response_to_init', { pmi_version: 1, pmi_subversion: 1, rc: 0 });
        return;
      case 'get_maxes':
        this.send(client, 'maxes', MAXES);
        return;
      case 'get_my_kvsname':
        this.send(client, 'my_kvsname', { kvsname: this.options.kvsname });
        return;
      case 'get_appnum':
        this.send(client, 'appnum', { appnum: this.options.appnumOf?.(client.rank ?? 0) ?? 0 });
        return;
      case 'get_universe_size':
        this.send(client, 'universe_size', { size: this.options.universeSize ?? this.options.size });
        return;
      case 'put': {
        const key = f.get('key');
        const value = f.get('value') ?? '';
        if (f.get('kvsname') !== this.options.kvsname || key === undefined) {
          this.send(client, 'put_result', { rc: -1, msg: 'bad_kvsname_or_key' });
          return;
        }
        this.kvs.set(key, value);
        this.send(client, 'put_result', { rc: 0, msg: 'success' });
        return;
      }
      case 'get': {
        const key = f.get('key');
        const value = key === undefined ? undefined : this.kvs.get(key);
        if (f.get('kvsname') !== this.options.kvsname || value === undefined) {
          this.send(client, 'get_result', { rc: -1, msg: `key_${key ?? ''}_not_found` });
          return;
        }
        this.send(client, 'get_result', { rc: 0, msg: 'success', value });
        return;
      }
      case 'barrier_in':
        this.barrierWaiting.push(client);
        if (this.barrierWaiting.length === this.options.size) {
          const waiting = this.barrierWaiting;
          this.barrierWaiting = [];
          for (const c of waiting) this.send(c, 'barrier_out');
        }
        return;
      case 'abort': {
        const code = Number(f.get('exitcode') ?? 1);
        this.options.onAbort(client.rank ?? -1, Number.isInteger(code) ? code : 1, f.get('message') ?? '');
        return;
      }
      case 'publish_name': {
        const service = f.get('service');
        const port = f.get('port');
        if (service === undefined || port === undefined) {
          this.send(client, 'publish_result', { info: 'ok', rc: 1, msg: 'service_or_port_missing' });
        } else if (this.options.names === undefined) {
          this.send(client, 'publish_result', { info: 'ok', rc: 1, msg: 'no_name_service' });
        } else if (!this.options.names.publish(service, port)) {
          this.send(client, 'publish_result', { info: 'ok', rc: 1, msg: 'key_already_present' });
        } else {
          this.send(client, 'publish_result', { info: 'ok', rc: 0, msg: 'success' });
        }
        return;
      }
      case 'unpublish_name': {
        const service = f.get('service');
        const ok = service !== undefined && this.options.names?.unpublish(service) === true;
        this.send(client, 'unpublish_result', ok ? { info: 'ok', rc: 0, msg: 'success' } : { info: 'ok', rc: 1, msg: 'service_not_found' });
        return;
      }
      case 'lookup_name': {
        const service = f.get('service');
        const port = service === undefined ? undefined : this.options.names?.lookup(service);
        this.send(client, 'lookup_result', port !== undefined ? { port, info: 'ok', rc: 0, msg: 'success' } : { rc: 1, msg: 'service_not_found' });
        return;
      }
      case 'finalize':
        client.finalized = true;
        this.send(client, 'finalize_ack');
        return;
      default:
        this.options.onProtocolError(client.rank, `unknown PMI command ${JSON.stringify(msg.cmd)}`);
    }
  }
}

/**
 * Free text as the last field of a PMI line: one line, and no '=', which a reader would take for
 * the start of another field.
 */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/=/g, ':').slice(0, 800);
}
