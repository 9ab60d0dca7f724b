// Where the native parts live, shared by the install, build and prebuild scripts. The runtime
// loader (src/native/addon.ts) looks in the same two places, in the same order.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (this file is <root>/scripts/layout.mjs). */
export const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** What node-gyp builds from source; a build here wins over a prebuilt binary. */
export const BUILD_DIR = path.join(ROOT, 'native', 'build', 'Release');

/** The files a working native install consists of: the addon and the SISCI emulation it dlopens from its own directory. */
export const NATIVE_FILES = ['tsmpi.node', 'sisci_emu.so'];

/** The prebuilt binaries for one platform and architecture, as the package carries them. */
export function prebuildDir(platform = process.platform, arch = process.arch) {
  return path.join(ROOT, 'prebuilds', `${platform}-${arch}`);
}

/**
 * True in a source checkout (a git clone): it has tsconfig.json, which the published package never
 * carries. A checkout always builds from source, so `npm install` after editing native/ rebuilds.
 */
export function isSourceCheckout() {
  return fs.existsSync(path.join(ROOT, 'tsconfig.json'));
}

/** Path relative to the package root, for messages. */
export function rel(p) {
  return path.relative(ROOT, p) || '.';
}
