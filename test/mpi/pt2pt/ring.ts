/** A token passed round the ring many times: prompt progress with more ranks than cores (futex sleeps). */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const laps = Number(process.argv[2] ?? 10000);
const token = new Int32Array(1);
const t0 = MPI.Wtime();
for (let lap = 0; lap < laps; lap++) {
  if (rank === 0) {
    token[0] = lap;
    comm.Send(token, (rank + 1) % size, 0);
    comm.Recv(token, size - 1, 0);
    if (token[0] !== lap + size - 1) {
      t.check(false, `lap ${lap}: token ${token[0]}`);
      break;
    }
  } else {
    comm.Recv(token, rank - 1, 0);
    token[0]! += 1;
    comm.Send(token, (rank + 1) % size, 0);
  }
}
if (rank === 0) console.log(`# ${laps} laps of ${size} ranks in ${(MPI.Wtime() - t0).toFixed(2)} s`);
MPI.Finalize();
t.finish(rank);
