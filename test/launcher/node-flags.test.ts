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
    assert.deepEqual(rankArgs('node', ['app.js', '-x'], {}), ['--single-threaded', 'app.js', '-x']);
    assert.deepEqual(rankArgs('/usr/local/bin/node', ['app.js'], {}), ['--single-threaded', 'app.js']);
    assert.deepEqual(rankArgs(node, ['app.js'], {}), ['--single-threaded', 'app.js']);
    assert.deepEqual(rankArgs('node', ['--single-threaded', 'app.js'], {}), ['--single-threaded', 'app.js']);
  });

  it('leaves other programs, and everything under none, as given; takes other flags; refuses nonsense', () => {
    assert.deepEqual(rankArgs('python3', ['app.py'], {}), ['app.py']);
    assert.deepEqual(rankArgs('./node-app.sh', ['x'], {}), ['x']);
    assert.deepEqual(rankArgs('node', ['app.js'], { TSMPI_NODE_FLAGS: 'none' }), ['app.js']);
    assert.deepEqual(rankArgs('node', ['--max-old-space-size=64', 'app.js'], { TSMPI_NODE_FLAGS: '--single-threaded --max-old-space-size=64' }),
      ['--single-threaded', '--max-old-space-size=64', 'app.js']);
    assert.throws(() => rankArgs('node', ['app.js'], { TSMPI_NODE_FLAGS: 'rm -rf' }), /TSMPI_NODE_FLAGS="rm -rf" is not none or node flags/);
  });

  it('a launched rank runs with the flag, and without it under -x TSMPI_NODE_FLAGS=none', { timeout: 30_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-node-flags-'));
    const script = path.join(dir, 'argv.mjs');
    fs.writeFileSync(script, 'console.log(`rank ${process.env.PMI_RANK} ${JSON.stringify(process.execArgv)}`);\n');
    try {
      const r = await tsmpiexec(['-n', '2', 'node', script], 20_000);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.stdout.trim().split('\n').sort(), ['rank 0 ["--single-threaded"]', 'rank 1 ["--single-threaded"]']);
      const plain = await tsmpiexec(['-n', '1', '-x', 'TSMPI_NODE_FLAGS=none', node, script], 20_000);
      assert.equal(plain.status, 0, plain.stderr);
      assert.equal(plain.stdout.trim(), 'rank 0 []');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
