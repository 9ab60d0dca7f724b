# The tsmpi addon: shared segments, futexes, cross-memory copy, CRC-32, bootstrap sockets, and
# the UCX (UCP) binding when UCX's headers are here (src/ucx_detect.cjs; libucp is dlopen'ed at
# run time, never linked, so the addon loads where UCX is absent).
# Built by scripts/build-native.mjs (node-gyp against the running Node's own headers).
{
  'targets': [
    {
      'target_name': 'tsmpi',
      'sources': [
        'src/addon.cc',
        'src/args.cc',
        'src/cma.cc',
        'src/crc32.cc',
        'src/crc32_clmul.cc',
        'src/crc32_table.cc',
        'src/errors.cc',
        'src/futex.cc',
        'src/futex_async.cc',
        'src/reduce.cc',
        'src/sab.cc',
        'src/shm.cc',
        'src/sisci.cc',
        'src/socket.cc',
        'src/state_signal.cc',
        'src/lifetime.cc',
        'src/strided.cc',
        'src/ucx_am.cc',
        'src/ucx_api.cc',
        'src/ucx_context.cc',
        'src/ucx_exports.cc',
        'src/ucx_objects.cc',
        'src/ucx_rings.cc',
        'src/ucx_rma.cc',
        'src/ucx_wake.cc',
        'src/ucx_watch.cc',
        'src/waiter_pool.cc',
      ],
      'conditions': [
        ['ucx==1', {
          'defines': ['TSMPI_HAVE_UCX=1', 'TSMPI_UCX_LIBDIR="<(ucx_libdir)"'],
          'cflags_cc': ['<!@(node src/ucx_detect.cjs cflags)'],
        }],
      ],
      'include_dirs': [
        "<!(node -p \"require('node-addon-api').include_dir\")",
      ],
      'defines': [
        'NAPI_VERSION=8',
        'NAPI_CPP_EXCEPTIONS',
        'NODE_ADDON_API_DISABLE_DEPRECATED',
      ],
      # Node's common.gypi builds with -fno-exceptions and gnu++17; this addon reports errors
      # as C++ exceptions that node-addon-api turns into JS exceptions, and is plain C++17.
      'cflags!': ['-fno-exceptions'],
      'cflags_cc!': ['-fno-exceptions', '-std=gnu++17'],
      'cflags': ['-Wall', '-Wextra', '-Wno-unused-parameter'],
      'cflags_cc': ['-std=c++17', '-fexceptions'],
      'libraries': ['-lrt', '-lpthread', '-ldl'],
      'configurations': {
        # common.gypi's Release uses -O3; -O2 keeps code size and build time down, and the
        # hot loops (CRC, copies) are hand-vectorised or done by the kernel anyway.
        'Release': {
          'cflags!': ['-O3'],
          'cflags': ['-O2'],
        },
      },
    },
    # The SISCI emulation (native/sisci/README.md): a C library with Dolphin's SISCI API over
    # POSIX shared memory, loaded by tsmpi with dlopen like Dolphin's libsisci from the addon's
    # own directory.
    {
      'target_name': 'sisci_emu',
      'type': 'shared_library',
      'sources': ['sisci/sisci_emu.c', 'sisci/sisci_emu_interrupts.c', 'sisci/sisci_emu_transfer.c'],
      'include_dirs': ['sisci/include'],
      'cflags': ['-Wall', '-Wextra', '-std=gnu11'],
      'libraries': ['-lpthread'],
      'configurations': {'Release': {'cflags!': ['-O3'], 'cflags': ['-O2']}},
    },
  ],
  # The emulation's C test program, built where its source is (a clone); the published package
  # leaves native/sisci/test out, and an install from it builds only what tsmpi loads.
  'variables': {
    'with_emu_test%': '<!(node -p "+require(\'fs\').existsSync(\'sisci/test/emu_test.c\')")',
    'ucx%': '<!(node src/ucx_detect.cjs have)',
    'ucx_libdir%': '<!(node src/ucx_detect.cjs libdir)',
  },
  'conditions': [
    ['with_emu_test==1', {
      'targets': [
        {
          'target_name': 'sisci_emu_test',
          'type': 'executable',
          'sources': ['sisci/test/emu_test.c'],
          'include_dirs': ['sisci/include'],
          'dependencies': ['sisci_emu'],
          'cflags': ['-Wall', '-Wextra', '-std=gnu11'],
          'ldflags': ['-Wl,-rpath,\\$$ORIGIN/lib.target'],
        },
      ],
    }],
  ],
}
