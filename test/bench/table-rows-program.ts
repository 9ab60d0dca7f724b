// Walks 40 rows of tableSizes (bench/osu/util.ts) and allocates ~320 KiB of short-lived Request-sized
// objects in each, as a row of 6,400 Isends does; prints how many rows met a scavenge (the young
// generation's use dropped inside the row) and how many scavenges fell between rows.
import { tableSizes, type BenchmarkSpec, type Options } from '../../bench/osu/util.js';
import { youngGeneration } from '../../src/mpir/young-generation.js';

const ROWS = 40;
const OBJECTS_PER_ROW = 6_400;
const sink: unknown[] = [null];

const spec = { kind: 'bandwidth' } as BenchmarkSpec;
const options = { minSize: 1, maxSize: 2 ** (ROWS - 1) } as Options;
let rowsHit = 0;
let between = 0;
let rows = 0;
let last = youngGeneration().space_used_size;
for (const _size of tableSizes(spec, options)) {
  let used = youngGeneration().space_used_size;
  if (used < last) between++;
  let hit = false;
  for (let i = 0; i < OBJECTS_PER_ROW; i++) {
    // Three fields, as the public Request: ~48 bytes of young generation.
    sink[0] = { core: i, procNull: false, comm: sink };
    if ((i & 63) === 63) {
      const now = youngGeneration().space_used_size;
      if (now < used) hit = true;
      used = now;
    }
  }
  if (hit) rowsHit++;
  last = used;
  rows++;
}
console.log(JSON.stringify({ rows, rowsHit, between }));
