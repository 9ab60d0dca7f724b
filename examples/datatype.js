// A derived datatype: send one column of a row-major matrix without copying it out first.
//   npx tsmpiexec -n 2 node examples/datatype.js
// A column of a ROWS x COLS row-major matrix is ROWS blocks of 1 element, COLS elements apart:
// MPI.DOUBLE.Create_vector(ROWS, 1, COLS). The device packs it straight from the matrix.
import { MPI } from 'tsmpi';

MPI.Init();
const comm = MPI.COMM_WORLD;
const ROWS = 4;
const COLS = 5;
const COL = 2; // the column to send

const column = MPI.DOUBLE.Create_vector(ROWS, 1, COLS).Commit();

if (comm.size < 2) {
  console.log('run with at least 2 ranks: npx tsmpiexec -n 2 node examples/datatype.js');
} else if (comm.rank === 0) {
  // matrix[r][c] = 10 * r + c
  const matrix = new Float64Array(ROWS * COLS).map((_, i) => 10 * Math.floor(i / COLS) + (i % COLS));
  // [buffer, count, datatype]: the buffer starts at the column's first element.
  comm.Send([matrix.subarray(COL), 1, column], 1, 0);
} else if (comm.rank === 1) {
  // The receiver may use a different layout with the same type signature: 4 contiguous doubles.
  const received = new Float64Array(ROWS);
  comm.Recv(received, 0, 0);
  console.log(`rank 1: column ${COL} of the matrix is [${Array.from(received).join(', ')}]`);
  console.log(`the column type: size ${column.size} bytes, extent ${column.extent} bytes`);
}

column.Free();
MPI.Finalize();
