/**
 * Post/Start/Complete/Wait, loose variant (TSMPI_RMA_PSCW=loose, 003b §3.4.2): even ranks are
 * targets that post 300 ms late, odd ranks origins whose Start returns at once and whose Puts,
 * Accumulates, Gets and Fetch_and_ops to a target that has not posted are kept until it does.
 * The origins change their buffers right after each call (the kept operations must use the
 * values of the call). Checked: Start did not wait, every target's memory is exact after Wait,
 * and the Gets and fetches saw the memory as posted (the targets fill it just before Post, so
 * an operation applied before the post is caught). With the strict variant Start waits for the post.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const loose = process.env.TSMPI_RMA_PSCW === 'loose';
const LATE_MS = 300;
const targets = Array.from({ length: size }, (_, r) => r).filter((r) => r % 2 === 0);
const origins = Array.from({ length: size }, (_, r) => r).filter((r) => r % 2 === 1);
const world = comm.Get_group();

// `allocate`: memory origins store into directly (where premature access would show); else Create.
const direct = process.argv[2] === 'allocate';
const win = direct ? MPI.Win.Allocate(4 * (2 + size), 4, MPI.INFO_NULL, comm) : MPI.Win.Create(new Int32Array(2 + size), 4, MPI.INFO_NULL, comm);
const raw = win.tomemory() as ArrayBufferView;
const mem = new Int32Array(raw.buffer, raw.byteOffset, 2 + size);
comm.Barrier();
if (rank % 2 === 0) {
  const until = Date.now() + LATE_MS;
  while (Date.now() < until) Math.sqrt(Date.now());
  // The exposure epoch starts here: anything applied earlier is overwritten (and caught).
  mem.fill(0);
  mem[0] = 1000 + rank;
  const group = world.Incl(origins);
  win.Post(group);
  win.Wait();
  t.equal(mem[0], 1000 + rank, `target ${rank}: word 0 untouched`);
  t.equal(mem[1], origins.reduce((s, o) => s + o, 0), `target ${rank}: accumulated origin ranks`);
  for (const o of origins) t.equal(mem[2 + o], 10 * o + rank, `target ${rank}: put from origin ${o}`);
  group.Free();
} else if (targets.length > 0) {
  const group = world.Incl(targets);
  const started = Date.now();
  win.Start(group);
  const startMs = Date.now() - started;
  const got = targets.map(() => new Int32Array(1));
  const fetched = targets.map(() => new Int32Array(1));
  const value = new Int32Array(1);
  targets.forEach((tr, i) => {
    win.Get(got[i]!, tr, [0, 1, MPI.INT32_T]);
    win.Fetch_and_op(Int32Array.of(0), fetched[i]!, tr, 0, MPI.SUM);
    value[0] = 10 * rank + tr;
    win.Put(value, tr, [2 + rank, 1, MPI.INT32_T]);
    value[0] = -1; // the kept Put must carry the value of the call
    value[0] = rank;
    win.Accumulate(value, tr, [1, 1, MPI.INT32_T], MPI.SUM);
    value[0] = -1;
  });
  win.Complete();
  if (loose) t.check(startMs < LATE_MS / 2, `origin ${rank}: loose Start returned after ${startMs} ms (targets post after ${LATE_MS})`);
  else t.check(startMs >= LATE_MS / 2, `origin ${rank}: strict Start waited ${startMs} ms for the targets' post`);
  targets.forEach((tr, i) => {
    t.equal(got[i]![0], 1000 + tr, `origin ${rank}: Get from target ${tr}`);
    t.equal(fetched[i]![0], 1000 + tr, `origin ${rank}: Fetch_and_op from target ${tr}`);
  });
  group.Free();
}
comm.Barrier();
win.Free();
MPI.Finalize();
t.finish(rank);
