/**
 * How a rank hands its performance variables to tsmpiexec at MPI.Finalize (TSMPI_STATS): a
 * JSON array of [name, class, unit, value] rows, cut into pieces that fit a PMI-1 value (no
 * spaces; 1024-byte lines with command, kvsname and key), put under `tsmpi-stats-<rank>-<i>`,
 * with the number of pieces under `tsmpi-stats-<rank>`. The launcher reads them from its
 * key-value space when the job has ended. Shared by both sides; imports nothing.
 */

/** One variable of one rank, as the launcher receives it. */
export interface StatRow {
  readonly name: string;
  /** 'counter', 'level' or 'highwatermark'. */
  readonly varClass: string;
  readonly unit: string;
  readonly value: number;
}

/** Characters per piece: a put line of a 256-character kvsname and a 64-character key stays under 1024 bytes. */
export const STATS_PIECE = 600;

export function statsCountKey(rank: number): string {
  return `tsmpi-stats-${rank}`;
}

export function statsPieceKey(rank: number, piece: number): string {
  return `tsmpi-stats-${rank}-${piece}`;
}

/** The key-value pairs that carry `rows` of `rank`, the count last (the launcher reads it first). */
export function encodeStats(rank: number, rows: readonly StatRow[]): [string, string][] {
  const text = JSON.stringify(rows.map((r) => [r.name, r.varClass, r.unit, r.value]));
  if (/\s/.test(text)) throw new Error('stats: a variable name, class or unit contains white space');
  const pairs: [string, string][] = [];
  for (let at = 0, i = 0; at < text.length; at += STATS_PIECE, i++) pairs.push([statsPieceKey(rank, i), text.slice(at, at + STATS_PIECE)]);
  pairs.push([statsCountKey(rank), String(pairs.length)]);
  return pairs;
}

/** The rows `rank` reported, or null when it reported nothing (or something unreadable). */
export function decodeStats(rank: number, lookup: (key: string) => string | undefined): StatRow[] | null {
  const count = Number(lookup(statsCountKey(rank)));
  if (!Number.isInteger(count) || count < 1) return null;
  let text = '';
  for (let i = 0; i < count; i++) {
    const piece = lookup(statsPieceKey(rank, i));
    if (piece === undefined) return null;
    text += piece;
  }
  try {
    const rows = JSON.parse(text) as unknown;
    if (!Array.isArray(rows)) return null;
    return rows.map((r: [string, string, string, number]) => ({ name: String(r[0]), varClass: String(r[1]), unit: String(r[2]), value: Number(r[3]) }));
  } catch {
    return null;
  }
}
