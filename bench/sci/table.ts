/**
 * Merges three runs of bench/compare (point to point, one per device configuration) into the
 * README's table: per size, tsmpi's figure under ch_shmem, `--sci-nodes 2` and
 * `TSMPI_DEVICE=sci`, each beside the MPICH figure of its own run and the ratio of the two.
 *
 *   node dist/bench/compare/compare.js --bench latency,bw --repeat 3 --out bench/sci/results/pt2pt-shm.md
 *   node dist/bench/compare/compare.js --bench latency,bw --repeat 3 --launch "--sci-nodes 2" --out bench/sci/results/pt2pt-sci-nodes-2.md
 *   node dist/bench/compare/compare.js --bench latency,bw --repeat 3 --launch "-x TSMPI_DEVICE=sci" --out bench/sci/results/pt2pt-device-sci.md
 *   node dist/bench/sci/table.js bench/sci/results/pt2pt-shm.md bench/sci/results/pt2pt-sci-nodes-2.md bench/sci/results/pt2pt-device-sci.md
 */
import fs from 'node:fs';

type Rows = Map<number, { tsmpi: number; mpich: number }>;

function parse(file: string): { latency: Rows; bw: Rows } {
  const text = fs.readFileSync(file, 'utf8');
  const [lat, bw] = text.split('## osu_bw');
  const rows = (part: string | undefined): Rows => {
    const out: Rows = new Map();
    for (const line of (part ?? '').split('\n')) {
      const m = /^\| (\d+) \| ([\d.]+) \| ([\d.]+) \| [\d.]+ \|$/.exec(line);
      if (m) out.set(Number(m[1]), { tsmpi: Number(m[2]), mpich: Number(m[3]) });
    }
    return out;
  };
  return { latency: rows(lat), bw: rows(bw) };
}

const files = process.argv.slice(2);
if (files.length !== 3) {
  console.error('usage: table.js SHM.md SCI-NODES.md DEVICE-SCI.md (outputs of bench/compare)');
  process.exit(2);
}
const runs = files.map(parse);
// Each configuration beside the MPICH figure of its own run (the three runs are minutes apart).
for (const [kind, unit, digits] of [['latency', 'µs', 2], ['bw', 'MB/s', 0]] as const) {
  console.log(`| Size (B) | ch_shmem (${unit}) | MPICH | ratio | --sci-nodes 2 | MPICH | ratio | TSMPI_DEVICE=sci | MPICH | ratio |`);
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const size of runs[0]![kind].keys()) {
    const cells = [String(size)];
    for (const run of runs) {
      const row = run[kind].get(size);
      if (row === undefined) cells.push('-', '-', '-');
      else cells.push(row.tsmpi.toFixed(digits), row.mpich.toFixed(digits), (row.tsmpi / row.mpich).toFixed(2));
    }
    console.log(`| ${cells.join(' | ')} |`);
  }
  console.log('');
}
