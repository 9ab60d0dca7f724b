import { PmiClient } from '../pmi/index.js';

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
}

class PmiProcessManager implements ProcessManager {
  readonly kind = 'pmi';
  constructor(private readonly client: PmiClient) {}
  get rank() { return this.client.rank; }
  get size() { return this.client.size; }
  get kvsname() { return this.client.kvsname; }
  get valueMax() { return this.client.maxes.vallenMax; }
  put(key: string, value: string) { this.client.put(key, value); }
  get(key: string) { return this.client.get(key); }
  fence() { this.client.barrier(); }
  abort(exitcode: number, message: string) { this.client.abort(exitcode, message); }
  finalize() { this.client.finalize(); }
}

class SingletonProcessManager implements ProcessManager {
  readonly kind = 'singleton';
  readonly rank = 0;
  readonly size = 1;
  readonly kvsname = null;
  readonly valueMax = 1024;
  private readonly kvs = new Map<string, string>();
  put(key: string, value: string) { this.kvs.set(key, value); }
  get(key: string) { return this.kvs.get(key); }
  fence() {}
  abort(exitcode: number, message: string) {
    process.stderr.write(`tsmpi: abort with exit code ${exitcode}: ${message}\n`);
  }
  finalize() {}
}

export function connectProcessManager(env: NodeJS.ProcessEnv = process.env): ProcessManager {
  const client = PmiClient.fromEnvironment(env);
  return client === null ? new SingletonProcessManager() : new PmiProcessManager(client);
}
