/**
 * Command line of tsmpiexec, mpiexec-compatible where the names overlap:
 *   tsmpiexec -n N [--timeout S] [-x VAR[=value]]... [--tag-output] [--pmi-port] [--sci-nodes K] command args...
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
  | { readonly kind: 'help-env' };

export class UsageError extends Error {}

export const USAGE = `usage: tsmpiexec -n N [options] command [args...]

  -n, -np N          number of ranks to start (1 .. 1024)
  --timeout S        stop the job after S seconds and exit with status 124
  -x VAR[=value]     set VAR for every rank (without a value: pass the launcher's VAR)
  --tag-output       prefix every output line with [rank]
  --pmi-port         ranks connect to the launcher's socket (PMI_PORT) instead of PMI_FD
  --sci-nodes K      split the ranks into K emulated SCI nodes (blocks of consecutive ranks):
                     ch_shmem within a node, ch_sci between nodes
  --help-env         list the TSMPI_* variables with defaults and ranges
  -h, --help         this text
`;

const MAX_RANKS = 1024;

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  let nprocs: number | null = null;
  let timeoutSeconds: number | null = null;
  let tagOutput = false;
  let pmiPort = false;
  let sciNodes: number | null = null;
  const exports = new Map<string, string>();
  let i = 0;
  const value = (flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    i += 2;
    return v;
  };
  while (i < argv.length) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) break;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '-n' || arg === '-np' || arg === '--np' || arg === '-c') {
      const text = value(arg);
      const n = Number(text);
      if (!/^\d+$/.test(text) || n < 1 || n > MAX_RANKS) throw new UsageError(`${arg} ${text}: the number of ranks must be an integer in [1, ${MAX_RANKS}]`);
      nprocs = n;
    } else if (arg === '--timeout') {
      const text = value(arg);
      const s = Number(text);
      if (!Number.isFinite(s) || s <= 0) throw new UsageError(`--timeout ${text}: expected a positive number of seconds`);
      timeoutSeconds = s;
    } else if (arg === '-x') {
      const spec = value(arg);
      const eq = spec.indexOf('=');
      const name = eq < 0 ? spec : spec.slice(0, eq);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`-x ${spec}: ${JSON.stringify(name)} is not a variable name`);
      if (eq >= 0) exports.set(name, spec.slice(eq + 1));
      else if (env[name] !== undefined) exports.set(name, env[name]!);
    } else if (arg === '--tag-output') {
      tagOutput = true;
      i++;
    } else if (arg === '--pmi-port') {
      pmiPort = true;
      i++;
    } else if (arg === '--sci-nodes') {
      const text = value(arg);
      const k = Number(text);
      if (!/^\d+$/.test(text) || k < 1 || k > MAX_RANKS) throw new UsageError(`--sci-nodes ${text}: expected an integer in [1, ${MAX_RANKS}]`);
      sciNodes = k;
    } else if (arg === '-h' || arg === '--help') {
      return { kind: 'help' };
    } else if (arg === '--help-env') {
      return { kind: 'help-env' };
    } else {
      throw new UsageError(`unknown option ${arg}`);
    }
  }
  const command = argv[i];
  if (command === undefined) throw new UsageError('no command to run');
  if (nprocs === null) nprocs = 1;
  if (sciNodes !== null && sciNodes > nprocs) {
    throw new UsageError(`--sci-nodes ${sciNodes}: cannot split ${nprocs} rank${nprocs === 1 ? '' : 's'} into ${sciNodes} nodes (each node needs a rank)`);
  }
  return {
    kind: 'launch',
    options: { nprocs, timeoutSeconds, exports, tagOutput, pmiPort, sciNodes, command, args: argv.slice(i + 1) },
  };
}
