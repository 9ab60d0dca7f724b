/**
 * Merges three runs of bench/compare (point to point, one per device configuration) into the
 * README's table: per size, MPICH's figure and tsmpi's under ch_shmem, `--sci-nodes 2` and
 * `TSMPI_DEVICE=sci`, each with its ratio to the MPICH figure of its own run.
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
for (const [kind, unit, digits] of [['latency', 'µs', 2], ['bw', 'MB/s', 0]] as const) {
  console.log(`| Size (B) | MPICH (${unit}) | ch_shmem | ratio | --sci-nodes 2 | ratio | TSMPI_DEVICE=sci | ratio |`);
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [size, base] of runs[0]![kind]) {
    const cells = [String(size), base.mpich.toFixed(digits)];
    for (const run of runs) {
      const row = run[kind].get(size);
      cells.push(row ? row.tsmpi.toFixed(digits) : '-', row ? (row.tsmpi / row.mpich).toFixed(2) : '-');
    }
    console.log(`| ${cells.join(' | ')} |`);
  }
  console.log('');
}
