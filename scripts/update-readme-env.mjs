// Replaces the TSMPI_* table in README.md with the one printed from the declarations
// (run after the build: node scripts/update-readme-env.mjs).
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

const table = execFileSync(process.execPath, [new URL('./env-table.mjs', import.meta.url).pathname], { encoding: 'utf8' }).trim();
const readme = fs.readFileSync('README.md', 'utf8');
const start = readme.indexOf('| Variable | Layer |');
const end = readme.indexOf('\n\n', start);
if (start < 0 || end < 0) throw new Error('README.md has no TSMPI_* table to replace');
fs.writeFileSync('README.md', readme.slice(0, start) + table + readme.slice(end));
