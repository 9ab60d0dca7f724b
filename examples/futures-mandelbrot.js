// A Mandelbrot image computed row by row on a pool of MPI workers (tsmpi/futures, after
// mpi4py.futures' demo). The same script runs in both modes:
//   running-job mode: rank 0 runs this script; every other rank of the job is a worker
//     npx tsmpiexec -n 5 node --import tsmpi/futures examples/futures-mandelbrot.js [image.pgm]
//   spawn mode: the script runs alone and the executor spawns its workers (4 here; without
//   TSMPI_FUTURES_MAX_WORKERS, as many as MPI.UNIVERSE_SIZE leaves room for, at least 1)
//     npx tsmpiexec -n 1 -x TSMPI_FUTURES_MAX_WORKERS=4 node examples/futures-mandelbrot.js [image.pgm]
// With a file name it writes the image as a PGM (greyscale, any image viewer opens it).
import fs from 'node:fs';
import { MPIPoolExecutor } from 'tsmpi/futures';

const WIDTH = 480;
const HEIGHT = 320;
const MAX_ITER = 255;
const [X0, X1, Y0, Y1] = [-2.0, 1.0, -1.0, 1.0];

// One row of the image: the escape iteration of each pixel. A task's function travels as its
// source text, so it uses only its parameters (no variables from this file).
function mandelbrotRow(y, { width, height, maxIter, bounds: [x0, x1, y0, y1] }) {
  const row = new Uint8Array(width);
  const ci = y0 + ((y1 - y0) * y) / (height - 1);
  for (let x = 0; x < width; x++) {
    const cr = x0 + ((x1 - x0) * x) / (width - 1);
    let zr = 0;
    let zi = 0;
    let it = 0;
    while (it < maxIter && zr * zr + zi * zi <= 4) {
      const t = zr * zr - zi * zi + cr;
      zi = 2 * zr * zi + ci;
      zr = t;
      it++;
    }
    row[x] = it;
  }
  return row;
}

const executor = new MPIPoolExecutor();
const started = performance.now();
const rows = Array.from({ length: HEIGHT }, (_, y) => y);
const params = { width: WIDTH, height: HEIGHT, maxIter: MAX_ITER, bounds: [X0, X1, Y0, Y1] };
const image = new Uint8Array(WIDTH * HEIGHT);
// map calls mandelbrotRow(rows[i], params) for every i and yields the rows in order, while each
// worker takes the next row as soon as it has sent the last one (rows near the set take longer).
let y = 0;
for await (const row of executor.map(mandelbrotRow, rows, rows.map(() => params))) image.set(row, y++ * WIDTH);
const ms = performance.now() - started;
await executor.shutdown();

let checksum = 0;
for (const v of image) checksum = (checksum * 31 + v) % 1_000_000_007;
let inside = 0;
for (const v of image) if (v === MAX_ITER) inside++;
console.log(`mandelbrot ${WIDTH}x${HEIGHT}, ${MAX_ITER} iterations at most: checksum ${checksum}, ${inside} pixels inside the set`);
console.error(`${HEIGHT} rows on ${executor.num_workers} workers in ${ms.toFixed(0)} ms`);

const file = process.argv[2];
if (file !== undefined) {
  // PGM: a text header, then one byte per pixel: the set black, the outside brighter where a
  // point escapes sooner.
  const pixels = image.map((v) => (v === MAX_ITER ? 0 : Math.max(40, 255 - 6 * v)));
  fs.writeFileSync(file, Buffer.concat([Buffer.from(`P5\n${WIDTH} ${HEIGHT}\n255\n`), pixels]));
  console.log(`image written to ${file}`);
}
