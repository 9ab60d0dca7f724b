import os from 'node:os';
import path from 'node:path';
import { declareString, FLAG_LIST } from '../../src/common/config.js';

/**
 * Node flags tsmpiexec puts before the script when a rank's command is `node`. With two busy
 * ranks on two cores, V8's helper threads (concurrent compiling, marking and sweeping) take a
 * rank's core for a scheduler slice whenever they run, and its peer spins into a futex sleep
 * whose wake costs 25 us or more on a VM: small collectives at 2 ranks measured 1.4-2.3 x
 * MPICH's time with --single-threaded, 1.9-6.8 x without (bench/compare, 8 B). V8 reads the
 * flag only at start-up, so MPI.Init cannot set it itself (TSMPI_V8_FLAGS covers what it can).
 * Only while a host's ranks have a core each: ranks that outnumber the cores give their cores
 * away in every wait anyway, and each would compile its start-up code on its own thread (32
 * ranks on 2 cores reached Init 0.2 s later with the flag).
 */
export const NODE_FLAGS = declareString({
  name: 'TSMPI_NODE_FLAGS', layer: 'launcher',
  description: 'Flags tsmpiexec adds to a rank\'s command when it is node and the host\'s ranks do not outnumber the ' +
    'cores (`tsmpiexec -n 2 node app.js` runs `node --single-threaded app.js`; flags the command already has are not ' +
    'repeated; across hosts the launcher\'s own core count stands for each host\'s); none: run the command as given. ' +
    'V8\'s compiler and garbage-collector threads otherwise take a core from a spinning rank (hydra and srun start ' +
    'ranks as given).',
  default: '--single-threaded',
  pattern: FLAG_LIST, patternText: 'none or node flags (--name or --name=value, space-separated)',
});

/**
 * The arguments a rank starts with: `args`, after NODE_FLAGS when `command` is Node itself and
 * `ranksOnHost` do not outnumber `cores`.
 */
export function rankArgs(command: string, args: readonly string[], ranksOnHost: number, env: NodeJS.ProcessEnv = process.env,
                         cores = os.availableParallelism()): string[] {
  const flags = NODE_FLAGS.read(env);
  if (flags === 'none' || !isNode(command) || ranksOnHost > cores) return [...args];
  const missing = flags.split(' ').filter((f) => !args.includes(f));
  return [...missing, ...args];
}

function isNode(command: string): boolean {
  const base = path.basename(command);
  return base === 'node' || base === 'nodejs' || command === process.execPath;
}
