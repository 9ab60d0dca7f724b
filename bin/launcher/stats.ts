import { decodeStats, type StatRow } from '../../src/mpir/tools/stats-wire.js';

/** How tsmpiexec --stats prints the job's performance variables. */
export type StatsFormat = 'table' | 'json';

/** One variable over the job: its value on each rank (null: the rank did not report) and the total. */
export interface JobStat {
  readonly name: string;
  readonly varClass: string;
  readonly unit: string;
  readonly perRank: (number | null)[];
  /** Counters: the sum over the ranks; levels and high-water marks: the largest. */
  readonly total: number;
}

/** What the ranks put into the key-value space at MPI.Finalize (src/mpir/tools/report.ts), by variable. */
export function collectStats(nprocs: number, lookup: (key: string) => string | undefined): { reported: number[]; stats: JobStat[] } {
  const reported: number[] = [];
  const byName = new Map<string, { row: StatRow; perRank: (number | null)[] }>();
  for (let rank = 0; rank < nprocs; rank++) {
    const rows = decodeStats(rank, lookup);
    if (rows === null) continue;
    reported.push(rank);
    for (const row of rows) {
      let entry = byName.get(row.name);
      if (entry === undefined) byName.set(row.name, entry = { row, perRank: new Array<number | null>(nprocs).fill(null) });
      entry.perRank[rank] = row.value;
    }
  }
  const stats = [...byName.values()].map(({ row, perRank }) => {
    const values = perRank.filter((v): v is number => v !== null);
    const total = row.varClass === 'counter' ? values.reduce((a, b) => a + b, 0) : Math.max(0, ...values);
    return { name: row.name, varClass: row.varClass, unit: row.unit, perRank, total };
  });
  return { reported, stats };
}

/**
 * The table, OSU-like: `#` lines, then a column line, then one row per variable that is not
 * zero on every rank; columns are the ranks and the total.
 */
export function formatStatsTable(nprocs: number, reported: readonly number[], stats: readonly JobStat[]): string {
  const shown = stats.filter((s) => s.perRank.some((v) => v !== null && v !== 0));
  const nameWidth = Math.max(24, ...shown.map((s) => s.name.length)) + 2;
  const width = Math.max(12, ...shown.map((s) => String(s.total).length + 2));
  const cell = (v: number | null) => (v === null ? '-' : String(v)).padStart(width);
  const unitOf = (s: JobStat) => (s.varClass === 'counter' ? s.unit : `${s.unit} (${s.varClass === 'level' ? 'level' : 'max'})`);
  const unitWidth = Math.max(10, ...shown.map((s) => unitOf(s).length)) + 2;
  let out = `# tsmpi statistics: ${nprocs} rank${nprocs === 1 ? '' : 's'}, ${reported.length} reported at MPI.Finalize\n`;
  if (reported.length < nprocs) {
    const missing = [...Array(nprocs).keys()].filter((r) => !reported.includes(r));
    out += `# no report from rank${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (shown as -)\n`;
  }
  out += '# variables that are 0 on every rank are left out (--stats=json lists all); total: the sum of\n';
  out += '# counters, the largest of levels and high-water marks (class "level" or "max" in the Unit column)\n';
  out += `${'# Variable'.padEnd(nameWidth)}${'Unit'.padEnd(unitWidth)}${[...Array(nprocs).keys()].map((r) => `rank ${r}`.padStart(width)).join('')}${'total'.padStart(width)}\n`;
  for (const s of shown) {
    out += `${s.name.padEnd(nameWidth)}${unitOf(s).padEnd(unitWidth)}${s.perRank.map(cell).join('')}${cell(s.total)}\n`;
  }
  return out;
}

/** The JSON form: one object on one line, every variable (zeros too). */
export function formatStatsJson(nprocs: number, reported: readonly number[], stats: readonly JobStat[]): string {
  return `${JSON.stringify({
    ranks: nprocs, reported,
    variables: stats.map((s) => ({ name: s.name, class: s.varClass, unit: s.unit, ranks: s.perRank, total: s.total })),
  })}\n`;
}
