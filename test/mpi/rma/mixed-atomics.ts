/**
 * Accumulate atomicity between access paths (MPI-3.1 §11.7.1): every rank updates the same
 * words of rank 0's part of a Win.Allocate window at once, in a passive epoch of Lock_all, so
 * ranks of rank 0's host use CPU atomics and ranks of other hosts (or every other rank under
 * TSMPI_DEVICE=ucx) use the network device's atomics (UCX's, done at the target), or the agent
 * for what the device cannot do. Each kind is counted exactly, so an update lost between two
 * paths shows:
 *   word 0  int64  Fetch_and_op SUM 1     (device: atomic add)        tickets distinct too
 *   word 1  int64  Accumulate BXOR bit r  twice per round: 0 at the end
 *   word 2  double Accumulate SUM 0.5     (device: compare-and-swap loop)
 *   word 3  int64  Accumulate MAX i       (device: compare-and-swap loop)
 *   words 4-5 int32 pair Accumulate SUM 1 (device: 4-byte atomic add)
 *   bytes 48-63 int16 x8 Accumulate SUM 1 (2-byte elements: the agent)
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const rounds = Number(process.argv[2] ?? 150);
const win = MPI.Win.Allocate(64, 1, MPI.INFO_NULL, comm);
comm.Barrier();
const got = new BigInt64Array(1);
const tickets: bigint[] = [];
win.Lock_all();
for (let i = 0; i < rounds; i++) {
  win.Fetch_and_op(BigInt64Array.of(1n), got, 0, 0, MPI.SUM);
  win.Flush(0); // the result is defined once the operation completes
  tickets.push(got[0]!);
  const bit = BigInt.asIntN(64, 1n << BigInt(rank % 63));
  win.Accumulate(BigInt64Array.of(bit), 0, [8, 1, MPI.INT64_T], MPI.BXOR);
  win.Accumulate(Float64Array.of(0.5), 0, [16, 1, MPI.DOUBLE], MPI.SUM);
  win.Accumulate(BigInt64Array.of(BigInt(i * size + rank)), 0, [24, 1, MPI.INT64_T], MPI.MAX);
  win.Accumulate(Int32Array.of(1, 2), 0, [32, 2, MPI.INT32_T], MPI.SUM);
  win.Accumulate(Int16Array.of(1, 1, 1, 1, 1, 1, 1, 1), 0, [48, 8, MPI.INT16_T], MPI.SUM);
  win.Accumulate(BigInt64Array.of(bit), 0, [8, 1, MPI.INT64_T], MPI.BXOR);
}
win.Unlock_all();
comm.Barrier();
const all = new Float64Array(size);
comm.Allgather(Float64Array.of(new Set(tickets).size), all);
t.check(all.every((n) => n === rounds), 'each rank\'s fetch-and-add tickets are distinct');
if (rank === 0) {
  const mem = win.tomemory() as Uint8Array;
  const v = new DataView(mem.buffer, mem.byteOffset, 64);
  const n = rounds * size;
  t.equal(v.getBigInt64(0, true), BigInt(n), 'every Fetch_and_op counted (CPU and device atomics on one word)');
  t.equal(v.getBigInt64(8, true), 0n, 'XOR twice per round leaves nothing');
  t.equal(v.getFloat64(16, true), n * 0.5, 'every double SUM counted (compare-and-swap loops)');
  t.equal(v.getBigInt64(24, true), BigInt((rounds - 1) * size + size - 1), 'MAX is the largest value sent');
  t.equal(v.getInt32(32, true), n, 'int32 SUM, first element');
  t.equal(v.getInt32(36, true), 2 * n, 'int32 SUM, second element');
  for (let k = 0; k < 8; k++) t.equal(v.getInt16(48 + 2 * k, true), n, `int16 SUM element ${k} (through the agent)`);
}
win.Free();
MPI.Finalize();
t.finish(rank);
