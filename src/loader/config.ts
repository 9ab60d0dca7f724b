import { declareBool } from '../common/config.js';

/** The package loader's tunable (code-cache.ts), read when tsmpi is imported. */
export const CODE_CACHE = declareBool({
  name: 'TSMPI_CODE_CACHE', layer: 'package',
  description: 'Whether importing tsmpi (the package\'s entry points) uses V8\'s code cache of the runtime, kept in ' +
    'dist/bundle/code-cache/ (written by the first process of a build and set of node flags): it spares each rank ' +
    'the parse and compile of the runtime before MPI.Init. 0 compiles it every time.',
  default: true,
});
