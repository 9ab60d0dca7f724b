// Tells binding.gyp whether to build the UCX binding, and with which flags (run from native/):
//
//   node src/ucx_detect.cjs have     1 if the compiler finds <ucp/api/ucp.h>, else 0
//   node src/ucx_detect.cjs cflags   the include flags it needs (pkg-config's, often none)
//   node src/ucx_detect.cjs libdir   where libucp.so.0 lives, if pkg-config knows ('' otherwise)
//
// The test is the compiler's own: the C++ preprocessor the build will use ($CXX, as node-gyp's
// make does; g++ by default) must find the header, with pkg-config's flags for UCX when there
// are any. So a cross build (CXX=aarch64-linux-gnu-g++), which cannot use the host's headers,
// leaves the binding out instead of failing. TSMPI_BUILD_UCX=0 leaves it out on purpose (the
// test of the build without UCX does that). Prints only the answer: gyp reads stdout.
'use strict';
const { spawnSync } = require('node:child_process');

function pkgConfig(args) {
  const r = spawnSync('pkg-config', [...args, 'ucx'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

function cflags() {
  // -I/usr/include is the compiler's own default; passing it again would put the host's
  // headers ahead of a cross compiler's.
  return pkgConfig(['--cflags-only-I']).split(/\s+/).filter((f) => f !== '' && f !== '-I/usr/include').join(' ');
}

function have() {
  const off = process.env.TSMPI_BUILD_UCX;
  if (off === '0' || off === 'false') return false;
  const cxx = (process.env.CXX || 'g++').trim().split(/\s+/);
  const r = spawnSync(cxx[0], [...cxx.slice(1), '-E', '-x', 'c++', ...cflags().split(' ').filter(Boolean), '-'], {
    input: '#include <ucp/api/ucp.h>\n', encoding: 'utf8',
  });
  return r.status === 0;
}

const mode = process.argv[2];
if (mode === 'have') console.log(have() ? 1 : 0);
else if (mode === 'cflags') console.log(have() ? cflags() : '');
else if (mode === 'libdir') console.log(have() ? pkgConfig(['--variable=libdir']) : '');
else {
  console.error('usage: node src/ucx_detect.cjs have|cflags|libdir');
  process.exit(2);
}
