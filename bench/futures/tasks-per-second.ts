/**
 * Empty tasks per second through tsmpi/futures: `() => null` submitted all at once and awaited
 * together, and mapped with chunksize 1 and 100, through one executor whose max_workers is 2,
 * then 4 (as far as the job has workers). What it measures is the pool's own cost per task:
 * a task message out, a result message back, the dispatch and the futures.
 *
 *   tsmpiexec -n 5 node --import tsmpi/futures dist/bench/futures/tasks-per-second.js [tasks]
 */
import { MPIPoolExecutor } from 'tsmpi/futures';

const tasks = Number(process.argv[2] ?? 20_000);
if (!(Number.isInteger(tasks) && tasks > 0)) throw new Error(`tasks must be a positive integer, got ${process.argv[2]}`);
const empty = (): null => null;
const zeros = new Array<number>(tasks).fill(0);

async function rate(run: () => PromiseLike<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return tasks / ((performance.now() - started) / 1000);
}

const available = new MPIPoolExecutor().num_workers;
console.log('# tsmpi/futures: empty tasks per second');
console.log(`# ${tasks} tasks per measurement, ${available} workers in the job`);
console.log(`${'# Workers'.padEnd(10)}${'submit'.padStart(20)}${'map'.padStart(20)}${'map chunksize 100'.padStart(20)}`);
for (const workers of [2, 4]) {
  if (workers > available) {
    console.log(`# ${workers} workers: the job has only ${available}`);
    continue;
  }
  const executor = new MPIPoolExecutor({ max_workers: workers });
  await executor.map(empty, zeros.slice(0, 1000));
  const submitted = await rate(() => Promise.all(zeros.map(() => executor.submit(empty))));
  const mapped = await rate(() => executor.map(empty, zeros));
  const chunked = await rate(() => executor.map(empty, zeros, { chunksize: 100 }));
  console.log(`${String(workers).padEnd(10)}${submitted.toFixed(0).padStart(20)}${mapped.toFixed(0).padStart(20)}${chunked.toFixed(0).padStart(20)}`);
  await executor.shutdown();
}
