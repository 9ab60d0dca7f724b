import { createTrace } from '../common/trace.js';
import { PmiError } from '../common/errors.js';
import { tagTraceWithRank } from '../common/trace-rank.js';
import { addon } from '../native/addon.js';
import { authLine, SECRET_ENV } from './auth.js';
import { inheritedSocketProblem, PMI_FD_ADVICE } from './inherited-fd.js';
import { formatSpawnBlocks, type SpawnRequest } from './spawn-wire.js';
import { FdLineChannel } from './transport.js';
import { formatLine, parseLine, type PmiMessage } from './wire.js';

const trace = createTrace('tsmpi:pmi');
/** Every PMI line sent and received; under tsmpi:* too, but apart so it can be left out: DEBUG=tsmpi:*,-tsmpi:pmi:wire. */
const wire = createTrace('tsmpi:pmi:wire');

/** Characters of an abort message that fit a PMI line with the command and exit code. */
const ABORT_MESSAGE_MAX = 900;

/** A synchronous line channel to the process manager (an fd, or a scripted one in tests). */
export interface LineChannel {
  send(line: string): void;
  receive(): string;
  close(): void;
}

export interface PmiMaxes {
  readonly kvsnameMax: number;
  readonly keylenMax: number;
  readonly vallenMax: number;
}

/**
 * PMI-1 client. Speaks the wire protocol to whoever started the process: tsmpiexec, MPICH's
 * hydra (PMI_FD, or PMI_PORT + PMI_ID) or Slurm's pmi2 plugin (PMI-1 on PMI_FD). Every call
 * is synchronous; a failed or malformed reply raises PmiError naming the command and quoting
 * the reply.
 */
export class PmiClient {
  private constructor(
    private readonly channel: LineChannel,
    readonly rank: number,
    readonly size: number,
    readonly maxes: PmiMaxes,
    readonly kvsname: string,
  ) {}

  /**
   * Connects as the environment says. Returns null when no process manager started us
   * (no PMI_FD and no PMI_PORT): the caller runs as a singleton world of size 1.
   */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env): PmiClient | null {
    const port = env.PMI_PORT !== undefined && env.PMI_PORT !== '' ? env.PMI_PORT : null;
    if (env.PMI_FD !== undefined && env.PMI_FD !== '') {
      const fd = parseIntField('PMI_FD', env.PMI_FD, 0);
      const problem = inheritedSocketProblem(fd, env.TSMPI_PMI_FD_ID);
      if (problem === null) {
        const rank = parseIntField('PMI_RANK', env.PMI_RANK ?? '0', 0);
        const size = parseIntField('PMI_SIZE', env.PMI_SIZE ?? '1', 1);
        return PmiClient.handshake(new FdLineChannel(fd, `PMI_FD=${fd}`), rank, size);
      }
      // tsmpiexec also listens on PMI_PORT, so a rank whose fd was lost on the way still connects.
      if (port === null || (env.PMI_ID ?? '') === '') throw new PmiError(`PMI: ${problem}; ${PMI_FD_ADVICE}`);
      trace('%s; connecting to PMI_PORT=%s instead', problem, port);
    }
    if (port !== null) {
      const channel = new FdLineChannel(connectToPort(port), `PMI_PORT=${port}`);
      // tsmpiexec across hosts serves PMI over TCP only to connections that present the job's
      // secret; other process managers (hydra, Slurm) set no secret and get no auth line.
      const secret = env[SECRET_ENV];
      if (secret !== undefined && secret !== '') PmiClient.authenticate(channel, secret, port);
      const id = env.PMI_ID ?? env.PMI_RANK;
      if (id === undefined) {
        const rank = parseIntField('PMI_RANK', env.PMI_RANK ?? '0', 0);
        const size = parseIntField('PMI_SIZE', env.PMI_SIZE ?? '1', 1);
        return PmiClient.handshake(channel, rank, size);
      }
      const ack = PmiClient.initack(channel, parseIntField('PMI_ID', id, 0));
      return PmiClient.handshake(channel, ack.rank, ack.size);
    }
    return null;
  }

  /** Runs init and get_maxes/get_my_kvsname over an open channel; used directly by tests. */
  static handshake(channel: LineChannel, rank: number, size: number): PmiClient {
    const init = exchange(channel, 'init', { pmi_version: 1, pmi_subversion: 1 }, 'response_to_init');
    const version = init.fields.get('pmi_version');
    if (version !== undefined && version !== '1') {
      throw replyError('init', init, `server speaks PMI version ${version}, tsmpi speaks 1`);
    }
    const m = exchange(channel, 'get_maxes', {}, 'maxes');
    const maxes: PmiMaxes = {
      kvsnameMax: intField('get_maxes', m, 'kvsname_max'),
      keylenMax: intField('get_maxes', m, 'keylen_max'),
      vallenMax: intField('get_maxes', m, 'vallen_max'),
    };
    const k = exchange(channel, 'get_my_kvsname', {}, 'my_kvsname');
    const kvsname = k.fields.get('kvsname');
    if (!kvsname) throw replyError('get_my_kvsname', k, 'no kvsname in the reply');
    if (rank < 0 || rank >= size) throw new PmiError(`PMI: rank ${rank} is outside the job size ${size}`);
    tagTraceWithRank(rank);
    trace('rank %d of %d, kvs %s, maxes %o', rank, size, kvsname, maxes);
    return new PmiClient(channel, rank, size, maxes, kvsname);
  }

  /** Presents the job's secret; tsmpiexec answers auth_result, or closes the connection on a wrong one. */
  private static authenticate(channel: FdLineChannel, secret: string, port: string): void {
    wire('-> cmd=auth role=rank secret=(%d characters)', secret.length);
    channel.send(authLine(secret, 'rank'));
    let line: string;
    try {
      line = channel.receive();
    } catch (e) {
      throw new PmiError(`PMI: the process manager at PMI_PORT=${port} refused this rank: the job's secret ` +
        `(${SECRET_ENV} in the environment) is not the one it expects; was the rank started by another ` +
        'tsmpiexec, or was the variable changed?', { cause: e });
    }
    wire('<- %s', line.trimEnd());
    const reply = parseLine(line);
    if (reply.cmd !== 'auth_result' || reply.fields.get('rc') !== '0') throw replyError('auth', reply, 'expected cmd=auth_result rc=0');
  }

  /** PMI_PORT mode: identify with PMI_ID; the server answers initack and then `set` lines. */
  private static initack(channel: LineChannel, id: number): { rank: number; size: number } {
    const line = formatLine('initack', { pmiid: id });
    wire('-> %s', line.trimEnd());
    channel.send(line);
    const ack = parseReply(channel, 'initack');
    expectCmd('initack', ack, 'initack');
    let rank = -1;
    let size = -1;
    for (let seen = 0; seen < 3; seen++) {
      const set = parseReply(channel, 'initack');
      expectCmd('initack', set, 'set');
      if (set.fields.has('size')) size = intField('initack', set, 'size');
      else if (set.fields.has('rank')) rank = intField('initack', set, 'rank');
      else if (!set.fields.has('debug')) throw replyError('initack', set, 'expected set size=, rank= or debug=');
    }
    if (rank < 0 || size < 1) throw new PmiError(`PMI initack: server did not send both rank and size (rank ${rank}, size ${size})`);
    return { rank, size };
  }

  getAppnum(): number {
    return intField('get_appnum', exchange(this.channel, 'get_appnum', {}, 'appnum'), 'appnum');
  }

  /** The universe size; -1 when the process manager does not know it (hydra says -1). */
  getUniverseSize(): number {
    return intField('get_universe_size', exchange(this.channel, 'get_universe_size', {}, 'universe_size'), 'size');
  }

  put(key: string, value: string): void {
    this.checkKeyValue(key, value);
    exchange(this.channel, 'put', { kvsname: this.kvsname, key, value }, 'put_result');
  }

  /** The value under key, or undefined when the key does not exist (servers say rc != 0). */
  get(key: string): string | undefined {
    this.checkKeyValue(key, '');
    const line = formatLine('get', { kvsname: this.kvsname, key });
    wire('-> %s', line.trimEnd());
    this.channel.send(line);
    const reply = parseReply(this.channel, 'get');
    expectCmd('get', reply, 'get_result');
    const rc = reply.fields.get('rc');
    if (rc !== undefined && rc !== '0') return undefined;
    const value = reply.fields.get('value');
    if (value === undefined) throw replyError('get', reply, 'rc=0 but no value');
    return value;
  }

  /** Collective over the job; also the fence that makes every earlier put visible. */
  barrier(): void {
    exchange(this.channel, 'barrier_in', {}, 'barrier_out');
  }

  /**
   * The value the spawning job put under `key` into this job's key-value space before it
   * started (spawn's preput), or undefined: no such key, or this job was not spawned. Both
   * hydra and tsmpiexec put preput keys into the new job's own space, so this is a `get`.
   */
  parentValue(key: string): string | undefined {
    return this.get(key);
  }

  /**
   * Starts a new job (PMI_Spawn_multiple): sends one block per command (src/pmi/spawn-wire.ts)
   * and reads the one spawn_result. Returns an error code per process, in command order (all 0
   * when the server sends none, as hydra does); raises PmiError when the server refused (rc != 0).
   */
  spawn(request: SpawnRequest): number[] {
    for (const [key, value] of request.preput) this.checkKeyValue(key, value);
    let total = 0;
    for (const b of request.blocks) {
      if (!Number.isInteger(b.maxprocs) || b.maxprocs < 0) throw new PmiError(`PMI spawn: ${JSON.stringify(b.command)} asks for ${b.maxprocs} processes; a count is an integer >= 0`);
      total += b.maxprocs;
    }
    // A command may start none (its appnum is still counted), but the job must have a process.
    if (total === 0) throw new PmiError('PMI spawn: no process to start (every command asks for 0)');
    for (const block of formatSpawnBlocks(request)) {
      wire('-> %s', block.trimEnd().replace(/\n/g, ' | '));
      this.channel.send(block);
    }
    const reply = parseReply(this.channel, 'spawn');
    expectCmd('spawn', reply, 'spawn_result');
    const rc = reply.fields.get('rc');
    if (rc !== '0') {
      throw new PmiError(`PMI spawn of ${request.blocks.map((b) => JSON.stringify(b.command)).join(', ')} failed: ` +
        `${reply.fields.get('msg') ?? `rc=${rc ?? '(none)'}`}`);
    }
    const codes = reply.fields.get('errcodes');
    if (codes === undefined) return new Array<number>(total).fill(0);
    const errcodes = codes.split(',').map(Number);
    if (errcodes.length !== total || errcodes.some((c) => !Number.isInteger(c))) {
      throw replyError('spawn', reply, `errcodes must be ${total} integers separated by commas`);
    }
    return errcodes;
  }

  /** Publishes `port` under `service` in the process manager's name service; a taken name is a PmiError. */
  publishName(service: string, port: string): void {
    checkName('publish_name', 'service', service);
    checkName('publish_name', 'port', port);
    const reply = this.ask('publish_name', { service, port }, 'publish_result');
    if (reply.fields.get('rc') !== '0') {
      throw new PmiError(`PMI publish_name: cannot publish the service ${JSON.stringify(service)}: ${reply.fields.get('msg') ?? 'refused'} (is it published already?)`);
    }
  }

  /** Withdraws `service`; one that is not published is a PmiError. */
  unpublishName(service: string): void {
    checkName('unpublish_name', 'service', service);
    const reply = this.ask('unpublish_name', { service }, 'unpublish_result');
    if (reply.fields.get('rc') !== '0') {
      throw new PmiError(`PMI unpublish_name: cannot unpublish the service ${JSON.stringify(service)}: ${reply.fields.get('msg') ?? 'refused'}`);
    }
  }

  /** The port published under `service`, or undefined when none is. */
  lookupName(service: string): string | undefined {
    checkName('lookup_name', 'service', service);
    const reply = this.ask('lookup_name', { service }, 'lookup_result');
    if (reply.fields.get('rc') !== '0') return undefined;
    const port = reply.fields.get('port');
    if (port === undefined) throw replyError('lookup_name', reply, 'rc=0 but no port');
    return port;
  }

  /** Sends one command and returns the reply, checking only its name (the caller reads rc). */
  private ask(command: string, fields: Record<string, string>, expected: string): PmiMessage {
    const line = formatLine(command, fields);
    wire('-> %s', line.trimEnd());
    this.channel.send(line);
    const reply = parseReply(this.channel, command);
    expectCmd(command, reply, expected);
    return reply;
  }

  /** Asks the process manager to end the whole job; does not wait for a reply. */
  abort(exitcode: number, message: string): void {
    // A long message loses its middle, not its end: the end names the user's line.
    let oneLine = message.replace(/\s+/g, ' ');
    if (oneLine.length > ABORT_MESSAGE_MAX) oneLine = `${oneLine.slice(0, 500)} ... ${oneLine.slice(-(ABORT_MESSAGE_MAX - 505))}`;
    const line = formatLine('abort', { exitcode, message: oneLine });
    wire('-> %s', line.trimEnd());
    this.channel.send(line);
  }

  finalize(): void {
    exchange(this.channel, 'finalize', {}, 'finalize_ack');
    this.channel.close();
  }

  private checkKeyValue(key: string, value: string): void {
    if (key.length === 0 || key.length > this.maxes.keylenMax || /[\s=]/.test(key)) {
      throw new PmiError(`PMI: key ${JSON.stringify(key)} must be 1..${this.maxes.keylenMax} characters without spaces or '='`);
    }
    if (/\s/.test(value)) {
      throw new PmiError(`PMI: the value for ${key} (${JSON.stringify(value.slice(0, 80))}) contains white space, which a PMI value cannot carry`);
    }
    if (value.length > this.maxes.vallenMax) {
      throw new PmiError(`PMI: the value for ${key} is ${value.length} characters, the process manager takes at most ${this.maxes.vallenMax} characters`);
    }
  }
}

/** Service names and ports travel as single PMI tokens: no spaces, no '=', not empty. */
function checkName(command: string, what: string, text: string): void {
  if (text === '' || /[\s=]/.test(text) || Buffer.byteLength(text) > 256) {
    throw new PmiError(`PMI ${command}: the ${what} ${JSON.stringify(text)} cannot travel over PMI: it must be 1..256 bytes without spaces or '='`);
  }
}

function connectToPort(port: string): number {
  if (port.startsWith('/')) return addon.connectUnix(port, 10_000);
  const colon = port.lastIndexOf(':');
  const portNumber = colon > 0 ? Number(port.slice(colon + 1)) : NaN;
  if (!Number.isInteger(portNumber) || portNumber <= 0 || portNumber > 65535) {
    throw new PmiError(`PMI_PORT=${JSON.stringify(port)} is not host:port or an absolute socket path`);
  }
  const host = port.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  try {
    return addon.connectTcp(host, portNumber, 10_000);
  } catch (e) {
    throw new PmiError(`PMI: cannot connect to the process manager at PMI_PORT=${port}: ${(e as Error).message}`, { cause: e });
  }
}

function parseReply(channel: LineChannel, command: string): PmiMessage {
  const line = channel.receive();
  wire('<- %s', line.trimEnd());
  try {
    return parseLine(line);
  } catch (e) {
    throw new PmiError(`PMI ${command}: malformed reply ${JSON.stringify(line)}`, { cause: e });
  }
}

function exchange(channel: LineChannel, command: string, fields: Record<string, string | number>,
                  expected: string): PmiMessage {
  const line = formatLine(command, fields);
  wire('-> %s', line.trimEnd());
  channel.send(line);
  const reply = parseReply(channel, command);
  expectCmd(command, reply, expected);
  const rc = reply.fields.get('rc');
  if (rc !== undefined && rc !== '0') throw replyError(command, reply, `rc=${rc}`);
  return reply;
}

function expectCmd(command: string, reply: PmiMessage, expected: string): void {
  if (reply.cmd !== expected) throw replyError(command, reply, `expected cmd=${expected}`);
}

function intField(command: string, reply: PmiMessage, key: string): number {
  const text = reply.fields.get(key);
  const value = text === undefined ? NaN : Number(text);
  if (!Number.isInteger(value)) throw replyError(command, reply, `${key} is missing or not an integer`);
  return value;
}

function parseIntField(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min) {
    throw new PmiError(`${name}=${JSON.stringify(text)} in the environment is not an integer >= ${min}`);
  }
  return value;
}

function quote(reply: PmiMessage): string {
  let text = `cmd=${reply.cmd}`;
  for (const [k, v] of reply.fields) text += ` ${k}=${v}`;
  return text;
}

function replyError(command: string, reply: PmiMessage, what: string): PmiError {
  return new PmiError(`PMI ${command} failed: ${what}; the server replied '${quote(reply)}'`);
}
