/**
 * Atomic mode with overlapping writers: every rank writes the same region, many times, each
 * time through a view of many small blocks (so one access is many pwrite calls), filled with
 * its own rank; every rank reads the region back between writes. With File.Set_atomicity(true)
 * each read must see one writer's data whole. arg=collective does the writes with
 * Write_at_all and Iwrite_at_all and the reads with Read_at (collective I/O against independent
 * readers).
 */
import os from 'node:os';
import path from 'node:path';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank } = world;
const collective = process.argv.includes('collective');
const dir = process.env.TSMPI_IO_DIR ?? os.tmpdir();
const name = world.bcast(rank === 0 ? path.join(dir, `tsmpi-io-atomic-${process.pid}-${Date.now()}`) : null, 0) as string;

const BLOCKS = 64;
const f = MPI.File.Open(world, name, MPI.MODE_RDWR | MPI.MODE_CREATE | MPI.MODE_DELETE_ON_CLOSE);
f.Set_atomicity(true);
// Blocks of 16 bytes with 16-byte gaps; the gaps are never written.
const filetype = MPI.BYTE.Create_vector(BLOCKS, 16, 32).Commit();
f.Set_view(0, MPI.BYTE, filetype);
const mine = new Uint8Array(BLOCKS * 16).fill(rank + 1);
const seen = new Uint8Array(BLOCKS * 16);
let torn = 0;
for (let round = 0; round < 20; round++) {
  if (collective) {
    // Every other round non-blocking: its aggregator takes the file's lock from the progress hook.
    if (round % 2 === 0) f.Write_at_all(0, mine);
    else f.Iwrite_at_all(0, mine).Wait();
  } else f.Write_at(0, mine);
  f.Read_at(0, seen);
  const first = seen[0]!;
  if (first === 0 || !seen.every((b) => b === first)) torn++;
}
t.equal(torn, 0, 'reads that saw a mix of writers (or nothing)');
world.Barrier();
f.Set_atomicity(false);
t.equal(f.Get_atomicity(), false, 'Set_atomicity(false)');
f.Close();
filetype.Free();
MPI.Finalize();
t.finish(rank);
