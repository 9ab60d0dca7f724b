/**
 * OMB's one-sided benchmarks on tsmpi (osu_put_latency, osu_get_latency, osu_put_bw,
 * osu_get_bw, osu_acc_latency, osu_fop_latency, osu_cas_latency), one runner for all seven;
 * the entry files bench/osu/osu_<name>.ts only name the benchmark. Two ranks: rank 0 is the
 * origin, rank 1 the target, which only synchronises.
 *
 *   node dist/bin/tsmpiexec.js -n 2 node dist/bench/osu/osu_put_latency.js [-m [MIN:]MAX] [-i N] [-x N]
 *        [-w create|allocate] [-s flush|lock|fence|pscw|lock_all]
 *
 * Method as OMB 7.0 (after one untimed pass over the whole table for the JIT): per size,
 * warm-up then timed iterations; latency = time / iterations,
 * bandwidth = size * window * iterations / time (window 64); sync per iteration: flush
 * (Lock_all once, Put + Flush each), lock (Lock, Put, Unlock each), fence (Fence, Put, Fence),
 * pscw (the target Posts and Waits, the origin Starts, Puts, Completes), lock_all (Lock_all,
 * Put, Unlock_all each). Defaults: -w allocate, -s flush. Output as OMB: title, "# Window
 * creation:", "# Synchronization:", the column line, rows "%-10d%20.2f". fop and cas move one
 * 8-byte integer (their single row is size 8); acc sums bytes as MPI.INT8_T.
 */
import { MPI } from '../../src/index.js';
import type { Win } from '../../src/mpir/rma/win.js';
import { FIELD_WIDTH, FLOAT_PRECISION, OMB_VERSION, finish, out } from './util.js';

export type RmaBench = 'put_latency' | 'get_latency' | 'put_bw' | 'get_bw' | 'acc_latency' | 'fop_latency' | 'cas_latency';

const TITLES: Record<RmaBench, string> = {
  put_latency: 'OSU MPI_Put Latency Test', get_latency: 'OSU MPI_Get latency Test', put_bw: 'OSU MPI_Put Bandwidth Test',
  get_bw: 'OSU MPI_Get Bandwidth Test', acc_latency: 'OSU MPI_Accumulate latency Test',
  fop_latency: 'OSU MPI_Fetch_and_op latency Test', cas_latency: 'OSU MPI_Compare_and_swap latency Test',
};
const SYNCS = ['flush', 'lock', 'fence', 'pscw', 'lock_all'] as const;
type Sync = (typeof SYNCS)[number];
const SYNC_NAMES: Record<Sync, string> = {
  flush: 'MPI_Win_flush', lock: 'MPI_Win_lock/unlock', fence: 'MPI_Win_fence', pscw: 'MPI_Win_post/start/complete/wait',
  lock_all: 'MPI_Win_lock_all/unlock_all',
};
const WINDOW = 64;
const LARGE = 8192;

interface Settings {
  min: number;
  max: number;
  iterations: number | null;
  warmup: number | null;
  win: 'create' | 'allocate';
  sync: Sync;
}

function parse(bench: RmaBench, argv: readonly string[]): Settings {
  const atomic = bench === 'fop_latency' || bench === 'cas_latency';
  const s: Settings = { min: bench.endsWith('_bw') ? 1 : 0, max: 1 << 22, iterations: null, warmup: null, win: 'allocate', sync: 'flush' };
  if (atomic) s.min = s.max = 8;
  for (let k = 0; k < argv.length; k++) {
    const flag = argv[k]!;
    const value = argv[++k];
    const bad = (): never => {
      if (MPI.COMM_WORLD.rank === 0) console.error(`${bench}: invalid ${flag} ${value ?? ''}`);
      return finish(1);
    };
    switch (flag) {
      case '-m': {
        const m = /^(\d*)(?::(\d*))?$/.exec(value ?? '');
        if (!m || value === '') bad();
        if (!atomic) {
          if (m![2] === undefined) s.max = Number(m![1]);
          else {
            if (m![1] !== '') s.min = Math.max(s.min, Number(m![1]));
            if (m![2] !== '') s.max = Number(m![2]);
          }
        }
        break;
      }
      case '-i': s.iterations = Number(value); if (!Number.isSafeInteger(s.iterations) || s.iterations < 1) bad(); break;
      case '-x': s.warmup = Number(value); if (!Number.isSafeInteger(s.warmup) || s.warmup < 0) bad(); break;
      case '-w': if (value !== 'create' && value !== 'allocate') bad(); s.win = value as Settings['win']; break;
      case '-s': if (!SYNCS.includes(value as Sync)) bad(); s.sync = value as Sync; break;
      default: bad();
    }
  }
  return s;
}

export function runRma(bench: RmaBench, argv: readonly string[] = process.argv.slice(2)): never {
  MPI.Init();
  const comm = MPI.COMM_WORLD;
  if (comm.size !== 2) {
    if (comm.rank === 0) console.error('This test requires exactly two processes');
    return finish(1);
  }
  const s = parse(bench, argv);
  const bw = bench.endsWith('_bw');
  const atomic = bench === 'fop_latency' || bench === 'cas_latency';
  const winBytes = Math.max(s.max * (bw ? WINDOW : 1), 8);
  const origin = new Uint8Array(winBytes).fill(0x61);
  const result = new Uint8Array(winBytes);
  let win: Win;
  if (s.win === 'allocate') win = MPI.Win.Allocate(winBytes, 1, MPI.INFO_NULL, comm);
  else win = MPI.Win.Create(new Uint8Array(winBytes), 1, MPI.INFO_NULL, comm);
  const rank = comm.rank;
  const group = comm.Get_group();
  const peerGroup = group.Incl([1 - rank]);
  const one = BigInt64Array.of(1n);
  const fetched = new BigInt64Array(1);
  const compare = new BigInt64Array(1);

  /** One operation (or a window of them) of `size` bytes at displacement `at`. */
  const op = (size: number, at: number): void => {
    switch (bench) {
      case 'put_latency': case 'put_bw': win.Put([origin.subarray(at, at + size), size, MPI.BYTE], 1, [at, size, MPI.BYTE]); break;
      case 'get_latency': case 'get_bw': win.Get([result.subarray(at, at + size), size, MPI.BYTE], 1, [at, size, MPI.BYTE]); break;
      case 'acc_latency': win.Accumulate([origin.subarray(0, size), size, MPI.INT8_T], 1, [0, size, MPI.INT8_T], MPI.SUM); break;
      case 'fop_latency': win.Fetch_and_op(one, fetched, 1, 0, MPI.SUM); break;
      case 'cas_latency': win.Compare_and_swap(one, compare, fetched, 1, 0); break;
    }
  };
  const ops = (size: number): void => {
    if (!bw) op(size, 0);
    else for (let w = 0; w < WINDOW; w++) op(size, w * size);
  };
  /** `n` synchronised iterations; the target takes part in fence and pscw only. */
  const loop = (size: number, n: number): void => {
    if (s.sync === 'flush') {
      if (rank === 0) {
        win.Lock_all();
        for (let i = 0; i < n; i++) { ops(size); win.Flush(1); }
        win.Unlock_all();
      }
    } else if (s.sync === 'lock' || s.sync === 'lock_all') {
      if (rank === 0) {
        for (let i = 0; i < n; i++) {
          if (s.sync === 'lock') win.Lock(1, MPI.LOCK_SHARED);
          else win.Lock_all();
          ops(size);
          if (s.sync === 'lock') win.Unlock(1);
          else win.Unlock_all();
        }
      }
    } else if (s.sync === 'fence') {
      for (let i = 0; i < n; i++) {
        win.Fence();
        if (rank === 0) ops(size);
        win.Fence();
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (rank === 0) {
          win.Start(peerGroup);
          ops(size);
          win.Complete();
        } else {
          win.Post(peerGroup);
          win.Wait();
        }
      }
    }
  };

  if (rank === 0) {
    out(`# ${TITLES[bench]} v${OMB_VERSION}`);
    out(`# Window creation: ${s.win === 'allocate' ? 'MPI_Win_allocate' : 'MPI_Win_create'}`);
    out(`# Synchronization: ${SYNC_NAMES[s.sync]}`);
    out(`${'# Size'.padEnd(10)}${(bw ? 'Bandwidth (MB/s)' : 'Latency (us)').padStart(FIELD_WIDTH)}`);
  }
  const sizes: number[] = [];
  for (let size = s.min; size <= s.max; size = size === 0 ? 1 : size * 2) sizes.push(size);
  const iterationsFor = (size: number) => s.iterations ?? (bw ? (size > LARGE ? 20 : 100) : size > LARGE ? 1000 : 10000);
  // JIT warm-up: the whole table once, untimed, as the two-sided benchmarks do (the first rows
  // measured 3-7 x slow without it).
  for (const size of sizes) loop(size, iterationsFor(size));
  for (const size of sizes) {
    const large = size > LARGE;
    const iterations = iterationsFor(size);
    const warmup = s.warmup ?? (bw ? (large ? 2 : 10) : large ? 10 : 100);
    comm.Barrier();
    loop(size, warmup);
    comm.Barrier();
    const t0 = MPI.Wtime();
    loop(size, iterations);
    const t = MPI.Wtime() - t0;
    comm.Barrier();
    if (rank === 0) {
      const value = bw ? (size / 1e6) * WINDOW * iterations / t : (t * 1e6) / iterations;
      out(`${String(atomic ? 8 : size).padEnd(10)}${value.toFixed(FLOAT_PRECISION).padStart(FIELD_WIDTH)}`);
    }
  }
  win.Free();
  return finish(0);
}
