import type { World } from '../../mpid/world.js';
import { STATS } from './config.js';
import { pvarList } from './pvar-registry.js';
import { encodeStats } from './stats-wire.js';

const reporting = STATS.read();

/**
 * MPI.Finalize, before the process manager's last fence: under TSMPI_STATS (tsmpiexec --stats)
 * every performance variable's value since the process started goes into the job's key-value
 * space (stats-wire.ts), where the launcher finds it when the job has ended.
 */
export function reportStatistics(world: World): void {
  if (!reporting || world.pm.kind !== 'pmi') return;
  const rows = pvarList().map((p) => ({ name: p.name, varClass: p.varClass, unit: p.unit, value: p.read() }));
  for (const [key, value] of encodeStats(world.rank, rows)) world.pm.put(key, value);
}
