// The package's `install` script (also what `npm rebuild tsmpi` runs). In order:
//   - a source checkout (git clone) builds from source, as it always has;
//   - `--build-from-source` (npm_config_build_from_source) or TSMPI_BUILD_FROM_SOURCE=1 builds too;
//   - a prebuilt addon for this platform-arch that loads is used, and nothing is compiled;
//   - otherwise (another platform or arch, an older C library) it builds from source, which
//     needs g++, make and python3; without them one message says what to install.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { buildFromSource } from './build-native.mjs';
import { isSourceCheckout, NATIVE_FILES, prebuildDir, rel } from './layout.mjs';

/** Why the prebuilt binaries cannot be used here, or '' if they can. */
function prebuildProblem(dir) {
  const absent = NATIVE_FILES.filter((f) => !fs.existsSync(path.join(dir, f)));
  if (absent.length === NATIVE_FILES.length) return `there is no prebuilt addon for ${process.platform}-${process.arch}`;
  if (absent.length > 0) return `${rel(dir)} lacks ${absent.join(', ')}`;
  // Loading it in a child process proves the C and C++ libraries here are new enough, without
  // keeping the addon loaded in (or crashing) this process.
  const r = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', path.join(dir, 'tsmpi.node')],
    { encoding: 'utf8', timeout: 30_000 });
  if (r.status === 0) return '';
  const reason = (r.stderr.split('\n').find((l) => /Error/.test(l)) ?? `exit ${r.status ?? r.signal}`).trim();
  return `the prebuilt ${rel(dir)}/tsmpi.node does not load here (${reason})`;
}

function truthy(value) {
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

function main() {
  if (isSourceCheckout()) return buildFromSource({ retry: 'npm install' });
  if (truthy(process.env.npm_config_build_from_source) || truthy(process.env.TSMPI_BUILD_FROM_SOURCE)) {
    return buildFromSource({ why: 'a build from source was asked for', retry: 'npm rebuild tsmpi --build-from-source' });
  }
  const dir = prebuildDir();
  const problem = prebuildProblem(dir);
  if (problem === '') {
    console.log(`tsmpi: using the prebuilt addon in ${rel(dir)} (nothing to compile)`);
    return 0;
  }
  console.log(`tsmpi: ${problem}; building from source`);
  return buildFromSource({ why: problem, retry: 'npm rebuild tsmpi' });
}

process.exitCode = main();
