/**
 * One side of two jobs that meet through a port (the acceptor writes its port name to a file
 * the connector polls for): `accept <file> <mode>` or `connect <file> <mode>`. On the
 * intercommunicator: every rank sends its rank to every remote rank (and a 200,000-element
 * message by rendezvous), the acceptor's root broadcasts, Merge puts the acceptor first,
 * an Allreduce over both jobs. Modes: `disconnect` (Disconnect, then Finalize), `finalize`
 * (no Disconnect: MPI.Finalize disconnects), `crash` (the connector's last rank exits at once
 * while the acceptor waits for its message: the acceptor's job must fail naming the lost peer).
 */
import fs from 'node:fs';
import { MPI } from '../../../src/index.js';

const [role, file, mode = 'disconnect'] = process.argv.slice(2);
MPI.Init();
const world = MPI.COMM_WORLD;
const accepting = role === 'accept';
const rank = world.rank;
if (rank === 0) process.stdout.write(`job ${process.env.TSMPI_JOBID}\n`);
let port = '';
if (accepting && world.rank === 0) {
  port = MPI.Open_port();
  fs.writeFileSync(`${file}.tmp`, port);
  fs.renameSync(`${file}.tmp`, file!);
} else if (!accepting && world.rank === 0) {
  const until = Date.now() + 30_000;
  while (!fs.existsSync(file!)) {
    if (Date.now() > until) throw new Error(`no port name in ${file} after 30 s`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  port = fs.readFileSync(file!, 'utf8');
}
const inter = accepting ? world.Accept(port) : world.Connect(port);
if (accepting && world.rank === 0) MPI.Close_port(port);
const nRemote = inter.Get_remote_size();
const errors: string[] = [];

if (mode === 'crash' && !accepting && world.rank === world.size - 1) process.exit(7);
const sends = [];
for (let r = 0; r < nRemote; r++) sends.push(inter.Isend(Int32Array.of(world.rank, accepting ? 1 : 2), r, 5));
for (let r = 0; r < nRemote; r++) {
  const got = new Int32Array(2);
  inter.Recv(got, r, 5);
  if (got[0] !== r || got[1] !== (accepting ? 2 : 1)) errors.push(`from remote rank ${r}: ${got}`);
}
MPI.Request.Waitall(sends);
const big = Float64Array.from({ length: 200_000 }, (_, i) => i * (accepting ? 1 : -1));
if (world.rank === 0) {
  const back = new Float64Array(big.length);
  inter.Sendrecv(big, 0, 6, back, 0, 6);
  if (back[199_999] !== 199_999 * (accepting ? -1 : 1)) errors.push(`rendezvous message: last element ${back[199_999]}`);
}
const word = Int32Array.of(accepting && world.rank === 0 ? 4242 : -1, 17);
inter.Bcast(word, accepting ? (world.rank === 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
if (!accepting && word[0] !== 4242) errors.push(`Bcast from the acceptor's root: ${word[0]}`);
const merged = inter.Merge(false);
const expectRank = accepting ? world.rank : nRemote + world.rank;
if (merged.rank !== expectRank) errors.push(`merged rank ${merged.rank}, expected ${expectRank}`);
const sum = new Int32Array(1);
merged.Allreduce(Int32Array.of(merged.rank), sum, MPI.SUM);
if (sum[0] !== (merged.size * (merged.size - 1)) / 2) errors.push(`Allreduce over both jobs: ${sum[0]}`);
merged.Free();
if (mode === 'disconnect') inter.Disconnect();
MPI.Finalize();
process.stdout.write(errors.length === 0 ? `${role} rank ${rank}: ok\n` : `${role} rank ${rank}: ${errors.join('; ')}\n`);
process.exitCode = errors.length === 0 ? 0 : 1;
