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
  --help-env         list the TSMPI_* variables with defaults and ranges
  --version          print the versions of tsmpi and Node.js
  -h, --help         this text

On --timeout, SIGINT or SIGTERM, each rank prints the MPI call it is blocked in and its pending
sends and receives before the job is stopped (kill -USR2 <pid> asks one rank for the same).
Tracing: DEBUG=tsmpi:* (namespaces tsmpi:pmi, tsmpi:pmi:wire, tsmpi:mpid, tsmpi:match,
tsmpi:protocol, tsmpi:coll, tsmpi:shmem, tsmpi:sci); each line of a rank carries [rank N].
`;

const MAX_RANKS = 1024;

/** Flags that take a value; each may be written `flag value` or `flag=value`. */
const RANKS_FLAGS = ['-n', '-np', '--np', '-c'];
const VALUE_FLAGS = new Set([...RANKS_FLAGS, '--timeout', '-x', '--sci-nodes']);

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  let nprocs: number | null = null;
  let timeoutSeconds: number | null = null;
  let tagOutput = false;
  let pmiPort = false;
  let sciNodes: number | null = null;
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
      else sciNodes = parseCount('--sci-nodes', value);
      continue;
    }
    if (arg === '--tag-output') tagOutput = true;
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
  return {
    kind: 'launch',
    options: { nprocs, timeoutSeconds, exports, tagOutput, pmiPort, sciNodes, command, args: argv.slice(i + 1) },
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

function addExport(exports: Map<string, string>, spec: string, env: NodeJS.ProcessEnv): void {
  const eq = spec.indexOf('=');
  const name = eq < 0 ? spec : spec.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`-x ${spec}: ${JSON.stringify(name)} is not a variable name`);
  if (eq >= 0) exports.set(name, spec.slice(eq + 1));
  else if (env[name] !== undefined) exports.set(name, env[name]!);
}
