/**
 * One rank of the start-up benchmark: prints how long after TSMPI_BENCH_T0 (ms since the
 * epoch) its program started (Node's own start, before tsmpi is imported) and its Init
 * returned, and its resident shared memory then (RssShmem of /proc/self/status,
 * the pages of shared segments this process has mapped). It loads tsmpi as a program does,
 * through the package's entry point (`import 'tsmpi'`: the bundle in dist/bundle).
 */
import { createRequire } from 'node:module';
import type * as Tsmpi from '../../src/index.js';

// node:fs by require: an ES import of it makes Node's loader read every export of the module,
// and its ReadStream getter loads Node's stream modules, 7-10 ms of each rank's start that would
// be this program's cost, not tsmpi's (MPICH's rank program reads the same file with stdio).
const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

// A specifier in a variable: tsc would otherwise resolve 'tsmpi' to the declarations this very
// build writes.
const entry = 'tsmpi';
const sinceT0 = () => performance.timeOrigin + performance.now() - Number(process.env.TSMPI_BENCH_T0);
const started = sinceT0();
const { MPI } = (await import(entry)) as typeof Tsmpi;

MPI.Init();
const ms = sinceT0();
const status = fs.readFileSync('/proc/self/status', 'utf8');
const shmemKib = Number(/^RssShmem:\s+(\d+)/m.exec(status)?.[1] ?? -1);
console.log(`init-done rank ${MPI.COMM_WORLD.rank} ms ${ms.toFixed(1)} shmem-kib ${shmemKib} started-ms ${started.toFixed(1)}`);
MPI.Finalize();
