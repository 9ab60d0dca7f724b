import { HostListError, parseHostList, readHostfile, type HostSlot } from './hosts.js';
import type { StatsFormat } from './stats.js';

/**
 * Command line of tsmpiexec, mpiexec-compatible where the names overlap: the rank count as
 * hydra and Open MPI spell it (`-n 2`, `-n2`, `-n=2`, `-np 2`, `--np 2`, `--np=2`), long options
 * as `--opt value` or `--opt=value`, and MPIEXEC_TIMEOUT (seconds, as hydra) unless --timeout is given.
 */
export interface LaunchOptions {
  readonly nprocs: number;
  readonly timeoutSeconds: number | null;
  /** Variables set for every rank on top of the launcher's own environment. */
  readonly exports: ReadonlyMap<string, string>;
  readonly tagOutput: boolean;
  /** Ranks connect to a listening Unix socket (PMI_PORT + PMI_ID) instead of an inherited one. */
  readonly pmiPort: boolean;
  /**
   * Emulated SCI nodes: ranks are split into K blocks of consecutive ranks, each an SCI node
   * of its own (ch_shmem inside a block, ch_sci between blocks); null: one real node.
   */
  readonly sciNodes: number | null;
  /**
   * Hosts to run the ranks on (--hosts or --hostfile), with their slots; null: every rank on
   * this host, started directly.
   */
  readonly hosts: readonly HostSlot[] | null;
  /** The ssh-compatible command that starts a host agent: argv words, called as `... HOST COMMANDLINE`. */
  readonly launcherExec: readonly string[];
  /** The name or address at which agents and ranks reach the launcher; null: this host's name. */
  readonly launcherHost: string | null;
  /** Print the ranks' performance variables at the end of the job (--stats, --stats=json); null: no. */
  readonly stats: StatsFormat | null;
  readonly command: string;
  readonly args: readonly string[];
}

export type ParsedCommandLine =
  | { readonly kind: 'launch'; readonly options: LaunchOptions }
  | { readonly kind: 'help' }
  | { readonly kind: 'help-env' }
  | { readonly kind: 'version' };

export class UsageError extends Error {}

export const USAGE = `usage: tsmpiexec -n N [options] command [args...]
       tsmpiexec -n 2 node app.js        tsmpiexec -n 2 npx tsx app.ts

  -n N, -np N        number of ranks to start (1 .. 1024); also -n2, -n=2, --np N, --np=N
  --timeout S        stop the job after S seconds and exit with status 124, after printing
                     what each rank is blocked in (default: $MPIEXEC_TIMEOUT, else none)
  -x VAR[=value]     set VAR for every rank (without a value: pass the launcher's VAR)
  --tag-output       prefix every output line with [rank]
  --pmi-port         ranks connect to the launcher's socket (PMI_PORT) instead of inheriting
                     one (PMI_FD); for wrappers that close inherited file descriptors
  --sci-nodes K      split the ranks into K emulated SCI nodes (blocks of consecutive ranks):
                     ch_shmem within a node, ch_sci between nodes
  --hosts H[:S],...  run the ranks on these hosts (S slots each, default 1), placed in blocks
                     as hydra does: each host takes as many consecutive ranks as it has slots,
                     in the order named; -n beyond the slots fills the hosts again, round after
                     round (oversubscription). This host takes part only when it is named
  --hostfile F       the hosts from file F, one host[:slots] per line (# comments)
  --launcher-exec C  command that starts tsmpi's agent on each host, called as \`C HOST COMMANDLINE\`
                     like ssh (default: ssh; words of C are split at spaces, e.g.
                     "ssh -o BatchMode=yes"). tsmpi must be at the same path on every host
  --launcher-host A  the name or address at which the other hosts reach this one (default:
                     hostname; give one when it resolves to 127.0.1.1 or to the wrong network)
  --stats[=FORMAT]   at the end of the job print every rank's performance variables (MPI.T:
                     messages and bytes per protocol and device, unexpected queue, retries,
                     cache, lock migrations, collectives by algorithm) and their totals on
                     stderr: FORMAT table (default; variables 0 everywhere left out) or json
                     (one line, every variable). Sets TSMPI_STATS=1 for the ranks
  --help-env         list the TSMPI_* variables with defaults and ranges
  --version          print the versions of tsmpi and Node.js
  -h, --help         this text

Several hosts: ranks reach the launcher's PMI service over TCP and must present the job's
random secret (passed in their environment, never on a command line); a connection without it
is closed unanswered. A rank that fails on any host, or a host whose agent stops answering
for 4 s, ends the job naming the rank or host; each host's agent stops its ranks and removes
that host's shared segments when the job ends or the launcher goes away.

On --timeout, SIGINT or SIGTERM, each rank prints the MPI call it is blocked in and its pending
sends and receives before the job is stopped (kill -USR2 <pid> asks one rank for the same).
Tracing: DEBUG=tsmpi:* (namespaces tsmpi:pmi, tsmpi:pmi:wire, tsmpi:mpid, tsmpi:match,
tsmpi:protocol, tsmpi:coll, tsmpi:shmem, tsmpi:sci); each line of a rank carries [rank N].
DEBUG=tsmpiexec traces the launcher itself (the job id, where the ranks go).
`;

const MAX_RANKS = 1024;

/** Flags that take a value; each may be written `flag value` or `flag=value`. */
const RANKS_FLAGS = ['-n', '-np', '--np', '-c'];
const VALUE_FLAGS = new Set([...RANKS_FLAGS, '--timeout', '-x', '--sci-nodes', '--hosts', '--hostfile', '--launcher-exec', '--launcher-host']);

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  let nprocs: number | null = null;
  let timeoutSeconds: number | null = null;
  let tagOutput = false;
  let pmiPort = false;
  let sciNodes: number | null = null;
  let hostList: string | null = null;
  let hostfile: string | null = null;
  let launcherExec: string[] = ['ssh'];
  let launcherHost: string | null = null;
  let stats: StatsFormat | null = null;
  const exports = new Map<string, string>();
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) break;
    if (arg === '--') {
      i++;
      break;
    }
    const split = splitFlag(arg);
    if (split !== null) {
      let { flag, value } = split;
      if (value === null) {
        value = argv[i + 1] ?? null;
        if (value === null) throw new UsageError(`${flag} needs a value`);
        i += 2;
      } else {
        i++;
      }
      if (RANKS_FLAGS.includes(flag)) nprocs = parseRanks(flag, value);
      else if (flag === '--timeout') timeoutSeconds = parseSeconds(`--timeout ${value}`, value);
      else if (flag === '-x') addExport(exports, value, env);
      else if (flag === '--hosts') hostList = value;
      else if (flag === '--hostfile') hostfile = value;
      else if (flag === '--launcher-exec') launcherExec = parseLauncherExec(value);
      else if (flag === '--launcher-host') launcherHost = parseLauncherHost(value);
      else sciNodes = parseCount('--sci-nodes', value);
      continue;
    }
    if (arg === '--stats' || arg.startsWith('--stats=')) stats = parseStats(arg);
    else if (arg === '--tag-output') tagOutput = true;
    else if (arg === '--pmi-port') pmiPort = true;
    else if (arg === '-h' || arg === '--help') return { kind: 'help' };
    else if (arg === '--help-env') return { kind: 'help-env' };
    else if (arg === '--version') return { kind: 'version' };
    else throw new UsageError(`unknown option ${arg}`);
    i++;
  }
  const command = argv[i];
  if (command === undefined) throw new UsageError('no command to run');
  if (nprocs === null) nprocs = 1;
  if (timeoutSeconds === null && env.MPIEXEC_TIMEOUT !== undefined && env.MPIEXEC_TIMEOUT.trim() !== '') {
    timeoutSeconds = parseSeconds(`MPIEXEC_TIMEOUT=${env.MPIEXEC_TIMEOUT}`, env.MPIEXEC_TIMEOUT.trim());
  }
  if (sciNodes !== null && sciNodes > nprocs) {
    throw new UsageError(`--sci-nodes ${sciNodes}: cannot split ${nprocs} rank${nprocs === 1 ? '' : 's'} into ${sciNodes} nodes (each node needs a rank)`);
  }
  if (hostList !== null && hostfile !== null) throw new UsageError('--hosts and --hostfile: give one of them, not both');
  let hosts: HostSlot[] | null = null;
  try {
    if (hostList !== null) hosts = parseHostList(hostList);
    else if (hostfile !== null) hosts = readHostfile(hostfile);
  } catch (e) {
    if (e instanceof HostListError) throw new UsageError(e.message);
    throw e;
  }
  if (hosts !== null && sciNodes !== null) {
    throw new UsageError('--sci-nodes emulates nodes on this host; it cannot be combined with --hosts or --hostfile');
  }
  if (hosts !== null && pmiPort) {
    throw new UsageError('--pmi-port is implied with --hosts or --hostfile (ranks connect to the launcher over TCP); leave it out');
  }
  // The ranks report at MPI.Finalize only when asked (src/mpir/tools/report.ts).
  if (stats !== null) exports.set('TSMPI_STATS', '1');
  return {
    kind: 'launch',
    options: {
      nprocs, timeoutSeconds, exports, tagOutput, pmiPort, sciNodes, hosts, launcherExec, launcherHost, stats, command,
      args: argv.slice(i + 1),
    },
  };
}

/**
 * A flag that takes a value, and the value when it is attached (`--np=2`, `-n=2`, `-n2`, `-np2`);
 * null for any other argument.
 */
function splitFlag(arg: string): { flag: string; value: string | null } | null {
  if (VALUE_FLAGS.has(arg)) return { flag: arg, value: null };
  const eq = arg.indexOf('=');
  if (eq > 0 && VALUE_FLAGS.has(arg.slice(0, eq))) return { flag: arg.slice(0, eq), value: arg.slice(eq + 1) };
  const attached = /^(-np|-n)(\d+)$/.exec(arg);
  if (attached) return { flag: attached[1]!, value: attached[2]! };
  return null;
}

function parseRanks(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_RANKS) {
    throw new UsageError(`${flag} ${text}: the number of ranks must be an integer in [1, ${MAX_RANKS}]`);
  }
  return n;
}

function parseSeconds(what: string, text: string): number {
  const s = Number(text);
  if (text === '' || !Number.isFinite(s) || s <= 0) throw new UsageError(`${what}: expected a positive number of seconds`);
  return s;
}

function parseCount(flag: string, text: string): number {
  const k = Number(text);
  if (!/^\d+$/.test(text) || k < 1 || k > MAX_RANKS) throw new UsageError(`${flag} ${text}: expected an integer in [1, ${MAX_RANKS}]`);
  return k;
}

function parseStats(arg: string): StatsFormat {
  const format = arg === '--stats' ? 'table' : arg.slice('--stats='.length);
  if (format !== 'table' && format !== 'json') throw new UsageError(`${arg}: expected --stats, --stats=table or --stats=json`);
  return format;
}

function parseLauncherExec(text: string): string[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) throw new UsageError('--launcher-exec needs a command (e.g. ssh, or a path to an ssh stand-in)');
  return words;
}

function parseLauncherHost(text: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(text) && !/^\[?[0-9A-Fa-f:.]+\]?$/.test(text)) {
    throw new UsageError(`--launcher-host ${JSON.stringify(text)}: expected a host name or an IP address`);
  }
  return text.replace(/^\[(.*)\]$/, '$1');
}

function addExport(exports: Map<string, string>, spec: string, env: NodeJS.ProcessEnv): void {
  const eq = spec.indexOf('=');
  const name = eq < 0 ? spec : spec.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`-x ${spec}: ${JSON.stringify(name)} is not a variable name`);
  if (eq >= 0) exports.set(name, spec.slice(eq + 1));
  else if (env[name] !== undefined) exports.set(name, env[name]!);
}
