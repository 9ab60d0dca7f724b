// Parallel I/O: every rank writes its columns of one shared file through a view, all together,
// then reads them back; and a log written in rank order through the shared file pointer.
//   npx tsmpiexec -n 4 node examples/io.js
// The view makes the file look, to each rank, like its own contiguous array: a subarray
// filetype picks the rank's columns of a ROWS x (size * COLS) matrix of doubles. Write_all is
// collective, so tsmpi gathers the pieces at one rank per host and writes the matrix in one go.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MPI } from 'tsmpi';

MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const ROWS = 4;
const COLS = 2;
const name = world.bcast(rank === 0 ? path.join(os.tmpdir(), `tsmpi-example-io-${process.pid}.dat`) : null, 0);

const file = MPI.File.Open(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
const columns = MPI.DOUBLE.Create_subarray([ROWS, size * COLS], [ROWS, COLS], [0, rank * COLS]).Commit();
file.Set_view(0, MPI.DOUBLE, columns);
// Element (r, c) of the whole matrix holds r * 100 + c.
const mine = Float64Array.from({ length: ROWS * COLS }, (_, i) => Math.floor(i / COLS) * 100 + rank * COLS + (i % COLS));
file.Write_all(mine);
file.Sync();

const back = new Float64Array(ROWS * COLS);
file.Read_at_all(0, back);
const same = back.every((v, i) => v === mine[i]);
const ok = new Int32Array(1);
world.Allreduce(Int32Array.of(same ? 1 : 0), ok, MPI.MIN);
if (rank === 0) {
  const raw = fs.readFileSync(name);
  const matrix = new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  const sum = matrix.reduce((a, b) => a + b, 0);
  console.log(`matrix ${ROWS} x ${size * COLS} written by ${size} ranks: sum ${sum}, every rank read its columns back: ${ok[0] === 1}`);
}

// A log in rank order: each rank's line, one after the other, through the shared file pointer.
file.Set_view(file.Get_size(), MPI.BYTE, MPI.BYTE);
file.Write_ordered(new TextEncoder().encode(`rank ${rank} of ${size}\n`));
file.Sync();
if (rank === 0) {
  const log = fs.readFileSync(name).subarray(ROWS * size * COLS * 8).toString();
  console.log(`log: ${log.trim().split('\n').join('; ')}`);
}
columns.Free();
file.Close();
MPI.Finalize();
