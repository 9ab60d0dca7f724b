// The README's TSMPI_* table is generated from the declarations (src/*/config.ts) by
// scripts/update-readme-env.mjs; this checks that the committed table is the generated one and
// that the script still finds it (between the markers), so a new or changed variable cannot
// leave the README stale.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, run } from '../helpers.js';

const BEGIN = '<!-- BEGIN TSMPI_* TABLE';
const END = '<!-- END TSMPI_* TABLE -->';

describe('README configuration table', () => {
  it('is what scripts/env-table.mjs prints from the declarations', { timeout: 30_000 }, async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const begin = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    assert.ok(begin >= 0 && end > begin, `README.md must keep the markers ${BEGIN} ... ${END} around the table`);
    const committed = readme.slice(readme.indexOf('\n', begin) + 1, end).trim();
    const r = await run(process.execPath, [path.join(ROOT, 'scripts', 'env-table.mjs')], 25_000, { cwd: ROOT });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.includes('`TSMPI_EAGER_MAX`'), r.stdout);
    assert.equal(committed, r.stdout.trim(), 'README.md is stale: run `node scripts/update-readme-env.mjs` after the build');
  });

  it('is rewritten in place by scripts/update-readme-env.mjs, markers and the rest untouched', { timeout: 30_000 }, async () => {
    // The script edits ./README.md of its working directory: give it a copy with a stale table.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-readme-env-'));
    try {
      const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const stale = readme.replace(/^\| `TSMPI_EAGER_MAX` \|.*$/m, '| `TSMPI_EAGER_MAX` | stale | row |');
      assert.notEqual(stale, readme);
      fs.writeFileSync(path.join(dir, 'README.md'), stale);
      const r = await run(process.execPath, [path.join(ROOT, 'scripts', 'update-readme-env.mjs')], 25_000, { cwd: dir });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'), readme);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
