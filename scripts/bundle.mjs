// Bundles the compiled runtime (dist/src, from tsc) into dist/bundle: the package's entry points
// `tsmpi`, `tsmpi/locks` and `tsmpi/futures` load a few files instead of ~200 modules. Node's ES
// module loader pays a resolution, a read and a compile per module, ~60 ms per rank before
// MPI.Init here, which 32 ranks on 2 cores pay 16 times over (bench/launch). The entries share
// their code through chunks (esbuild's splitting), so a program that imports several has one
// runtime. npm packages (debug) stay imports: they are the user's to resolve, and CommonJS
// inside an ES bundle could not require Node's modules.
//
//   node scripts/bundle.mjs     (after tsc: `npm run build`, `prepare`, `pretest`)
import { rmSync } from 'node:fs';
import path from 'node:path';

import { ROOT } from './layout.mjs';

const OUT = path.join(ROOT, 'dist', 'bundle');
const ENTRIES = {
  index: 'dist/src/index.js',
  'locks/index': 'dist/src/locks/index.js',
  'futures/index': 'dist/src/futures/index.js',
  // The program of spawn mode's workers, beside futures/index (spawn.ts starts it by path).
  'futures/spawned-worker': 'dist/src/futures/spawned-worker.js',
};

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // An installed package carries dist/bundle already; a clone has esbuild as a devDependency.
  console.error('bundle: esbuild is not installed (run `npm install` in the clone); dist/bundle left as it is');
  process.exit(1);
}

rmSync(OUT, { recursive: true, force: true });
await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(ROOT, file)])),
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
