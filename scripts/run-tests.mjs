// Runs every compiled test file (dist/test/**/*.test.js) with node's test runner.
// Files run one after another: multi-rank tests start more processes than this machine has
// cores, and running several such files at once only makes their time bounds flaky.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const only = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.js') && (only.length === 0 || only.some((o) => p.includes(o)))) files.push(p);
  }
})(path.join(root, 'dist', 'test'));
// An argument naming an area of test/mpi (`mpi/comm`) selects the programs of its testlist.
const areas = only.filter((o) => /^mpi\/[\w-]+$/.test(o) && fs.existsSync(path.join(root, 'test', o, 'testlist')));
const env = { ...process.env };
if (areas.length > 0) {
  const runner = path.join(root, 'dist', 'test', 'mpi', 'testlists.test.js');
  if (!files.includes(runner)) files.push(runner);
  env.TSMPI_TEST_AREAS = areas.map((a) => a.slice('mpi/'.length)).join(',');
}
files.sort();
if (files.length === 0) {
  console.error('run-tests: no test files under dist/test (did the TypeScript build run?)');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files], { stdio: 'inherit', cwd: root, env });
process.exit(r.status ?? 1);
