// What building native/ from source needs, checked before node-gyp runs: without a compiler,
// node-gyp ends in a Python traceback or a make error that never names the missing program.
import fs from 'node:fs';
import path from 'node:path';

/** The first word of a command variable such as CXX="ccache g++" (the program that must exist). */
function program(command) {
  return command.trim().split(/\s+/)[0];
}

/** The path of `command` on PATH (or the command itself when it is a path), or null. */
export function which(command) {
  const candidates = command.includes('/')
    ? [command]
    : (process.env.PATH ?? '').split(':').filter((d) => d !== '').map((d) => path.join(d, command));
  for (const p of candidates) {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // Not here.
    }
  }
  return null;
}

/**
 * The programs node-gyp's make build would run and that are missing, as the Debian package names
 * a person installs: the Makefile it generates compiles C++ with $(CXX) (make's default: g++) and
 * C with $(CC) (default: cc, which the g++ package brings along), and gyp itself is Python
 * (node-gyp looks at $PYTHON, npm's `python` setting, then python3).
 */
export function missingTools(env = process.env) {
  const missing = [];
  const cxx = env.CXX ? program(env.CXX) : 'g++';
  const cc = env.CC ? program(env.CC) : 'cc';
  if (which(cxx) === null) missing.push(env.CXX ? cxx : 'g++');
  else if (which(cc) === null) missing.push(env.CC ? cc : 'gcc');
  if (which('make') === null) missing.push('make');
  const python = env.PYTHON || env.npm_config_python;
  if (python ? which(program(python)) === null : which('python3') === null) missing.push(python ? program(python) : 'python3');
  return missing;
}

/**
 * The one message a person sees when tools are missing: what, why a build is needed at all, how
 * to get the tools, and what to run afterwards (`retry`).
 */
export function toolchainMessage(missing, why, retry) {
  return [
    `tsmpi: building the native addon from source needs g++, make and python3; missing here: ${missing.join(', ')}.`,
    ...(why ? [`tsmpi: (a build is needed because ${why})`] : []),
    `tsmpi: install them, then run \`${retry}\`:`,
    'tsmpi:   Debian/Ubuntu: apt-get install g++ make python3',
    'tsmpi:   Fedora/RHEL:   dnf install gcc-c++ make python3',
    'tsmpi:   Alpine:        apk add g++ make python3 linux-headers',
  ].join('\n');
}
