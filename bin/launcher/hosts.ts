import fs from 'node:fs';

/**
 * Hosts of a multi-host job and where its ranks go. A host list (`--hosts h1,h2:4`) or a
 * hostfile (one `host[:slots]` per line, `#` starts a comment) names the hosts in order, each
 * with a number of slots (default 1). Placement is hydra's default, block by slots: the first
 * host takes ranks 0..slots-1, the next host the following ones, and so on; when -n is larger
 * than all slots together, the hosts are filled again in the same order, round after round
 * (oversubscription, as hydra does): `--hosts h1,h2 -n 4` puts ranks 0 and 2 on h1, 1 and 3 on h2.
 */
export interface HostSlot {
  readonly host: string;
  readonly slots: number;
}

export class HostListError extends Error {}

/** A host name: what ssh and DNS take (letters, digits, '.', '-', '_'; an IPv4 address too). */
const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_SLOTS = 1024;

/** Parses `h1,h2:2,h3`; `where` names the source in error messages (`--hosts` or `hostfile F line 3`). */
export function parseHostList(text: string, where = '--hosts'): HostSlot[] {
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length === 0 || entries.some((e) => e === '')) {
    throw new HostListError(`${where} ${JSON.stringify(text)}: expected host[:slots] entries separated by commas, e.g. h1,h2:2`);
  }
  return entries.map((e) => parseEntry(e, where));
}

/** Reads a hostfile: one `host[:slots]` per line (`host slots=N` as hydra and Open MPI write it is accepted too). */
export function readHostfile(file: string): HostSlot[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new HostListError(`--hostfile ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const hosts: HostSlot[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const where = `--hostfile ${file} line ${i + 1}`;
    const slotsForm = /^(\S+)\s+slots\s*=\s*(\S+)$/.exec(line);
    hosts.push(parseEntry(slotsForm ? `${slotsForm[1]}:${slotsForm[2]}` : line, where));
  });
  if (hosts.length === 0) throw new HostListError(`--hostfile ${file}: names no host (expected lines of host[:slots])`);
  return hosts;
}

function parseEntry(entry: string, where: string): HostSlot {
  const colon = entry.lastIndexOf(':');
  const host = colon < 0 ? entry : entry.slice(0, colon);
  const slotsText = colon < 0 ? '1' : entry.slice(colon + 1);
  if (!HOST_NAME.test(host)) {
    throw new HostListError(`${where}: ${JSON.stringify(host)} is not a host name (letters, digits, '.', '-', '_')`);
  }
  const slots = Number(slotsText);
  if (!/^\d+$/.test(slotsText) || slots < 1 || slots > MAX_SLOTS) {
    throw new HostListError(`${where}: ${JSON.stringify(entry)}: slots must be an integer in [1, ${MAX_SLOTS}]`);
  }
  return { host, slots };
}

/**
 * The ranks of each host for `nprocs` ranks over `hosts`, by the block rule above. A host named
 * twice is one host (its slots add up), placed where it was first named. Hosts that get no rank
 * are left out.
 */
export function placeRanks(hosts: readonly HostSlot[], nprocs: number): Map<string, number[]> {
  const merged = new Map<string, number>();
  for (const h of hosts) merged.set(h.host, (merged.get(h.host) ?? 0) + h.slots);
  const placement = new Map<string, number[]>();
  let rank = 0;
  while (rank < nprocs) {
    for (const [host, slots] of merged) {
      for (let s = 0; s < slots && rank < nprocs; s++) {
        let list = placement.get(host);
        if (list === undefined) placement.set(host, (list = []));
        list.push(rank++);
      }
    }
  }
  return placement;
}
