import { MPI, type Win } from '../../../src/index.js';

/**
 * The passive-target epochs of rma/passive and rma/passive-busy, on rank 0's part of `win`
 * (8-byte displacement unit): `cycles` epochs of Lock (every fourth exclusive) / Fetch_and_op
 * SUM 1 on word 0 / Accumulate SUM rank on word 1 / Compare_and_swap rank into word 2 if it
 * holds 0 / Flush / Unlock, then one exclusive epoch that Puts `rank` into word 3 + rank. Each
 * fetch-and-add ticket (read after a Flush: the result is defined once the operation
 * completes) is pushed to `tickets`.
 */
export function lockEpochs(win: Win, rank: number, cycles: number, tickets: bigint[]): void {
  const got = new BigInt64Array(1);
  for (let i = 0; i < cycles; i++) {
    win.Lock(0, i % 4 === 0 ? MPI.LOCK_EXCLUSIVE : MPI.LOCK_SHARED);
    win.Fetch_and_op(BigInt64Array.of(1n), got, 0, 0, MPI.SUM);
    win.Flush(0);
    tickets.push(got[0]!);
    win.Accumulate(BigInt64Array.of(BigInt(rank)), 0, [1, 1, MPI.INT64_T], MPI.SUM);
    win.Compare_and_swap(BigInt64Array.of(BigInt(rank)), BigInt64Array.of(0n), got, 0, 2);
    win.Flush(0);
    win.Unlock(0);
  }
  win.Lock(0, MPI.LOCK_EXCLUSIVE);
  win.Put(BigInt64Array.of(BigInt(rank)), 0, [3 + rank, 1, MPI.INT64_T]);
  win.Unlock(0);
}
