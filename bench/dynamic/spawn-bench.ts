/**
 * The cost of dynamic processes, the tsmpi side of bench/dynamic/spawn_bench.c (same method,
 * sizes, iterations and output). One parent (run it alone: `-n 1`) on COMM_SELF:
 *  - spawns N children of this program (N from --spawn, each REPEAT times) and times the call,
 *    from entry to return: the children do only MPI_Init, Disconnect and Finalize, so the time is
 *    starting N processes plus connecting the two jobs. Each round Disconnects before the next.
 *  - spawns one child and runs osu_latency's ping-pong and osu_bw's window (64 Isends closed by a
 *    4-byte ack) over the spawned intercommunicator, between the parent and child 0; the child
 *    learns the sizes and iterations from its arguments.
 * Output: `spawn N median_ms min_ms first_ms` rows, then OSU-format latency and bandwidth tables.
 *   node dist/bin/tsmpiexec.js -n 1 node dist/bench/dynamic/spawn-bench.js [--spawn 1,2,4]
 *     [--repeat 5] [--lat-sizes 1,4,...] [--bw-sizes 1024,...] [--iters N] [--iters-large N]
 */
import { fileURLToPath } from 'node:url';
import { MPI, type Intercomm } from '../../src/index.js';
import { parseConfig, type Config, LARGE, WINDOW } from './config.js';
import { median } from './parse.js';

MPI.Init();
const self = fileURLToPath(import.meta.url);
const parent = MPI.Comm.Get_parent();
const ACK = new Uint8Array(4);

/** osu_latency between rank 0 of each side: `me` 0 sends first. Returns one-way µs. */
function latency(inter: Intercomm, me: number, buf: Uint8Array, iters: number, skip: number): number {
  let t0 = 0;
  for (let i = 0; i < iters + skip; i++) {
    if (i === skip) t0 = MPI.Wtime();
    if (me === 0) {
      inter.Send(buf, 0, 1);
      inter.Recv(buf, 0, 1);
    } else {
      inter.Recv(buf, 0, 1);
      inter.Send(buf, 0, 1);
    }
  }
  return ((MPI.Wtime() - t0) * 1e6) / (2 * iters);
}

/** osu_bw from `me` 0 to 1: a window of Isends (Irecvs), Waitall, a 4-byte ack. Returns MB/s. */
function bandwidth(inter: Intercomm, me: number, buf: Uint8Array, iters: number, skip: number): number {
  let t0 = 0;
  for (let i = 0; i < iters + skip; i++) {
    if (i === skip) t0 = MPI.Wtime();
    const reqs = [];
    if (me === 0) {
      for (let w = 0; w < WINDOW; w++) reqs.push(inter.Isend(buf, 0, 100));
      MPI.Request.Waitall(reqs);
      inter.Recv(ACK, 0, 101);
    } else {
      for (let w = 0; w < WINDOW; w++) reqs.push(inter.Irecv(buf, 0, 100));
      MPI.Request.Waitall(reqs);
      inter.Send(ACK, 0, 101);
    }
  }
  return (buf.length * iters * WINDOW) / (MPI.Wtime() - t0) / 1e6;
}

/** Both sides run the same loops; only the parent prints. */
function measure(inter: Intercomm, me: number, c: Config): void {
  const buf = new Uint8Array(Math.max(...c.latSizes, ...c.bwSizes, 1)).fill(97);
  const out: string[] = ['# OSU MPI Latency Test (parent <-> spawned child 0)', '# Size          Latency (us)'];
  for (const size of c.latSizes) {
    const large = size > LARGE;
    const us = latency(inter, me, buf.subarray(0, size), large ? c.itersLarge : c.iters, large ? c.skipLarge : c.skip);
    out.push(`${String(size).padEnd(10)}${us.toFixed(2).padStart(18)}`);
  }
  out.push('# OSU MPI Bandwidth Test (parent -> spawned child 0)', '# Size      Bandwidth (MB/s)');
  for (const size of c.bwSizes) {
    const large = size > LARGE;
    const mbs = bandwidth(inter, me, buf.subarray(0, size), large ? c.bwItersLarge : c.bwIters, large ? c.bwSkipLarge : c.bwSkip);
    out.push(`${String(size).padEnd(10)}${mbs.toFixed(2).padStart(18)}`);
  }
  if (me === 0) process.stdout.write(`${out.join('\n')}\n`);
}

if (parent === MPI.COMM_NULL) {
  const c = parseConfig(process.argv.slice(2));
  process.stdout.write('# spawn N median_ms min_ms first_ms\n');
  for (const n of c.spawn) {
    const ms: number[] = [];
    for (let r = 0; r < c.repeat; r++) {
      const t0 = MPI.Wtime();
      const inter = MPI.COMM_SELF.Spawn(process.execPath, [self, 'child', 'idle'], n, MPI.INFO_NULL, 0);
      ms.push((MPI.Wtime() - t0) * 1e3);
      inter.Disconnect();
    }
    process.stdout.write(`spawn ${n} ${median(ms).toFixed(1)} ${Math.min(...ms).toFixed(1)} ${ms[0]!.toFixed(1)}\n`);
  }
  const inter = MPI.COMM_SELF.Spawn(process.execPath, [self, 'child', 'measure', ...process.argv.slice(2)], 1, MPI.INFO_NULL, 0);
  measure(inter, 0, c);
  inter.Disconnect();
} else {
  const inter = parent as Intercomm;
  if (process.argv[3] === 'measure') measure(inter, 1, parseConfig(process.argv.slice(4)));
  inter.Disconnect();
}
MPI.Finalize();
