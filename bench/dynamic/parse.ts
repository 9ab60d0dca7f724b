/**
 * Reads the output shared by spawn-bench.ts and spawn_bench.c into one map per run:
 * `spawn N` (median ms) and `first N` (the run's first spawn of N, which pays for opening the
 * network device) from `spawn N median min first` rows, `lat SIZE` (µs) and `bw SIZE` (MB/s)
 * from the rows under the OSU headers.
 */
export type Rows = Map<string, number>;

export function parseOutput(text: string): Rows {
  const rows: Rows = new Map();
  let section: 'lat' | 'bw' | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (/^# Size\s+Latency/.test(line)) section = 'lat';
    else if (/^# Size\s+Bandwidth/.test(line)) section = 'bw';
    const spawn = /^spawn (\d+) ([\d.]+) ([\d.]+) ([\d.]+)$/.exec(line);
    if (spawn) {
      rows.set(`spawn ${spawn[1]}`, Number(spawn[2]));
      rows.set(`first ${spawn[1]}`, Number(spawn[4]));
      continue;
    }
    const osu = /^(\d+)\s+([\d.]+)$/.exec(line);
    if (osu && section !== null) rows.set(`${section} ${osu[1]}`, Number(osu[2]));
  }
  return rows;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}
