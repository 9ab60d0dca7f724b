// Prints the README's table of TSMPI_* variables from the declarations in each layer's
// config.ts (run after the build: node scripts/env-table.mjs).
import '../dist/src/config-all.js';
import { declaredTunables } from '../dist/src/common/config.js';

console.log('| Variable | Layer | Default | Accepted | Meaning |');
console.log('|---|---|---|---|---|');
for (const t of declaredTunables()) {
  console.log(`| \`${t.name}\` | ${t.layer} | ${t.defaultText} | ${t.rangeText} | ${t.description} |`);
}
