/**
 * Strided file I/O, the tsmpi side of bench/io/io_bench.c (same method, same output): each rank
 * owns every P-th block of BLOCK bytes of one file and writes then reads its blocks
 * collectively (Write_at_all / Read_at_all, two-phase through the aggregators) and
 * independently (Write_at / Read_at, one pwrite/pread per block). Rows "op block MB/s": the
 * job's bytes over the slowest rank's time, best of REPEAT runs after one untimed warm-up run.
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/io/io-bench.js FILE PER_RANK_BYTES REPEAT BLOCK...
 */
import { type File, MPI } from '../../src/index.js';

MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const [name, perRankArg, repeatArg, ...blocks] = process.argv.slice(2);
const perRank = Number(perRankArg);
const repeat = Number(repeatArg);
const buf = new Uint8Array(perRank).map((_, i) => (i * 7 + rank) & 0xff);
const ops = ['write_all', 'read_all', 'write', 'read'];
const time = new Float64Array(1);
const slowest = new Float64Array(1);

function run(f: File, op: number, data: Uint8Array): number {
  world.Barrier();
  const t0 = MPI.Wtime();
  if (op === 0) f.Write_at_all(0, data);
  if (op === 1) f.Read_at_all(0, data);
  if (op === 2) f.Write_at(0, data);
  if (op === 3) f.Read_at(0, data);
  if (op === 0 || op === 2) f.Sync();
  time[0] = MPI.Wtime() - t0;
  world.Allreduce(time, slowest, MPI.MAX);
  return slowest[0]!;
}

if (rank === 0) process.stdout.write('# op block MB/s\n');
for (const b of blocks) {
  const block = Number(b);
  const nblocks = Math.floor(perRank / block);
  const vec = MPI.BYTE.Create_vector(nblocks, block, block * size);
  const ft = vec.Create_resized(0, block * size * nblocks).Commit();
  const f = MPI.File.Open(world, name!, MPI.MODE_RDWR | MPI.MODE_CREATE);
  f.Set_view(rank * block, MPI.BYTE, ft, 'native');
  const data = buf.subarray(0, nblocks * block);
  for (let op = 0; op < 4; op++) {
    let best = Infinity;
    run(f, op, data); // warm-up, untimed
    for (let r = 0; r < repeat; r++) best = Math.min(best, run(f, op, data));
    if (rank === 0) process.stdout.write(`${ops[op]} ${block} ${(nblocks * block * size / best / 1e6).toFixed(1)}\n`);
  }
  f.Close();
  ft.Free();
  vec.Free();
}
if (rank === 0) MPI.File.Delete(name!);
MPI.Finalize();
