import os from 'node:os';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
t.equal(MPI.Is_initialized(), false, 'Is_initialized before Init');
MPI.Init();
t.equal(MPI.Is_initialized(), true, 'Is_initialized after Init');
t.equal(MPI.Is_finalized(), false, 'Is_finalized after Init');
const world = MPI.COMM_WORLD;
// hydra's PMI_PORT mode sets no PMI_SIZE, so a launcher that knows the size may pass it.
const expectedSize = Number(process.argv[2] ?? process.env.PMI_SIZE ?? 1);
t.equal(world.size, expectedSize, 'COMM_WORLD.size');
t.equal(world.Get_size(), expectedSize, 'COMM_WORLD.Get_size()');
t.check(world.rank >= 0 && world.rank < world.size, `rank ${world.rank} within [0, ${world.size})`);
t.equal(world.Get_rank(), world.rank, 'Get_rank() equals rank');
if (process.env.PMI_RANK !== undefined && process.env.PMI_ID === undefined) t.equal(world.rank, Number(process.env.PMI_RANK), 'rank from the process manager');
t.equal(MPI.COMM_SELF.size, 1, 'COMM_SELF.size');
t.equal(MPI.COMM_SELF.rank, 0, 'COMM_SELF.rank');
t.equal(MPI.Get_processor_name(), os.hostname(), 'Get_processor_name');
const t0 = MPI.Wtime();
const spinUntil = Date.now() + 5;
while (Date.now() < spinUntil) { /* let the clock move */ }
const t1 = MPI.Wtime();
t.check(t1 - t0 >= 0.004 && t1 - t0 < 1, `Wtime advanced ${t1 - t0} s over a 5 ms spin`);
t.check(MPI.Wtick() > 0 && MPI.Wtick() <= 1e-6, `Wtick ${MPI.Wtick()} is in (0, 1e-6]`);
t.equal(MPI.Init_thread === undefined, false, 'Init_thread exists');
const rank = world.rank;
MPI.Finalize();
t.equal(MPI.Is_finalized(), true, 'Is_finalized after Finalize');
t.finish(rank);
