/**
 * The collective OSU benchmarks (osu_barrier, osu_bcast, osu_reduce, osu_allreduce,
 * osu_allgather, osu_alltoall, osu_gather, osu_scatter) share this loop, OMB's
 * c/mpi/collective/blocking method: per size a Barrier, then warm-up + timed calls, each call
 * timed alone by an MPI.Wtime() pair and followed by an untimed Barrier (not in osu_barrier),
 * so that a rank leaving a call early (a bcast root, a reduce leaf) cannot run ahead into the
 * next one; the warm-up calls are dropped, each rank's average latency is reduced to rank 0,
 * which prints the mean over ranks (bench/compare/osu_coll.c does the same in C):
 *
 *   # OSU MPI Allreduce Latency Test v7.0
 *   # Size       Avg Latency(us)
 *   4                         1.23
 *
 * Sizes are bytes per rank (per block for gather, scatter, allgather and alltoall), as in OMB.
 * Options are util.ts's (-m, -i, -x, -h, -v); -c is accepted and ignored. The whole table is
 * run once untimed before it is measured, as osu_latency does (TSMPI_BENCH_JIT_WARMUP=0 skips it).
 */
import { MPI } from '../../src/index.js';
import { type BenchmarkSpec, FIELD_WIDTH, finish, formatRow, headerLine, iterationsFor, messageSizes, out, start, warmupFor } from './util.js';

type Comm = typeof MPI.COMM_WORLD;

/** Calls of the untimed pass per size (as util.ts's JIT warm-up). */
const JIT_PASS_CALLS = 4;

export interface CollBench {
  name: string;
  title: string;
  /** No message sizes (osu_barrier): one row without a size column. */
  sizeless?: boolean;
  /** Buffers for `size` bytes per rank; returns the operation to time. */
  prepare(comm: Comm, size: number): () => void;
}

export function runCollective(bench: CollBench): never {
  const spec: BenchmarkSpec = {
    name: bench.name, title: bench.title, kind: 'latency',
    processCountError: (n) => (n >= 2 ? null : 'This test requires at least two processes'),
  };
  const o = start(spec, process.argv.slice(2).filter((a) => a !== '-c' && a !== '--validation'));
  const comm = MPI.COMM_WORLD;
  if (comm.rank === 0) {
    out(headerLine(spec));
    out(`# tsmpi: ${comm.size} ranks, node ${process.version}; TSMPI_COLL_* algorithm choices from the environment`);
    out(bench.sizeless ? 'Avg Latency(us)'.padStart(FIELD_WIDTH) : '# Size'.padEnd(10) + 'Avg Latency(us)'.padStart(FIELD_WIDTH));
  }
  const sizes = bench.sizeless ? [0] : messageSizes(spec, o).filter((s) => s > 0);
  const total = new Float64Array(1);
  const separate = bench.sizeless !== true; // a Barrier between calls, except around Barrier itself
  // Each size's operation is made once: the untimed pass and the row call the same closure (a
  // new one in the row made V8 throw the compiled loop away there: "wrong call target").
  const ops = sizes.map((size) => bench.prepare(comm, size));
  // As osu_latency: an untimed pass over the whole table first, in several calls a size, so that
  // rows time compiled code rather than the JIT (TSMPI_BENCH_JIT_WARMUP=0 skips it). V8 compiles
  // a function whole only after enough calls (one long call gets its loop compiled on stack).
  if (process.env.TSMPI_BENCH_JIT_WARMUP !== '0') {
    sizes.forEach((size, k) => {
      const n = warmupFor(o, size) + iterationsFor(o, size);
      for (let part = 0; part < JIT_PASS_CALLS; part++) measure(comm, ops[k]!, 1, Math.ceil(n / JIT_PASS_CALLS), separate);
    });
    // A compile the last calls asked for happens at the next call: let that be one of these.
    for (let part = 0; part < JIT_PASS_CALLS; part++) measure(comm, ops[0]!, 1, 1, separate);
  }
  for (const [k, size] of sizes.entries()) {
    const mine = measure(comm, ops[k]!, warmupFor(o, size), iterationsFor(o, size), separate);
    comm.Reduce(Float64Array.of(mine), total, MPI.SUM, 0);
    if (comm.rank === 0) {
      const avg = total[0]! / comm.size;
      out(bench.sizeless ? avg.toFixed(2).padStart(FIELD_WIDTH) : formatRow(size, avg));
    }
    comm.Barrier();
  }
  return finish(0);
}

/** OMB's loop for one size: µs per call, the `skip` warm-up calls dropped. */
function measure(comm: Comm, op: () => void, skip: number, iterations: number, separate: boolean): number {
  let timer = 0;
  comm.Barrier();
  for (let i = 0; i < skip + iterations; i++) {
    const t0 = MPI.Wtime();
    op();
    const t1 = MPI.Wtime();
    if (i >= skip) timer += t1 - t0;
    if (separate) comm.Barrier();
  }
  return (timer * 1e6) / iterations;
}
