import { digestHex, randomBytes } from './ids.js';
import fs from 'node:fs';

/**
 * Names of the job's shared segments in /dev/shm: `tsmpi-<job>-<rank>-<purpose>-<random>`.
 * The job part lets tsmpiexec remove every segment of a job after it ends, even when a rank
 * was killed before it could unlink its own; the random part makes names unguessable.
 */
export const SEGMENT_PREFIX = 'tsmpi-';

/** The job id: tsmpiexec's TSMPI_JOBID, or a digest of the process manager's kvsname. */
export function jobIdFrom(env: NodeJS.ProcessEnv, kvsname: string | null): string {
  const fromLauncher = env.TSMPI_JOBID;
  if (fromLauncher && /^[A-Za-z0-9]{1,32}$/.test(fromLauncher)) return fromLauncher;
  if (kvsname === null) return `single${process.pid}`;
  return digestHex(kvsname, 16);
}

export function segmentName(jobId: string, rank: number, purpose: string): string {
  return `${SEGMENT_PREFIX}${jobId}-${rank}-${purpose}-${randomBytes(6).toString('hex')}`;
}

/** Removes every /dev/shm segment of the job; returns the names removed. */
export function sweepJobSegments(jobId: string, dir = '/dev/shm'): string[] {
  const prefix = `${SEGMENT_PREFIX}${jobId}-`;
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of entries) {
    if (!name.startsWith(prefix)) continue;
    fs.rmSync(`${dir}/${name}`, { force: true });
    removed.push(name);
  }
  return removed;
}
