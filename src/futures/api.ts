/**
 * What tsmpi/futures exports (index.ts adds the entry point's effects: the worker program's path
 * and running-job mode). The package's bundle reaches this through its core (src/loader).
 */
export { MPIPoolExecutor, type MPIPoolExecutorOptions, type MapOptions } from './executor.js';
export { MPICommExecutor } from './comm-executor.js';
export { Future, CancelledError, InvalidStateError, TaskError } from './future.js';
export { MapResults, TimeoutError } from './map-results.js';
export type { TaskFunction } from './task.js';
