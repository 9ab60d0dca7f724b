// Prints the README's table of TSMPI_* variables from the declarations in each layer's
// config.ts (run after the build: node scripts/env-table.mjs).
import '../dist/src/config-all.js';
import '../dist/bin/launcher/node-flags.js';
import { declaredTunables } from '../dist/src/common/config.js';

console.log('| Variable | Layer | Default | Accepted | Meaning |');
console.log('|---|---|---|---|---|');
// A '|' inside a cell (the choices of a variable) would end the cell: Markdown wants it escaped.
const cell = (text) => String(text).replaceAll('|', '\\|');
for (const t of declaredTunables()) {
  console.log(`| \`${t.name}\` | ${cell(t.layer)} | ${cell(t.defaultText)} | ${cell(t.rangeText)} | ${cell(t.description)} |`);
}
