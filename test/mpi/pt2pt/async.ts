/**
 * Awaiting requests: `await comm.Irecv(...)` lets the event loop run (timers keep firing while
 * the message is late) and completes when the message arrives; awaited object receives resolve
 * to the value; many awaited receives complete together.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;

async function main(): Promise<void> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const buf = new Int32Array(1);
  const pending = comm.Irecv(buf, left, 1);
  setTimeout(() => comm.Send(Int32Array.of(rank), right, 1), 150);
  const status = await pending;
  clearInterval(timer);
  t.equal(buf[0], left, 'awaited Irecv delivers');
  t.equal(status.Get_source(), left, 'awaited status source');
  t.check(ticks >= 5, `the event loop ran while waiting (${ticks} ticks)`);

  const many = Array.from({ length: 50 }, (_, i) => comm.Irecv(new Float64Array(10), left, 100 + i));
  for (let i = 49; i >= 0; i--) comm.Send(new Float64Array(10).fill(i), right, 100 + i);
  const statuses = await Promise.all(many);
  t.equal(statuses.every((s, i) => s.Get_tag() === 100 + i), true, '50 awaited receives');

  const obj = comm.irecv(left, 2);
  setTimeout(() => comm.send({ hello: rank }, right, 2), 50);
  const value = (await obj) as { hello: number };
  t.equal(value.hello, left, 'awaited object receive resolves to the value');

  // An awaited receive that waits 400 ms uses (almost) no CPU: the native waiter sleeps on the
  // futex, nothing polls.
  const idle = comm.Irecv(new Int32Array(1), left, 4);
  setTimeout(() => comm.Send(Int32Array.of(1), right, 4), 400);
  const cpu0 = process.cpuUsage();
  const wall0 = Date.now();
  await idle;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  t.check(Date.now() - wall0 >= 300, 'the idle receive really waited');
  t.check(cpuMs < 100, `CPU time while awaiting an idle receive: ${cpuMs.toFixed(1)} ms over ${Date.now() - wall0} ms`);

  const big = new Uint8Array(2_000_000);
  const rb = comm.Irecv(big, left, 3);
  const sb = comm.Isend(new Uint8Array(2_000_000).fill(rank + 1), right, 3);
  await Promise.all([rb, sb]);
  t.equal(big[1_999_999], left + 1, 'awaited rendezvous');
}

main().then(() => {
  MPI.Finalize();
  t.finish(rank);
}, (e) => {
  console.log(`rank ${rank}: ${(e as Error).stack}`);
  process.exit(1);
});
