/** One rank of the start-up benchmark: prints how long after TSMPI_BENCH_T0 its Init returned. */
import { MPI } from '../../src/index.js';

MPI.Init();
const t0 = Number(process.env.TSMPI_BENCH_T0);
console.log(`init-done rank ${MPI.COMM_WORLD.rank} ms ${(performance.timeOrigin + performance.now() - t0).toFixed(1)}`);
MPI.Finalize();
