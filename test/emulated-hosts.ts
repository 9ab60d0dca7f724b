import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { ROOT, run } from './helpers.js';

/** ../shared/tools: the emulated hosts (netns-hosts.sh) and their ssh stand-in (netns-ssh). */
export const NETNS_TOOLS = path.resolve(ROOT, '..', 'shared', 'tools');
export const NETNS_HOSTS = path.join(NETNS_TOOLS, 'netns-hosts.sh');
export const NETNS_SSH = path.join(NETNS_TOOLS, 'netns-ssh');
const LOCK = '/run/tsmpi-netns-hosts.lock';

/** Why emulated hosts cannot be had here, or null: they need root, iproute2 and the script. */
export function whyNoHosts(): string | null {
  if (process.getuid?.() !== 0) return 'emulated hosts need root (network namespaces)';
  if (!fs.existsSync(NETNS_HOSTS)) return `the emulated-host tool is missing (${NETNS_HOSTS})`;
  if (spawnSync('ip', ['-V']).status !== 0) return 'emulated hosts need iproute2 (apt-get install iproute2)';
  return null;
}

/**
 * Brings hosts h1..hK up (idempotent) and heals any link another test left cut (and the
 * neighbour entries a cut left behind), so a scenario
 * never times out on a leftover. Under a lock, because two test files bringing hosts up at once
 * race for the same namespaces; `flock -o` closes the lock before the script runs, or each
 * host's holder process (`sleep infinity`) would inherit it and hold it for good, and the next
 * test's `up` would wait forever. A host whose holder died cannot come up again: then down and
 * up once more. Throws with the script's own words when it fails.
 */
export function bringHostsUp(k: number): void {
  const script = `bash '${NETNS_HOSTS}' up ${k} || { bash '${NETNS_HOSTS}' down && bash '${NETNS_HOSTS}' up ${k}; }`;
  const r = spawnSync('flock', ['-o', '-w', '120', LOCK, 'bash', '-c', script], { encoding: 'utf8', timeout: 150_000 });
  if (r.status !== 0) {
    throw new Error(`netns-hosts.sh up ${k} failed (status ${r.status}, signal ${r.signal}): ${r.stderr}${r.error ? ` ${r.error.message}` : ''}`);
  }
  for (let i = 1; i <= k; i++) spawnSync('bash', [NETNS_HOSTS, 'heal', `h${i}`], { timeout: 30_000 });
  // A host that was cut leaves its peers' neighbour entries FAILED ("No route to host" for the next connection).
  for (let i = 1; i <= k; i++) spawnSync('bash', [NETNS_HOSTS, 'exec', `h${i}`, 'ip', 'neigh', 'flush', 'all'], { timeout: 30_000 });
}

/** tsmpi's segments of job `jobId` (its TSMPI_JOBID) left in a host's own /dev/shm. */
export async function segmentsOn(host: string, jobId: string): Promise<string[]> {
  const r = await run('bash', [NETNS_HOSTS, 'exec', host, 'ls', '/dev/shm'], 30_000);
  return r.stdout.split('\n').filter((name) => name.startsWith(`tsmpi-${jobId}-`));
}
