/**
 * The package's runtime as one module: scripts/bundle.mjs bundles this into dist/bundle/core.cjs,
 * which code-cache.ts loads once per process for every entry point. Each entry's exports are one
 * namespace here, and the entry points' effects are functions they call themselves. Nothing of
 * it is API (@internal: no declarations): programs import the entry points.
 */
/** @internal */
export * as main from '../index.js';
/** @internal */
export * as locks from '../locks/index.js';
/** @internal */
export * as futures from '../futures/api.js';
/** @internal */
export { setWorkerScript } from '../futures/spawn.js';
/** @internal */
export { startRunningJob } from '../futures/job.js';
/** @internal */
export { runSpawnedWorker } from '../futures/spawned-main.js';
/** @internal */
export { setModuleImporter } from '../futures/module-import.js';
