// The addon built where UCX's headers are missing (TSMPI_BUILD_UCX=0 stands in for such a
// machine): it builds, everything else in it works, and every UCX function is there and
// throws code 'ENOSYS' with what to install, so a single-host job never notices and a
// multi-host one is told what to do.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { addon } from '../../../src/native/addon.js';
import { ROOT, run } from '../../helpers.js';

describe('the addon built without UCX', () => {
  let scratch = '';
  let built = '';

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-no-ucx-'));
    const native = path.join(scratch, 'native');
    fs.cpSync(path.join(ROOT, 'native'), native, {
      recursive: true,
      filter: (src) => !src.startsWith(path.join(ROOT, 'native', 'build')),
    });
    // binding.gyp asks node for node-addon-api's headers from inside native/.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(scratch, 'node_modules'));
    const script = `import { buildFromSource } from ${JSON.stringify(path.join(ROOT, 'scripts', 'build-native.mjs'))};
      process.exitCode = buildFromSource({ directory: ${JSON.stringify(native)}, retry: 'test', stdout: 'stderr' });`;
    const r = await run(process.execPath, ['--input-type=module', '-e', script], 280_000,
      { env: { ...process.env, TSMPI_BUILD_UCX: '0' } });
    assert.equal(r.status, 0, `the build without UCX failed:\n${r.stderr.slice(-4000)}`);
    built = path.join(native, 'build', 'Release', 'tsmpi.node');
  }, { timeout: 300_000 });

  after(() => {
    if (scratch !== '') fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('has every UCX function of a full build; each throws ENOSYS saying to install libucx-dev; the rest works', async () => {
    const names = Object.keys(addon).filter((k) => k.startsWith('ucx')).sort();
    const probe = `
      const a = require(${JSON.stringify(built)});
      const out = { built: a.ucxBuiltWithUcx, names: Object.keys(a).filter((k) => k.startsWith('ucx')).sort(),
        probe: a.ucxProbe(), layout: a.ucxLayout(), crc: a.crc32(Buffer.from('123456789')), thrown: {} };
      for (const n of out.names) {
        if (typeof a[n] !== 'function' || n === 'ucxProbe' || n === 'ucxLayout') continue;
        try { a[n](); out.thrown[n] = 'nothing'; } catch (e) { out.thrown[n] = e.code + ' ' + e.message; }
      }
      console.log(JSON.stringify(out));`;
    const r = await run(process.execPath, ['-e', probe], 30_000);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      built: boolean; names: string[]; probe: { available: boolean; reason: string }; layout: unknown; crc: number;
      thrown: Record<string, string>;
    };
    assert.equal(out.built, false);
    assert.deepEqual(out.names, names, 'the two builds export different UCX functions');
    assert.equal(out.probe.available, false);
    assert.match(out.probe.reason, /built without UCX.*install libucx-dev/);
    assert.deepEqual(out.layout, addon.ucxLayout());
    assert.equal(out.crc, 0xcbf43926);
    const functions = Object.keys(out.thrown);
    assert.ok(functions.length >= 30, `only ${functions.length} UCX functions`);
    for (const n of functions) assert.match(out.thrown[n]!, new RegExp(`^ENOSYS ${n}: .*install libucx-dev`), n);
  });
});
