// Known traffic for tsmpiexec --stats: every rank sends EAGER small and RNDV messages of 1 MiB + rank
// bytes (above every device's eager limit) to its right neighbour, then calls Bcast BCASTS times.
import { MPI } from '../../../src/index.js';

export const EAGER = 7;
export const RNDV = 3;
export const BCASTS = 4;
export const RNDV_BYTES = 1024 * 1024;

MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;
const recvs = [
  ...Array.from({ length: EAGER }, (_, i) => comm.Irecv(new Uint8Array(10 + i), left, i)),
  ...Array.from({ length: RNDV }, (_, i) => comm.Irecv(new Uint8Array(RNDV_BYTES + left), left, EAGER + i)),
];
const sends = [
  ...Array.from({ length: EAGER }, (_, i) => comm.Isend(new Uint8Array(10 + i), right, i)),
  ...Array.from({ length: RNDV }, (_, i) => comm.Isend(new Uint8Array(RNDV_BYTES + rank), right, EAGER + i)),
];
MPI.Request.Waitall([...sends, ...recvs]);
for (let i = 0; i < BCASTS; i++) comm.Bcast(new Int32Array(4), i % size);
MPI.Finalize();
