import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ucxProbe } from '../../src/native/addon.js';
import { DIST, ROOT, tsmpiexec } from '../helpers.js';

/**
 * Runs every program of every test/mpi/<area>/testlist through tsmpiexec. A line reads
 * `name nprocs [env=VAR=value]... [sci-nodes=K]... [arg=value]... [timeout=S] [requires=ucx]`; `name` is a
 * program of the area, or `<area>/<name>` of another one (the sci area reruns the pt2pt and
 * coll programs over ch_sci). The program passes when the job exits 0 and rank 0 printed
 * " No Errors"; `requires=ucx` skips it, saying why, where UCX cannot be loaded. TSMPI_TEST_AREAS=comm,group (set by
 * `node scripts/run-tests.mjs mpi/comm mpi/group`) runs only those areas.
 */
const selected = process.env.TSMPI_TEST_AREAS ? process.env.TSMPI_TEST_AREAS.split(',') : null;
const areas = fs.readdirSync(path.join(ROOT, 'test', 'mpi'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && fs.existsSync(path.join(ROOT, 'test', 'mpi', d.name, 'testlist')))
  .map((d) => d.name)
  .filter((name) => selected === null || selected.includes(name));

for (const area of areas) {
  const lines = fs.readFileSync(path.join(ROOT, 'test', 'mpi', area, 'testlist'), 'utf8').split('\n')
    .map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  describe(`mpi/${area}`, () => {
    for (const line of lines) {
      const [name, nprocs, ...extras] = line.split(/\s+/);
      const launcherArgs = ['-n', nprocs!];
      const programArgs: string[] = [];
      let timeout = 60;
      let skip: string | false = false;
      for (const extra of extras) {
        if (extra.startsWith('env=')) launcherArgs.push('-x', extra.slice(4));
        else if (extra.startsWith('sci-nodes=')) launcherArgs.push('--sci-nodes', extra.slice(10));
        else if (extra.startsWith('arg=')) programArgs.push(extra.slice(4));
        else if (extra.startsWith('timeout=')) timeout = Number(extra.slice(8));
        else if (extra === 'requires=ucx') skip = ucxProbe().available ? false : `UCX is not usable here: ${ucxProbe().reason}`;
        else throw new Error(`${area}/testlist: cannot read ${JSON.stringify(extra)} in ${JSON.stringify(line)}`);
      }
      it(line, { timeout: (timeout + 15) * 1000, skip }, async () => {
        const program = path.join(DIST, 'test', 'mpi', name!.includes('/') ? '' : area, `${name}.js`);
        const r = await tsmpiexec([...launcherArgs, '--timeout', String(timeout), process.execPath, program, ...programArgs],
          (timeout + 10) * 1000);
        assert.equal(r.status, 0, `exit status ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        assert.match(r.stdout, /^ No Errors$/m, `no " No Errors" line\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      });
    }
  });
}
