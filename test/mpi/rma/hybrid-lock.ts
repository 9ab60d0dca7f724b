/**
 * The hybrid lock (research 004) of windows outside one node segment: every rank hammers rank
 * 0's lock with exclusive epochs doing a non-atomic read-modify-write (Get, add one, Put) and
 * shared epochs that read the counter twice (a writer slipping in between would change it);
 * no update may be lost. Ranks of rank 0's node take the lock word with CPU atomics while it is
 * in cpu mode, all others through rank 0's agent; the arguments say what the migration count
 * of rank 0's lock must be:
 *   migrates   some rank is on another node and TSMPI_RMA_LOCK_POLICY=migrate: > 0
 *   none       cpu or device policy, or every rank on one node: 0
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const expect = process.argv[2] ?? 'none';
const rounds = Number(process.argv[3] ?? 100);

const mem = new Int32Array(1);
const win = MPI.Win.Create(mem, 4, MPI.INFO_NULL, comm);
const value = new Int32Array(1);
const again = new Int32Array(1);
for (let i = 0; i < rounds; i++) {
  win.Lock(0, MPI.LOCK_EXCLUSIVE);
  win.Get(value, 0);
  win.Flush(0);
  win.Put(Int32Array.of(value[0]! + 1), 0);
  win.Unlock(0);
  if (i % 4 === 0) {
    win.Lock(0, MPI.LOCK_SHARED);
    win.Get(value, 0);
    win.Flush(0);
    win.Get(again, 0);
    win.Unlock(0);
    t.equal(again[0], value[0], 'the counter did not change inside a shared epoch');
  }
}
comm.Barrier();
const migrations = new Int32Array(1);
if (rank === 0) {
  t.equal(mem[0], rounds * size, 'no increment lost under the exclusive lock');
  migrations[0] = (win as unknown as { lockMigrations: number }).lockMigrations;
  console.log(`# lock migrations at rank 0: ${migrations[0]}`);
  if (expect === 'migrates') t.check(migrations[0]! > 0, 'the lock migrated between cpu and device mode');
  else t.equal(migrations[0], 0, 'the lock never migrated');
}
win.Free();
MPI.Finalize();
t.finish(rank);
