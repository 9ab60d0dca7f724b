/**
 * Remote-put access (003b §3.2c): every rank Gets large blocks of every other rank's window
 * (Win.Create on process memory, so Gets go through the target's agent) into memory from
 * MPI.Alloc_mem(info type=shared). At or above TSMPI_RMA_REMOTE_PUT_MIN (argument 1 says what
 * to expect: `remote` or `message`) the target writes the data straight into the origin's
 * exported memory; below it, and into private memory, the data come back as a message. Data
 * checked byte for byte, in fence and lock epochs, with odd sizes.
 */
import { MPI } from '../../../src/index.js';
import { MTest, fillPattern, findPatternError } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const expect = process.argv[2] ?? 'remote';
const BYTES = 70001;
const mem = new Uint8Array(BYTES);
fillPattern(mem, rank);
const win = MPI.Win.Create(mem, 1, MPI.INFO_NULL, comm);
const info = MPI.Info.Create();
info.Set('type', 'shared');
const shared = MPI.Alloc_mem(size * BYTES, info);
const into = new Uint8Array(shared, 0, size * BYTES);
const counters = (win as unknown as { remotePut: { gets: number; written: number } }).remotePut;

win.Fence();
for (let r = 0; r < size; r++) if (r !== rank) win.Get(into.subarray(r * BYTES, (r + 1) * BYTES), r, [0, BYTES, MPI.BYTE]);
win.Fence();
const check = (what: string): void => {
  for (let r = 0; r < size; r++) {
    if (r === rank) continue;
    t.equal(findPatternError(into.subarray(r * BYTES, (r + 1) * BYTES), r), -1, `${what}: first wrong byte of rank ${r}'s window`);
  }
};
check('fence epoch');
into.fill(0);
for (let r = 0; r < size; r++) {
  if (r === rank) continue;
  win.Lock(r, MPI.LOCK_SHARED);
  win.Get(into.subarray(r * BYTES, r * BYTES + 333), r, [0, 333, MPI.BYTE]); // small: a message
  win.Get(into.subarray(r * BYTES + 333, (r + 1) * BYTES), r, [333, BYTES - 333, MPI.BYTE]);
  win.Unlock(r);
}
check('lock epochs');
const gets = counters.gets;
if (size > 1) {
  if (expect === 'remote') t.equal(gets, 2 * (size - 1), 'large Gets served by remote-put');
  else t.equal(gets, 0, 'no remote-put');
}
comm.Barrier();
win.Free();
MPI.Free_mem(shared);
MPI.Finalize();
t.finish(rank);
