import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { addon } from '../../../src/native/addon.js';
import { PmiError } from '../../../src/common/errors.js';
import { PmiClient } from '../../../src/pmi/index.js';
import { inheritedSocketProblem } from '../../../src/pmi/inherited-fd.js';

function identity(fd: number): string {
  const st = fs.fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

describe('PMI_FD check', () => {
  it('accepts the socket it was told about, and any socket when not told', () => {
    const [a, b] = addon.socketpair();
    try {
      assert.equal(inheritedSocketProblem(a, identity(a)), null);
      assert.equal(inheritedSocketProblem(a, undefined), null);
      assert.match(inheritedSocketProblem(a, identity(b))!, /PMI_FD=\d+ is a socket, but not the one tsmpiexec passed/);
    } finally {
      fs.closeSync(a);
      fs.closeSync(b);
    }
  });

  it('names a closed fd, a file and a terminal-like device as such', () => {
    const [a, b] = addon.socketpair();
    fs.closeSync(a);
    fs.closeSync(b);
    assert.match(inheritedSocketProblem(a, undefined)!, new RegExp(`PMI_FD=${a} is not an open file descriptor in this process \\(EBADF\\)`));
    const file = path.join(os.tmpdir(), `tsmpi-fd-${process.pid}`);
    const fd = fs.openSync(file, 'w');
    try {
      assert.match(inheritedSocketProblem(fd, undefined)!, /is a regular file, not the process manager's socket/);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(file);
    }
    const nul = fs.openSync('/dev/null', 'r');
    try {
      assert.match(inheritedSocketProblem(nul, undefined)!, /is a character device/);
    } finally {
      fs.closeSync(nul);
    }
  });

  it('fails Init with advice to use --pmi-port when PMI_FD is unusable and there is no PMI_PORT', () => {
    const nul = fs.openSync('/dev/null', 'r');
    try {
      assert.throws(() => PmiClient.fromEnvironment({ PMI_FD: String(nul), PMI_RANK: '0', PMI_SIZE: '2' }),
        (e: Error) => e instanceof PmiError && /PMI_FD=\d+ is a character device/.test(e.message) &&
          /tsmpiexec --pmi-port/.test(e.message));
    } finally {
      fs.closeSync(nul);
    }
  });
});
