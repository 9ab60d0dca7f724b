// Builds native/ from source with node-gyp against the headers of the running Node, never
// downloading them: a distribution's Node ships its headers under <prefix>/include/node, which
// --nodedir points at. Before node-gyp runs, the toolchain is checked, so a machine without a
// compiler gets one message naming what to install instead of a gyp traceback.
//
//   node scripts/build-native.mjs     (what `npm install` runs in a clone; also `npm run build`)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ROOT } from './layout.mjs';
import { missingTools, toolchainMessage } from './toolchain.mjs';

const require = createRequire(import.meta.url);

/**
 * node-gyp: the project's own (a devDependency, present in a clone), else the one npm bundles and
 * names in npm_config_node_gyp for lifecycle scripts (an installed package has no devDependencies).
 */
function nodeGypScript() {
  try {
    return require.resolve('node-gyp/bin/node-gyp.js', { paths: [ROOT] });
  } catch {
    const bundled = process.env.npm_config_node_gyp;
    if (bundled && existsSync(bundled)) return bundled;
    return null;
  }
}

/**
 * Builds the addon into <directory>/build/Release (default: native/). `why` says why a build is
 * needed (for the message when tools are missing), `retry` what to run once they are installed;
 * `stdout: 'stderr'` sends node-gyp's output to stderr. `arch` and `env` cross-compile (the
 * prebuild script passes another architecture and its compilers in CC/CXX/LINK/AR).
 * @returns the exit status for the caller's process (0: built).
 */
export function buildFromSource({
  why = '', retry = 'npm rebuild tsmpi', stdout = 'inherit', directory = path.join(ROOT, 'native'), arch = '',
  env = process.env,
} = {}) {
  const missing = missingTools(env);
  if (missing.length > 0) {
    console.error(toolchainMessage(missing, why, retry));
    return 1;
  }
  const gyp = nodeGypScript();
  if (gyp === null) {
    console.error('tsmpi: building the native addon needs node-gyp, which npm normally provides to install scripts; ' +
      'run the build through npm (`' + retry + '`) or install node-gyp (`npm install -g node-gyp`) and set npm_config_node_gyp to its bin/node-gyp.js');
    return 1;
  }
  const prefix = path.dirname(path.dirname(process.execPath));
  const args = [gyp, 'rebuild', '--directory', directory];
  if (existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);
  if (arch !== '') args.push(`--arch=${arch}`);
  const r = spawnSync(process.execPath, args, { env, stdio: ['inherit', stdout === 'stderr' ? 2 : 'inherit', 'inherit'] });
  if (r.status !== 0) {
    console.error(`tsmpi: node-gyp failed (exit ${r.status ?? r.signal}); the compiler's messages are above`);
    return 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = buildFromSource({ retry: 'npm install' });
}
