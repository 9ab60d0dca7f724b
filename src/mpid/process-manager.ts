import { PmiError } from '../common/errors.js';
import { PmiClient, type SpawnBlock } from '../pmi/index.js';

/**
 * What the device layer needs from whoever started the job: identity, a key-value exchange
 * with a fence, and abort. A PMI-1 process manager provides it; a process started alone is a
 * singleton world of size 1 with a private key-value map.
 */
export interface ProcessManager {
  readonly kind: 'pmi' | 'singleton';
  readonly rank: number;
  readonly size: number;
  /** The key-value space's name; null for a singleton. */
  readonly kvsname: string | null;
  readonly valueMax: number;
  put(key: string, value: string): void;
  get(key: string): string | undefined;
  /** Makes every earlier put of every rank visible; collective. */
  fence(): void;
  abort(exitcode: number, message: string): void;
  finalize(): void;
  /** Which command of the spawn that started this job it runs (MPI.APPNUM); 0 for a job a launcher started. */
  readonly appnum: number;
  /** How many processes the process manager could run (MPI.UNIVERSE_SIZE); the world size when it does not say. */
  readonly universeSize: number;
  /**
   * Starts a new job of `commands` (PMI-1's spawn: Comm.Spawn and Spawn_multiple at their
   * root); `preput` goes into the new job's key-value space before its processes start (the
   * parent's port, PARENT_ROOT_PORT_NAME). Returns an error code per process started (0: it
   * started), in the order of the commands; raises PmiError when the process manager refused.
   */
  spawn(commands: readonly SpawnCommand[], preput: ReadonlyMap<string, string>): number[];
  /** The value a spawning job put under `key` before this job started (preput), or undefined: not spawned. */
  parentValue(key: string): string | undefined;
  /** Name service (MPI.Publish_name and friends): the process manager's, shared by every job it runs. */
  publishName(service: string, port: string): void;
  unpublishName(service: string): void;
  /** The port published under `service`, or undefined. */
  lookupName(service: string): string | undefined;
}

/** One command of a spawn (an element of Spawn_multiple's arrays). */
export interface SpawnCommand {
  /** The program (a path, or a name looked up on PATH), e.g. process.execPath. */
  readonly command: string;
  readonly args: readonly string[];
  readonly maxprocs: number;
  /** Info keys as MPI names them: host, wdir, path, env ("NAME=value" lines), ... */
  readonly info: ReadonlyMap<string, string>;
}

class PmiProcessManager implements ProcessManager {
  readonly kind = 'pmi';
  constructor(private readonly client: PmiClient) {}
  get rank() { return this.client.rank; }
  get size() { return this.client.size; }
  get kvsname() { return this.client.kvsname; }
  get valueMax() { return this.client.maxes.vallenMax; }
  private known: { appnum: number; universeSize: number } | null = null;
  /** Asked once, at the first use (two PMI round trips no Init needs). */
  private ask(): { appnum: number; universeSize: number } {
    if (this.known === null) {
      const universe = this.client.getUniverseSize();
      this.known = { appnum: this.client.getAppnum(), universeSize: universe > 0 ? universe : this.client.size };
    }
    return this.known;
  }
  get appnum() { return this.ask().appnum; }
  get universeSize() { return this.ask().universeSize; }
  put(key: string, value: string) { this.client.put(key, value); }
  get(key: string) { return this.client.get(key); }
  fence() { this.client.barrier(); }
  abort(exitcode: number, message: string) { this.client.abort(exitcode, message); }
  finalize() { this.client.finalize(); }
  spawn(commands: readonly SpawnCommand[], preput: ReadonlyMap<string, string>): number[] {
    return this.client.spawn({ blocks: commands.map(toSpawnBlock), preput: [...preput] });
  }
  parentValue(key: string): string | undefined { return this.client.parentValue(key); }
  publishName(service: string, port: string): void { this.client.publishName(service, port); }
  unpublishName(service: string): void { this.client.unpublishName(service); }
  lookupName(service: string): string | undefined { return this.client.lookupName(service); }
}

/**
 * A command as PMI carries it. A PMI field cannot hold a newline, so the `env` info value's
 * "NAME=value" lines travel separated by spaces (tsmpiexec splits on either); a value that
 * holds a space of its own cannot be passed this way.
 */
function toSpawnBlock(c: SpawnCommand): SpawnBlock {
  const info: [string, string][] = [];
  for (const [key, value] of c.info) {
    if (key !== 'env') {
      info.push([key, value]);
      continue;
    }
    const pairs = value.split(/\s+/).filter((p) => p !== '');
    const bad = pairs.find((p) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(p));
    if (bad !== undefined) throw new PmiError(`spawn: info env entry ${JSON.stringify(bad)} is not NAME=value (entries are separated by newlines or spaces; values cannot hold spaces)`);
    info.push([key, pairs.join(' ')]);
  }
  return { command: c.command, args: c.args, maxprocs: c.maxprocs, info };
}

class SingletonProcessManager implements ProcessManager {
  readonly kind = 'singleton';
  readonly rank = 0;
  readonly size = 1;
  readonly kvsname = null;
  readonly valueMax = 1024;
  readonly appnum = 0;
  readonly universeSize = 1;
  private readonly kvs = new Map<string, string>();
  put(key: string, value: string) { this.kvs.set(key, value); }
  get(key: string) { return this.kvs.get(key); }
  fence() {}
  abort(exitcode: number, message: string) {
    process.stderr.write(`tsmpi: abort with exit code ${exitcode}: ${message}\n`);
  }
  finalize() {}
  spawn(): number[] {
    throw new PmiError('a process started without a launcher cannot spawn: start it with tsmpiexec (or mpiexec) -n 1');
  }
  parentValue(): string | undefined { return undefined; }
  /** A singleton's names live in the process: it is the only job that could look them up. */
  private readonly names = new Map<string, string>();
  publishName(service: string, port: string): void { this.names.set(service, port); }
  unpublishName(service: string): void {
    if (!this.names.delete(service)) throw new PmiError(`no port is published under the service name ${JSON.stringify(service)}`);
  }
  lookupName(service: string): string | undefined { return this.names.get(service); }
}

export function connectProcessManager(env: NodeJS.ProcessEnv = process.env): ProcessManager {
  const client = PmiClient.fromEnvironment(env);
  return client === null ? new SingletonProcessManager() : new PmiProcessManager(client);
}
