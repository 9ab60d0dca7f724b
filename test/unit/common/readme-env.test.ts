import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import '../../../src/config-all.js';
import { declaredTunables } from '../../../src/common/config.js';
import { ROOT } from '../../helpers.js';

it('README.md documents every declared TSMPI_* variable with its default (node scripts/update-readme-env.mjs)', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  for (const t of declaredTunables()) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${t.name}\` |`));
    assert.ok(row, `${t.name} is missing from the README table`);
    assert.ok(row.includes(`| ${t.defaultText} |`), `${t.name}: README row ${row} does not show the default ${t.defaultText}`);
  }
});
