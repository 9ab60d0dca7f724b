/**
 * Comm.Join (MPI-4.1 §11.8.5) over sockets made with Node's net module: ranks pair up (0-1,
 * 2-3; an odd last rank joins with rank 0 over a second socket), the lower rank of a pair listens
 * and the upper connects, and each calls MPI.Comm.Join on its end inside the socket's callback
 * (before Node reads from it). On each intercommunicator of two processes: remote size 1, a
 * message both ways (eager and rendezvous), Merge, Disconnect. Then Join on a socket whose other
 * end closes without answering as Join does raises MPI.ERR_ARG, and Join(-1) too.
 */
import net from 'node:net';
import { MPI, type Intercomm } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;

/** The fd of a connected Node socket (Linux: the handle's). */
function fdOf(socket: net.Socket): number {
  return (socket as unknown as { _handle: { fd: number } })._handle.fd;
}

function exercise(inter: Intercomm, what: string, other: number): void {
  t.equal(inter.Get_remote_size(), 1, `${what}: remote size`);
  t.equal(inter.size, 1, `${what}: local size`);
  for (const n of [3, 150_000]) {
    const out = Int32Array.from({ length: n }, (_, i) => rank * 1_000_000 + i);
    const got = new Int32Array(n);
    inter.Sendrecv(out, 0, 1, got, 0, 1);
    t.check(got[0] === other * 1_000_000 && got[n - 1] === other * 1_000_000 + n - 1, `${what}: ${n} elements from rank ${other}`);
  }
  const merged = inter.Merge(rank > other);
  t.equal(merged.rank, rank > other ? 1 : 0, `${what}: rank in Merge`);
  merged.Free();
  inter.Disconnect();
}

/** Listens, tells `peer` the port by MPI, and joins with the connection that comes. */
function listenAndJoin(peer: number, tag: number): Promise<void> {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => {
      exercise(MPI.Comm.Join(fdOf(socket)), `join with rank ${peer} (listening)`, peer);
      socket.destroy();
      server.close();
      resolve();
    });
    server.listen(0, '127.0.0.1', () => world.send((server.address() as net.AddressInfo).port, peer, tag));
  });
}

function connectAndJoin(peer: number, tag: number): Promise<void> {
  const port = world.recv(peer, tag) as number;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      exercise(MPI.Comm.Join(fdOf(socket)), `join with rank ${peer} (connecting)`, peer);
      socket.destroy();
      resolve();
    });
  });
}

if (size >= 2) {
  const partner = rank % 2 === 0 ? rank + 1 : rank - 1;
  if (partner < size) await (rank < partner ? listenAndJoin(partner, 7) : connectAndJoin(partner, 7));
  if (size % 2 === 1 && (rank === 0 || rank === size - 1)) {
    await (rank === 0 ? listenAndJoin(size - 1, 8) : connectAndJoin(0, 8));
  }
}

// A socket whose other end never calls Join: rank 0 closes each connection at once; rank 1's
// Join must fail, not wait.
if (size >= 2 && rank === 0) {
  await new Promise<void>((resolve) => {
    const server = net.createServer((socket) => {
      // Resolved once the end has left: Node sends it from its event loop, which the blocking
      // Allreduce below would hold up.
      socket.end(() => resolve());
      server.close();
    });
    server.listen(0, '127.0.0.1', () => world.send((server.address() as net.AddressInfo).port, 1, 9));
  });
} else if (size >= 2 && rank === 1) {
  const port = world.recv(0, 9) as number;
  await new Promise<void>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      t.throws(() => MPI.Comm.Join(fdOf(socket)), MPI.ERR_ARG, /other process must call Comm\.Join|did not answer/, 'Join with a peer that is not joining');
      socket.destroy();
      resolve();
    });
  });
}
t.throws(() => MPI.Comm.Join(-1), MPI.ERR_ARG, /file descriptor/, 'Join(-1)');
const total = new Int32Array(1);
world.Allreduce(Int32Array.of(1), total, MPI.SUM);
t.equal(total[0], size, 'Allreduce after Join');
MPI.Finalize();
t.finish(rank);
