// Non-blocking communication: Isend/Irecv return a Request that you can `await` (the event loop
// stays free while the message is in flight), Wait, or complete together with MPI.Request.Waitall.
//   npx tsmpiexec -n 4 node examples/nonblocking.js
import { MPI } from 'tsmpi';

MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;

// 1. await: post the receive and the send, then await each request. Awaiting a receive gives its
//    MPI.Status; while it is pending, timers, I/O and other promises keep running, which a
//    blocking Recv would stop.
const fromLeft = new Int32Array(1);
const recv = comm.Irecv(fromLeft, left, 1);
const send = comm.Isend(Int32Array.of(100 + rank), right, 1);
const status = await recv;
await send;
console.log(`rank ${rank}: got ${fromLeft[0]} from rank ${status.source} (awaited; event loop free)`);

// 2. Waitall: a halo exchange, both neighbours at once, completed by one call.
const halo = new Float64Array(2);                     // [from left, from right]
const requests = [
  comm.Irecv(halo.subarray(0, 1), left, 2),
  comm.Irecv(halo.subarray(1, 2), right, 2),
  comm.Isend(Float64Array.of(rank + 0.5), left, 2),
  comm.Isend(Float64Array.of(rank + 0.5), right, 2),
];
MPI.Request.Waitall(requests);
console.log(`rank ${rank}: halo from left ${halo[0]}, from right ${halo[1]}`);

// 3. Objects: awaiting irecv() gives the received value itself.
const objRecv = comm.irecv(left, 3);
comm.isend({ from: rank, note: 'hi' }, right, 3).Wait();
const msg = await objRecv;
console.log(`rank ${rank}: object ${JSON.stringify(msg)}`);

MPI.Finalize();
