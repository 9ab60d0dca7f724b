// The package's `prepack` script: puts the addon and the SISCI emulation library into
// prebuilds/<platform>-<arch>/, so that installing the package needs no compiler. N-API version 8
// keeps one binary working across Node versions.
//
// prebuilds/ is made afresh on every pack (a binary left from an older pack never ships):
//   - this machine's platform-arch from native/build/Release, reused when it is newer than every
//     native source (what a clone's `npm install` left behind), else rebuilt first;
//   - with TSMPI_PREBUILD_CROSS=arm64 (a comma list), also those architectures, cross-compiled
//     with Debian's cross compilers (apt-get install g++-aarch64-linux-gnu) in a scratch copy of
//     native/. A release is packed that way; an ordinary `npm pack` carries the host's only.
// The copies are stripped of symbols (a debugger user builds from source).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { buildFromSource } from './build-native.mjs';
import { BUILD_DIR, NATIVE_FILES, prebuildDir, rel, ROOT } from './layout.mjs';
import { which } from './toolchain.mjs';

/** Cross targets by Node's arch name: the GNU triple that prefixes Debian's cross tools. */
const CROSS = { arm64: 'aarch64-linux-gnu', x64: 'x86_64-linux-gnu' };

/** Newest modification time (ms) of the files that make up the native build. */
function newestSource() {
  let newest = 0;
  const visit = (p) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p)) if (e !== 'build') visit(path.join(p, e));
    } else {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  visit(path.join(ROOT, 'native'));
  visit(path.join(ROOT, 'node_modules', 'node-addon-api', 'package.json'));
  return newest;
}

function buildIsCurrent() {
  const outputs = NATIVE_FILES.map((f) => path.join(BUILD_DIR, f));
  if (!outputs.every((f) => fs.existsSync(f))) return false;
  const oldest = Math.min(...outputs.map((f) => fs.statSync(f).mtimeMs));
  return oldest >= newestSource();
}

/** Copies the built files from `from` into prebuilds/linux-<arch>/, stripped with `strip` if given. */
function install(from, arch, strip) {
  const dir = prebuildDir(process.platform, arch);
  fs.mkdirSync(dir, { recursive: true });
  for (const f of NATIVE_FILES) {
    const to = path.join(dir, f);
    fs.copyFileSync(path.join(from, f), to);
    if (strip !== null) {
      const r = spawnSync(strip, ['--strip-unneeded', to], { stdio: ['ignore', 'ignore', 'inherit'] });
      if (r.status !== 0) throw new Error(`prebuild: ${strip} ${rel(to)} failed (exit ${r.status ?? r.signal})`);
    }
    console.error(`prebuild: ${rel(to)} (${fs.statSync(to).size} bytes${strip === null ? ', not stripped: no strip on PATH' : ''})`);
  }
}

/** The host's binaries, from the clone's own build. */
function hostPrebuild() {
  if (buildIsCurrent()) {
    console.error(`prebuild: reusing ${rel(BUILD_DIR)} (newer than every native source)`);
  } else {
    console.error(`prebuild: ${rel(BUILD_DIR)} is missing or older than native/; building`);
    // node-gyp's output goes to stderr: `npm pack --json` prints the tarball's listing on stdout.
    const status = buildFromSource({ why: 'prebuilds are made from a fresh build', retry: 'npm pack', stdout: 'stderr' });
    if (status !== 0) return status;
  }
  install(BUILD_DIR, process.arch, which('strip'));
  return 0;
}

/** Another architecture's binaries, cross-compiled in a scratch copy of native/ (without its tests). */
function crossPrebuild(arch) {
  const triple = CROSS[arch];
  if (process.platform !== 'linux' || triple === undefined) {
    console.error(`prebuild: cannot cross-compile for ${arch} (known: ${Object.keys(CROSS).join(', ')}, from Linux)`);
    return 1;
  }
  const tool = (name) => `${triple}-${name}`;
  if (which(tool('g++')) === null || which(tool('gcc')) === null) {
    console.error(`prebuild: cross-compiling for ${arch} needs ${tool('g++')}; on Debian/Ubuntu: apt-get install g++-${triple}`);
    return 1;
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `tsmpi-prebuild-${arch}-`));
  try {
    const native = path.join(scratch, 'native');
    fs.cpSync(path.join(ROOT, 'native'), native, {
      recursive: true,
      filter: (src) => !src.startsWith(path.join(ROOT, 'native', 'build')) && !src.startsWith(path.join(ROOT, 'native', 'sisci', 'test')),
    });
    // binding.gyp asks node for node-addon-api's headers from inside native/.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(scratch, 'node_modules'));
    const env = { ...process.env, CC: tool('gcc'), CXX: tool('g++'), LINK: tool('g++'), AR: tool('ar') };
    console.error(`prebuild: cross-compiling for linux-${arch} with ${tool('g++')}`);
    const status = buildFromSource({ retry: 'npm pack', stdout: 'stderr', directory: native, arch, env });
    if (status !== 0) return status;
    install(path.join(native, 'build', 'Release'), arch, which(tool('strip')));
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function main() {
  fs.rmSync(path.join(ROOT, 'prebuilds'), { recursive: true, force: true });
  const status = hostPrebuild();
  if (status !== 0) return status;
  const cross = (process.env.TSMPI_PREBUILD_CROSS ?? '').split(',').map((a) => a.trim()).filter((a) => a !== '' && a !== process.arch);
  for (const arch of cross) {
    const s = crossPrebuild(arch);
    if (s !== 0) return s;
  }
  return 0;
}

process.exitCode = main();
