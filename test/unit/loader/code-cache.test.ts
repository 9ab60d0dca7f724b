// The package loader (src/loader/code-cache.ts) on a small CommonJS core of its own in a
// temporary directory: each case runs a fresh node process, as ranks do, and checks how the core
// was loaded and what it exported. The real core (dist/bundle/core.cjs) goes through the same
// function in every test that imports 'tsmpi' and in test/package.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ROOT, run } from '../../helpers.js';

const LOADER = pathToFileURL(path.join(ROOT, 'dist', 'src', 'loader', 'code-cache.js')).href;

describe('code cache of the package core', () => {
  let dir = '';
  let core = '';
  let cacheDir = '';

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-code-cache-'));
    core = path.join(dir, 'core.cjs');
    cacheDir = path.join(dir, 'code-cache');
    // A core with functions that run at load and one that runs later, a builtin required, and
    // an import() (the futures workers load task modules that way) through the loader's.
    fs.writeFileSync(core, [
      '"use strict";',
      'const path = require("node:path");',
      'function square(x) { return x * x; }',
      'const table = Array.from({ length: 100 }, (_, i) => square(i));',
      'exports.sum = table.reduce((a, b) => a + b, 0);',
      'exports.base = path.basename(__filename);',
      'exports.later = (x) => square(x) + 1;',
      // As the runtime's module-import.ts: import() comes from the loader.
      'let importer = null;',
      'exports.setModuleImporter = (f) => { importer = f; };',
      'exports.importValue = (url) => importer(url).then((m) => m.value);',
    ].join('\n'));
    fs.writeFileSync(path.join(dir, 'data.mjs'), 'export const value = 42;\n');
  });

  after(() => {
    if (dir !== '') fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Loads the core in a fresh process; its exports' results and how it was loaded. */
  async function load(env: NodeJS.ProcessEnv = {}, flags: string[] = []): Promise<{ how: string; sum: number; base: string; later: number; json: number }> {
    const program = [
      `const { loadCore, lastLoad } = await import(${JSON.stringify(LOADER)});`,
      `const core = loadCore(new URL(${JSON.stringify(pathToFileURL(core).href)}), 'test1');`,
      `const again = loadCore(new URL(${JSON.stringify(pathToFileURL(core).href)}), 'test1');`,
      'if (again !== core) throw new Error("a second loadCore made a second core");',
      `const json = await core.importValue(${JSON.stringify(pathToFileURL(path.join(dir, 'data.mjs')).href)});`,
      'console.log(JSON.stringify({ how: lastLoad(), sum: core.sum, base: core.base, later: core.later(7), json }));',
    ].join('\n');
    const r = await run(process.execPath, [...flags, '--input-type=module', '-e', program], 20_000,
      { env: { ...process.env, ...env } });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout.trim());
  }

  const caches = (): string[] => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);
  const expected = { sum: 328350, base: 'core.cjs', later: 50, json: 42 };

  it('compiles and writes the cache the first time, then loads from it; the exports are the same', { timeout: 60_000 }, async () => {
    const first = await load();
    assert.deepEqual(first, { how: 'compiled', ...expected });
    assert.equal(caches().length, 1, `one cache file: ${caches().join(', ')}`);
    assert.match(caches()[0]!, /^core-test1-[0-9a-f]{8}\.bin$/);
    const second = await load();
    assert.deepEqual(second, { how: 'cached', ...expected });
  });

  it('keeps one cache per set of node flags (V8 refuses a cache made under other flags)', { timeout: 60_000 }, async () => {
    const before = caches();
    assert.deepEqual(await load({}, ['--single-threaded']), { how: 'compiled', ...expected });
    assert.equal(caches().length, before.length + 1);
    assert.deepEqual(await load({}, ['--single-threaded']), { how: 'cached', ...expected });
    assert.deepEqual(await load(), { how: 'cached', ...expected });
  });

  it('a damaged cache is refused by V8, the core compiled and the cache written again', { timeout: 60_000 }, async () => {
    await load();
    for (const f of caches()) {
      const bytes = fs.readFileSync(path.join(cacheDir, f));
      bytes.fill(0x5a, 16, Math.min(bytes.length, 4096));
      fs.writeFileSync(path.join(cacheDir, f), bytes);
    }
    assert.deepEqual(await load(), { how: 'rejected', ...expected });
    assert.deepEqual(await load(), { how: 'cached', ...expected });
  });

  it('a cache of another build of the core is not used (its name carries the build id)', { timeout: 60_000 }, async () => {
    const before = caches();
    fs.appendFileSync(core, '\nexports.extra = 1;\n');
    const program = [
      `const { loadCore, lastLoad } = await import(${JSON.stringify(LOADER)});`,
      `const core = loadCore(new URL(${JSON.stringify(pathToFileURL(core).href)}), 'test2');`,
      'console.log(lastLoad(), core.extra);',
    ].join('\n');
    const r = await run(process.execPath, ['--input-type=module', '-e', program], 20_000);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'compiled 1');
    assert.equal(caches().length, before.length + 1);
  });

  it('TSMPI_CODE_CACHE=0 loads the core as plain CommonJS and writes nothing', { timeout: 60_000 }, async () => {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    assert.deepEqual(await load({ TSMPI_CODE_CACHE: '0' }), { how: 'plain', ...expected });
    assert.deepEqual(caches(), []);
  });

  it('a directory it cannot write (a read-only install) means no cache, not an error', { timeout: 60_000 }, async () => {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    fs.writeFileSync(cacheDir, 'a file where the cache directory would go');
    try {
      assert.deepEqual(await load(), { how: 'compiled', ...expected });
      assert.deepEqual(await load(), { how: 'compiled', ...expected });
    } finally {
      fs.rmSync(cacheDir, { force: true });
    }
  });

  it('a bad TSMPI_CODE_CACHE value is refused with the variable named', { timeout: 60_000 }, async () => {
    const program = `const { loadCore } = await import(${JSON.stringify(LOADER)}); loadCore(new URL(${JSON.stringify(pathToFileURL(core).href)}), 'x');`;
    const r = await run(process.execPath, ['--input-type=module', '-e', program], 20_000,
      { env: { ...process.env, TSMPI_CODE_CACHE: 'maybe' } });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /TSMPI_CODE_CACHE="maybe" is not a boolean/);
  });
});
