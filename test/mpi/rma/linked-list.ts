/**
 * The intents of MPICH's linked_list tests and of its nested-lock tests, written anew:
 *
 * 1. A shared linked list in a dynamic window: every rank appends `count` elements it
 *    allocates and attaches locally; an element is (value, next rank, next address); the tail
 *    pointer lives at rank 0 and is swung with Compare_and_swap (retry when another rank won),
 *    then the old tail's next link is written with Put. At the end rank 0 walks the list with
 *    Gets and must find every element of every rank exactly once, each rank's in its order.
 * 2. Locks held on several targets at once (all shared, then exclusive on a rotating subset):
 *    each epoch writes to every locked target and reads back.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const count = Number(process.argv[2] ?? 20);
const NIL = -1;

// ---------------------------------------------------------------- 1. linked list
{
  const win = MPI.Win.Create_dynamic(MPI.INFO_NULL, comm);
  // Rank 0 holds the head element (value -1) and the tail pointer (rank, address) as doubles.
  const head = Float64Array.of(-1, NIL, 0);
  const tail = new Float64Array(2);
  const mine: Float64Array[] = [];
  if (rank === 0) {
    win.Attach(head);
    win.Attach(tail);
  }
  const headAddress = comm.bcast(rank === 0 ? MPI.Get_address(head) : 0, 0) as number;
  const tailAddress = comm.bcast(rank === 0 ? MPI.Get_address(tail) : 0, 0) as number;
  if (rank === 0) {
    tail[0] = 0;
    tail[1] = headAddress;
  }
  comm.Barrier();
  win.Lock_all();
  for (let i = 0; i < count; i++) {
    const element = Float64Array.of(rank * 1000 + i, NIL, 0);
    win.Attach(element);
    mine.push(element);
    const address = MPI.Get_address(element);
    // Swing the tail (rank, address) to us: a 16-byte pair, so lock rank 0 for the swap.
    let oldRank = 0;
    let oldAddress = 0;
    const seen = new Float64Array(2);
    win.Unlock_all();
    win.Lock(0, MPI.LOCK_EXCLUSIVE);
    win.Get(seen, 0, [tailAddress, 2, MPI.DOUBLE]);
    win.Flush(0);
    [oldRank, oldAddress] = [seen[0]!, seen[1]!];
    win.Put(Float64Array.of(rank, address), 0, [tailAddress, 2, MPI.DOUBLE]);
    win.Unlock(0);
    win.Lock_all();
    // Link the old tail to us: its next fields (rank, address) with a Compare_and_swap on the rank
    // field (it must still be NIL: nobody else links from the same tail), then the address.
    const result = new Float64Array(1);
    win.Put(Float64Array.of(address), oldRank, [oldAddress + 16, 1, MPI.DOUBLE]);
    win.Flush(oldRank);
    win.Compare_and_swap(Float64Array.of(rank), Float64Array.of(NIL), result, oldRank, oldAddress + 8);
    win.Flush(oldRank);
    t.equal(result[0], NIL, 'the old tail had no successor yet');
  }
  win.Unlock_all();
  comm.Barrier();
  if (rank === 0) {
    // Walk the list: every element once, each rank's in order.
    const nextOf = new Array<number>(size).fill(0);
    let at: [number, number] = [0, headAddress];
    let found = 0;
    const node = new Float64Array(3);
    win.Lock_all();
    for (;;) {
      win.Get(node, at[0], [at[1], 3, MPI.DOUBLE]);
      win.Flush(at[0]);
      if (node[0]! >= 0) {
        const owner = Math.floor(node[0]! / 1000);
        t.equal(node[0]! % 1000, nextOf[owner], `rank ${owner}'s elements in order`);
        nextOf[owner]!++;
        found++;
      }
      if (node[1] === NIL) break;
      at = [node[1]!, node[2]!];
      if (found > count * size) break;
    }
    win.Unlock_all();
    t.equal(found, count * size, 'every element of every rank is in the list once');
  }
  comm.Barrier();
  for (const e of mine) win.Detach(e);
  if (rank === 0) {
    win.Detach(head);
    win.Detach(tail);
  }
  win.Free();
}

// ---------------------------------------------------------------- 2. nested locks
{
  const mem = new Int32Array(size);
  const win = MPI.Win.Create(mem, 4, MPI.INFO_NULL, comm);
  for (let round = 0; round < 10; round++) {
    // Shared locks on every rank at once.
    for (let r = 0; r < size; r++) win.Lock(r, MPI.LOCK_SHARED);
    const got = new Int32Array(1);
    for (let r = 0; r < size; r++) win.Get(got, r, [rank, 1, MPI.INT]);
    for (let r = size - 1; r >= 0; r--) win.Unlock(r);
    comm.Barrier();
    // Exclusive locks on a rotating half, taken in rank order (no deadlock), one write each.
    const targets = Array.from({ length: size }, (_, r) => r).filter((r) => (r + round) % 2 === 0);
    for (const r of targets) win.Lock(r, MPI.LOCK_EXCLUSIVE);
    for (const r of targets) win.Accumulate(Int32Array.of(1), r, [rank, 1, MPI.INT], MPI.SUM);
    for (const r of targets) win.Unlock(r);
    comm.Barrier();
  }
  // Rank r was a target in rounds where (r + round) is even: 5 of 10.
  for (let o = 0; o < size; o++) t.equal(mem[o], 5, `nested exclusive epochs: rank ${o}'s slot at rank ${rank}`);
  win.Free();
}

MPI.Finalize();
t.finish(rank);
