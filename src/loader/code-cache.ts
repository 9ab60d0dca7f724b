import type fsModule from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { CODE_CACHE } from './config.js';

/**
 * Loads the package's runtime (dist/bundle/core.cjs, one CommonJS file that scripts/bundle.mjs
 * makes of every entry point) with V8's code cache, so a rank does not parse and compile ~0.9 MB
 * of JavaScript before MPI.Init. Node 20 caches no compiled ES module, and its ES module loader
 * also builds a namespace facade for every builtin a module imports; a CommonJS file compiled
 * through vm.Script can take `cachedData`. Measured on the 2-vCPU VM: importing tsmpi took
 * ~68 ms with the ES bundle and ~55 ms this way, and 32 ranks on 2 cores pay it 16 times over
 * before the last one's Init (bench/launch).
 *
 * The cache is V8's serialization of the script after its top level ran (so the functions that
 * ran then are in it too), in dist/bundle/code-cache/, one file per build of the core and per
 * set of node flags (V8 refuses a cache made under other flags). The first process of a build and
 * flag set writes it (to a temporary name, then renamed: ranks that start together may all write
 * it, and the last rename wins with the same bytes); a cache V8 rejects is written again; a
 * directory that cannot be written (a read-only install) just means no cache. TSMPI_CODE_CACHE=0
 * loads without one.
 *
 * This module is the bundle's own entry (dist/bundle/load-core.js): it imports nothing of the
 * runtime but its tunable's declaration.
 */

// node:fs through require, not an import: the ES module loader's facade for node:fs reads every
// export, ReadStream's getter among them, and that loads Node's stream modules (7-10 ms of a
// rank's start on this machine) for a loader that only reads and writes files.
const fs = createRequire(import.meta.url)('node:fs') as typeof fsModule;

/** The core's exports, as scripts/bundle.mjs makes them (each entry point's namespace). */
export type CoreExports = Record<string, unknown>;

const loaded = new Map<string, CoreExports>();

/**
 * How the last core was loaded: compiled and its cache written, from the cache, compiled again
 * because V8 rejected the cache (which was written anew), or as plain CommonJS (no cache).
 */
export type LoadHow = 'compiled' | 'cached' | 'rejected' | 'plain';
let lastHow: LoadHow | null = null;

/** How the last core was loaded (null before the first): for tests and benchmarks. */
export function lastLoad(): LoadHow | null {
  return lastHow;
}

/**
 * The exports of the core at `url` (loaded once per process, whichever entry point asks first),
 * `buildId` naming its build (a hash of its text, written into the entry points by the bundler).
 */
export function loadCore(url: URL, buildId: string): CoreExports {
  const file = fileURLToPath(url);
  let core = loaded.get(file);
  if (core === undefined) {
    core = CODE_CACHE.read() ? runCached(file, buildId) : runPlain(file);
    // import() inside a script compiled through vm finds no module loader (a cached script
    // loses vm's option for it, and the option warns that it is experimental): the core gets
    // this module's import() (src/futures/module-import.ts).
    if (typeof core.setModuleImporter === 'function') core.setModuleImporter((specifier: string) => import(specifier));
    loaded.set(file, core);
  }
  return core;
}

function runPlain(file: string): CoreExports {
  lastHow = 'plain';
  return createRequire(file)(file) as CoreExports;
}

type CoreFunction = (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string,
                     dirname: string) => void;

function runCached(file: string, buildId: string): CoreExports {
  // The core is ASCII (esbuild's charset option): read as latin1 it is a one-byte string
  // without a UTF-8 decode.
  const source = fs.readFileSync(file, 'latin1');
  const cacheFile = path.join(path.dirname(file), 'code-cache', `core-${buildId}-${flagsKey()}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // CommonJS's wrapper, on the source's first line so that its line numbers stay its own.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const module = { exports: {} };
  const run = script.runInThisContext() as CoreFunction;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const exports = module.exports as CoreExports;
  lastHow = cachedData === undefined ? 'compiled' : script.cachedDataRejected === true ? 'rejected' : 'cached';
  if (lastHow !== 'cached') writeCache(cacheFile, script);
  return exports;
}

function writeCache(cacheFile: string, script: vm.Script): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    // Before serializing (a few ms): a directory we may not write is known without it.
    fs.accessSync(path.dirname(cacheFile), fs.constants.W_OK);
    fs.writeFileSync(temporary, script.createCachedData());
    fs.renameSync(temporary, cacheFile);
  } catch {
    // A package directory we cannot write: run without a cache (and leave no partial file).
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}

/**
 * The flags V8 was started with (node's command line and NODE_OPTIONS), as a short hash: V8
 * accepts a cache only from a process with the same flags.
 */
function flagsKey(): string {
  const text = `${process.version} ${process.arch} ${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
