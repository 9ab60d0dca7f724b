import { addon } from '../native/addon.js';

/**
 * Whether this JavaScript runs on the process's main thread, not in a worker_threads Worker.
 * Asked of the addon: worker_threads' isMainThread would load node:worker_threads, which takes
 * Node's worker and stream modules with it (2-9 ms of a rank's start), and Init asks only this.
 */
export function onMainThread(): boolean {
  return addon.onMainThread();
}
