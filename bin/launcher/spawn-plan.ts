import fs from 'node:fs';
import path from 'node:path';
import type { SpawnRequest } from '../../src/pmi/index.js';
import { resolveExecutable } from './command.js';
import type { HostSlot } from './hosts.js';

/**
 * Where and how each process of a spawned job starts (PMI-1 spawn under tsmpiexec), decided
 * before anything starts, so a request that cannot be met starts nothing and its caller gets
 * a reason it can act on. The info keys of each command:
 *
 *   wdir  the working directory (relative: to the launcher's); default the launcher's
 *   path  directories (colon-separated) in which to find the command; default the PATH
 *   env   NAME=value pairs for the command's processes, separated by spaces or newlines
 *   host  the host (or comma-separated hosts, taken in turn) to start on; default: each
 *         process on the job's least loaded host (live processes per slot, first named on a tie)
 *
 * Other keys are ignored, as hydra ignores them. On hosts other than the launcher's, the
 * command and the directory are checked by that host's agent.
 */
export interface PlannedProcess {
  readonly rank: number;
  /** The index of the process's command in the request (get_appnum). */
  readonly appnum: number;
  /** The host to start on; null: the launcher's own (a job without --hosts). */
  readonly host: string | null;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The cwd came from info wdir (else it is the launcher's, and a host without it starts in home). */
  readonly cwdGiven: boolean;
  /** Variables on top of the launcher's environment (the info env, PMI_SPAWNED). */
  readonly env: Readonly<Record<string, string>>;
}

export interface PlacementContext {
  /** The launcher's hosts (--hosts); null when every process runs here. */
  readonly hosts: readonly HostSlot[] | null;
  /** Names by which a single-host job accepts `host` (its hostname, localhost). */
  readonly localNames: readonly string[];
  /** The host the launcher runs on, in the host list's spelling, or null when not in it. */
  readonly launcherHost: string | null;
  /** Live processes on each host now (for the default placement). */
  readonly load: (host: string) => number;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export type SpawnPlan = { readonly processes: readonly PlannedProcess[] } | { readonly error: string };

/** Most processes one spawn may start: a larger count is a mistake, not a job (and its tables would not fit). */
export const MAX_SPAWNED = 65536;

export function planSpawn(request: SpawnRequest, ctx: PlacementContext): SpawnPlan {
  const total = request.blocks.reduce((n, b) => n + b.maxprocs, 0);
  if (total > MAX_SPAWNED) return { error: `the spawn asks for ${total} processes; tsmpiexec starts at most ${MAX_SPAWNED} in one spawn` };
  const processes: PlannedProcess[] = [];
  const slots = new Map<string, number>();
  for (const h of ctx.hosts ?? []) slots.set(h.host, (slots.get(h.host) ?? 0) + h.slots);
  const planned = new Map<string, number>();
  for (const [appnum, block] of request.blocks.entries()) {
    const info = new Map(block.info);
    const what = `command ${appnum} (${JSON.stringify(block.command)})`;
    const cwd = path.resolve(ctx.cwd, info.get('wdir') ?? '.');
    const env: Record<string, string> = { PMI_SPAWNED: '1' };
    for (const pair of (info.get('env') ?? '').split(/\s+/)) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      if (eq <= 0) return { error: `${what}: info env entry ${JSON.stringify(pair)} is not NAME=value` };
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    let hosts: string[];
    const hostInfo = info.get('host') ?? info.get('hosts');
    if (hostInfo !== undefined) {
      hosts = hostInfo.split(',').map((h) => h.trim()).filter((h) => h !== '');
      const known = [...new Set(ctx.hosts === null ? ctx.localNames : slots.keys())];
      const bad = hosts.find((h) => !known.includes(h));
      if (bad !== undefined || hosts.length === 0) {
        return { error: `${what}: info host ${JSON.stringify(hostInfo)} is not one of this job's hosts (${known.join(', ')}); ` +
          'name one of them, or leave host out to let tsmpiexec place the processes' };
      }
    } else {
      hosts = [];
    }
    const startsHere = (h: string | null) => h === null || h === ctx.launcherHost;
    const placeOne = (k: number): string | null => {
      if (ctx.hosts === null) return null;
      let best = hosts.length > 0 ? hosts[k % hosts.length]! : null;
      let bestLoad = Infinity;
      if (best === null) {
        for (const [h, s] of slots) {
          const load = (ctx.load(h) + (planned.get(h) ?? 0)) / s;
          if (load < bestLoad) [best, bestLoad] = [h, load];
        }
      }
      // Counted at once, so the next process of this request sees it.
      planned.set(best!, (planned.get(best!) ?? 0) + 1);
      return best;
    };
    const places = Array.from({ length: block.maxprocs }, (_, k) => placeOne(k));
    let command = block.command;
    if (places.some(startsHere)) {
      if (!isDirectory(cwd)) return { error: `${what}: info wdir ${JSON.stringify(cwd)} is not a directory on this host` };
      const found = findCommand(block.command, info.get('path'), cwd, { ...ctx.env, ...env });
      if (found === null) {
        const where = info.has('path') && !block.command.includes('/') ? `in info path ${JSON.stringify(info.get('path'))}`
          : path.isAbsolute(block.command) ? '(no such executable file)'
            : block.command.includes('/') ? `(relative to the working directory ${cwd})` : 'on PATH';
        return { error: `${what}: cannot find an executable ${JSON.stringify(block.command)} ${where}; ` +
          'give its full path, or the directory in info path' };
      }
      if (ctx.hosts === null || places.every(startsHere)) command = found;
    } else if (info.has('path') && !block.command.includes('/')) {
      command = path.join(info.get('path')!.split(':')[0]!, block.command);
    }
    for (const host of places) processes.push({ rank: processes.length, appnum, host, command, args: block.args, cwd, cwdGiven: info.has('wdir'), env });
  }
  return { processes };
}

/** The executable `command` names: in `dirs` (info path) if given, else as spawn would find it from `cwd`. */
function findCommand(command: string, dirs: string | undefined, cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (command.includes('/')) return resolveExecutable(path.resolve(cwd, command), env);
  if (dirs !== undefined) return resolveExecutable(command, { PATH: dirs.split(':').map((d) => path.resolve(cwd, d)).join(':') });
  return resolveExecutable(command, env);
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
