import { Info, INFO_NULL } from '../info.js';

/** How collective reads or writes go: through aggregators ('enable', 'automatic') or each rank on its own ('disable'). */
export type CbMode = 'enable' | 'disable' | 'automatic';

/**
 * The hints of a file (ROMIO's names, MPI-4 §14.2.8): cb_nodes aggregators do the file I/O of
 * collective calls, in pieces of at most cb_buffer_size bytes each; romio_cb_read and
 * romio_cb_write turn collective buffering off ('disable'). Other keys are kept for Get_info.
 */
export interface Hints {
  /** Aggregators asked for; 0: one per host. */
  readonly cbNodes: number;
  readonly cbBufferSize: number;
  readonly cbRead: CbMode;
  readonly cbWrite: CbMode;
  readonly others: ReadonlyMap<string, string>;
}

/** ROMIO's default collective buffer: 16 MiB. */
const CB_BUFFER_SIZE = 16 * 1024 * 1024;
const KNOWN = new Set(['cb_nodes', 'cb_buffer_size', 'romio_cb_read', 'romio_cb_write']);

/**
 * The hints after `info` on top of `before`. A value tsmpi cannot use (not a positive number,
 * not enable/disable/automatic) is ignored, as the standard lets an implementation ignore any
 * hint; Get_info then shows the value in effect.
 */
export function readHints(info: unknown, hostOf: Int32Array, before?: Hints): Hints {
  let cbNodes = before?.cbNodes ?? 0;
  let cbBufferSize = before?.cbBufferSize ?? CB_BUFFER_SIZE;
  let cbRead: CbMode = before?.cbRead ?? 'automatic';
  let cbWrite: CbMode = before?.cbWrite ?? 'automatic';
  const others = new Map(before?.others ?? []);
  if (info instanceof Info && info !== INFO_NULL) {
    for (const [key, value] of info.items()) {
      if (!KNOWN.has(key)) others.set(key, value);
      const n = Number(value);
      if (key === 'cb_nodes' && Number.isSafeInteger(n) && n > 0) cbNodes = Math.min(n, hostOf.length);
      if (key === 'cb_buffer_size' && Number.isSafeInteger(n) && n > 0) cbBufferSize = n;
      if (key === 'romio_cb_read' && isMode(value)) cbRead = value;
      if (key === 'romio_cb_write' && isMode(value)) cbWrite = value;
    }
  }
  return { cbNodes, cbBufferSize, cbRead, cbWrite, others };
}

function isMode(v: string): v is CbMode {
  return v === 'enable' || v === 'disable' || v === 'automatic';
}

/**
 * The aggregators: `wanted` ranks (0: one per host), spread over the hosts in turn, the lowest
 * ranks of each host first, as ROMIO's default cb_config_list places one per node. Ranks of a
 * host hand their data to an aggregator of their own host where they can.
 */
export function chooseAggregators(hostOf: Int32Array, wanted: number): number[] {
  const byHost: number[][] = [];
  hostOf.forEach((h, rank) => (byHost[h] ??= []).push(rank));
  const n = wanted > 0 ? Math.min(wanted, hostOf.length) : byHost.length;
  const out: number[] = [];
  for (let round = 0; out.length < n; round++) {
    for (const ranks of byHost) {
      if (out.length < n && round < ranks.length) out.push(ranks[round]!);
    }
  }
  return out.sort((a, b) => a - b);
}
