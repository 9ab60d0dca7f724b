import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { rankArgs } from '../../bin/launcher/node-flags.js';
import { tsmpiexec } from '../helpers.js';

const node = process.execPath;

describe('TSMPI_NODE_FLAGS: what tsmpiexec adds to a node rank', () => {
  it('puts --single-threaded before the script of node, by name or by path, once', () => {
    assert.deepEqual(rankArgs('node', ['app.js', '-x'], 2, {}, 2), ['--single-threaded', 'app.js', '-x']);
    assert.deepEqual(rankArgs('/usr/local/bin/node', ['app.js'], 1, {}, 2), ['--single-threaded', 'app.js']);
    assert.deepEqual(rankArgs(node, ['app.js'], 2, {}, 2), ['--single-threaded', 'app.js']);
    assert.deepEqual(rankArgs('node', ['--single-threaded', 'app.js'], 2, {}, 2), ['--single-threaded', 'app.js']);
  });

  it('adds nothing when the host\'s ranks outnumber its cores', () => {
    assert.deepEqual(rankArgs('node', ['app.js'], 3, {}, 2), ['app.js']);
    assert.deepEqual(rankArgs('node', ['app.js'], 32, {}, 8), ['app.js']);
    assert.deepEqual(rankArgs('node', ['app.js'], 8, {}, 8), ['--single-threaded', 'app.js']);
  });

  it('leaves other programs, and everything under none, as given; takes other flags; refuses nonsense', () => {
    assert.deepEqual(rankArgs('python3', ['app.py'], 2, {}, 2), ['app.py']);
    assert.deepEqual(rankArgs('./node-app.sh', ['x'], 2, {}, 2), ['x']);
    assert.deepEqual(rankArgs('node', ['app.js'], 2, { TSMPI_NODE_FLAGS: 'none' }, 2), ['app.js']);
    assert.deepEqual(rankArgs('node', ['--max-old-space-size=64', 'app.js'], 2, { TSMPI_NODE_FLAGS: '--single-threaded --max-old-space-size=64' }, 2),
      ['--single-threaded', '--max-old-space-size=64', 'app.js']);
    assert.throws(() => rankArgs('node', ['app.js'], 2, { TSMPI_NODE_FLAGS: 'rm -rf' }, 2), /TSMPI_NODE_FLAGS="rm -rf" is not none or node flags/);
  });

  it('launched ranks run with the flag (on a machine of 2 cores or more), and without it under -x TSMPI_NODE_FLAGS=none', { timeout: 30_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-node-flags-'));
    const script = path.join(dir, 'argv.mjs');
    fs.writeFileSync(script, 'console.log(`rank ${process.env.PMI_RANK} ${JSON.stringify(process.execArgv)}`);\n');
    try {
      const r = await tsmpiexec(['-n', '2', 'node', script], 20_000);
      assert.equal(r.status, 0, r.stderr);
      const flags = os.availableParallelism() >= 2 ? '["--single-threaded"]' : '[]';
      assert.deepEqual(r.stdout.trim().split('\n').sort(), [`rank 0 ${flags}`, `rank 1 ${flags}`]);
      const plain = await tsmpiexec(['-n', '1', '-x', 'TSMPI_NODE_FLAGS=none', node, script], 20_000);
      assert.equal(plain.status, 0, plain.stderr);
      assert.equal(plain.stdout.trim(), 'rank 0 []');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
