/**
 * Running both sides of a comparison across hosts: MPICH's hydra starts the ranks of tsmpi and
 * of MPICH alike (`mpiexec.hydra -hosts h1,h2 -bootstrap-exec CMD`), so the two differ only in
 * the library. On a real cluster CMD is ssh (hydra's default) or whatever reaches the hosts; on
 * this machine `--netns-hosts K` brings up K hosts emulated in Linux namespaces
 * (../shared/tools/netns-hosts.sh, each its own network stack and /dev/shm), starts hydra on h1
 * as on a login node and reaches the others through the ssh stand-in netns-ssh.
 *
 * Both sides get the same UCX_TLS (default tcp, the only network transport between emulated
 * hosts): MPICH through hydra's -genv, tsmpi the same way, so neither has a transport the other
 * lacks. (Left unset, tsmpi's ch_ucx would pick `^sm`, every transport but shared memory, which
 * between two hosts here is tcp as well.) Shared by compare.ts and bench/locks/run-all.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

import { bringHostsUp, NETNS_HOSTS, NETNS_SSH, whyNoHosts } from '../../test/emulated-hosts.js';

export interface HostLaunch {
  /** The hosts in hydra's order: rank k runs on hosts[k % hosts.length]. */
  readonly hosts: readonly string[];
  /** hydra's -bootstrap-exec, or null for its default (ssh). */
  readonly bootstrapExec: string | null;
  /** What runs hydra itself: [] on this host, or `netns-hosts.sh exec h1` for emulated hosts. */
  readonly prefix: readonly string[];
  /** UCX_TLS for both sides, or null to leave each library's own default. */
  readonly ucxTls: string | null;
  /** One line for a report: how the ranks were placed and reached. */
  readonly description: string;
}

/** Hydra's option for a hard limit on a whole job (it kills every rank when it passes). */
const HYDRA_TIMEOUT_ENV = 'MPIEXEC_TIMEOUT';

/** Hosts given by name (`--hosts a,b [--launcher-exec CMD]`), as on a real cluster. */
export function namedHosts(list: string, bootstrapExec: string | null, ucxTls: string | null): HostLaunch {
  const hosts = list.split(',').map((h) => h.trim()).filter((h) => h !== '');
  if (hosts.length < 2) throw new Error(`--hosts needs at least two host names separated by commas, got ${JSON.stringify(list)}`);
  return {
    hosts, bootstrapExec, prefix: [], ucxTls,
    description: `hosts ${hosts.join(', ')} reached by ${bootstrapExec ?? 'ssh'}`,
  };
}

/**
 * K emulated hosts h1..hK, brought up now (idempotent, under the tests' lock). Throws with the
 * reason when they cannot be had (not root, no iproute2, the tool missing).
 */
export function emulatedHosts(k: number, ucxTls: string | null): HostLaunch {
  const why = whyNoHosts();
  if (why !== null) throw new Error(`--netns-hosts: ${why}`);
  bringHostsUp(k);
  const hosts = Array.from({ length: k }, (_, i) => `h${i + 1}`);
  return {
    hosts, bootstrapExec: NETNS_SSH, prefix: ['bash', NETNS_HOSTS, 'exec', 'h1'], ucxTls,
    description: `${k} hosts emulated in network namespaces (${hosts.join(', ')}: own network stack, host name and ` +
      '/dev/shm; only TCP/IP over a virtual switch between them), hydra started on h1, the others reached by ' +
      '../shared/tools/netns-ssh',
  };
}

/** The hydra to use, or null when MPICH's launcher is not installed. */
export function findHydra(which: (command: string) => string | null): string | null {
  return which('mpiexec.hydra') ?? (fs.existsSync('/usr/bin/mpiexec.hydra') ? '/usr/bin/mpiexec.hydra' : null);
}

/**
 * The command that runs `program` on `n` ranks across the hosts: [command, args, env]. `env`
 * goes to every rank (hydra passes its own environment on, and -genv sets UCX_TLS); hydra
 * itself ends the job after `timeoutS`, so no rank outlives a bound on another host.
 * tsmpi's ranks run with its defaults: ranks on emulated hosts count as ranks of one kernel
 * when tsmpi picks how long a wait spins (their business cards carry the kernel's id).
 */
export function hydraCommand(h: HostLaunch, hydra: string, n: number, program: readonly string[], timeoutS: number,
                             env: Readonly<Record<string, string>> = {}): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const genv = Object.entries({ ...(h.ucxTls !== null ? { UCX_TLS: h.ucxTls } : {}), ...env }).flatMap(([k, v]) => ['-genv', k, v]);
  const hydraArgs = [
    ...(h.bootstrapExec !== null ? ['-bootstrap-exec', h.bootstrapExec] : []),
    '-hosts', h.hosts.join(','), '-n', String(n), ...genv, ...program,
  ];
  const [command, ...rest] = h.prefix.length > 0 ? [...h.prefix, hydra, ...hydraArgs] : [hydra, ...hydraArgs];
  return { command: command!, args: rest, env: { ...process.env, [HYDRA_TIMEOUT_ENV]: String(timeoutS) } };
}

/** Whether hydra can start a trivial job on the hosts (so a report's failures are the benchmarks'). */
export function checkHosts(h: HostLaunch, hydra: string): string | null {
  const { command, args, env } = hydraCommand(h, hydra, h.hosts.length, ['hostname'], 60);
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 90_000, env });
  if (r.status === 0) return null;
  return `hydra could not run \`hostname\` on ${h.hosts.join(',')}: ${r.error?.message ?? `exit status ${r.status}`}\n${r.stdout ?? ''}${r.stderr ?? ''}`;
}
