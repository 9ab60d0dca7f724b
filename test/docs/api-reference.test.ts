// `npm run docs` (typedoc, typedoc.json) must keep producing the API reference from whatever the
// declarations are. Generated into a temporary directory, not docs/api/, so the test leaves
// nothing behind. typedoc is a devDependency: without it (a production install) this skips.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, run } from '../helpers.js';

const TYPEDOC = path.join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc');

describe('API reference', () => {
  it('typedoc.json generates HTML for tsmpi and its lock library', {
    timeout: 180_000, skip: fs.existsSync(TYPEDOC) ? false : 'typedoc is not installed (a devDependency)',
  }, async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-api-'));
    try {
      const r = await run(process.execPath, [TYPEDOC, '--options', path.join(ROOT, 'typedoc.json'), '--out', out], 170_000, { cwd: ROOT });
      assert.equal(r.status, 0, `typedoc failed:\n${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stdout + r.stderr, /Found [1-9]\d* errors/, r.stdout);
      const index = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
      assert.match(index, /tsmpi/);
      const files = fs.readdirSync(out, { recursive: true }).map(String);
      // The public namespace, a class of the API and the lock library's registry are documented.
      for (const page of [/variables\/.*MPI\.html$/, /classes\/.*Win\.html$/, /variables\/.*LOCKS\.html$/]) {
        assert.ok(files.some((f) => page.test(f)), `no page matching ${page} in ${out}: ${files.filter((f) => f.endsWith('.html')).slice(0, 40).join(', ')}`);
      }
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
