import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, run } from '../helpers.js';

/**
 * The PMI client's spawn and name service against MPICH's hydra (Debian's mpiexec.hydra, PMI-1
 * on PMI_FD), with the program of spawn.test.ts: each parent rank spawns 2 + 1 children with a
 * preput, args and info wdir; hydra's own publish table (no hydra_nameserver) serves the names.
 * With -pmi-port the ranks and the children connect to hydra's PMI port with PMI_ID instead.
 * hydra knows the info keys wdir, path, host, hosts and hostfile; `env` it ignores, so the
 * children see no CHILD_VAR there.
 */
const HYDRA = '/usr/bin/mpiexec.hydra';
const skip = fs.existsSync(HYDRA) ? false : 'mpiexec.hydra is not installed (apt-get install mpich)';
const PROBE = path.join(DIST, 'test', 'launcher', 'programs', 'spawn-probe.js');
const TAG = /^(parent|child) (\d+): (.*)$/;

describe('PMI spawn and the name service under hydra', { skip }, () => {
  for (const [n, flags] of [[1, []], [2, []], [1, ['-pmi-port']]] as const) {
    it(`${['-n', n, ...flags].join(' ')}: each parent spawns 3 children of 2 commands, which read the preput and use their own space`, { timeout: 90_000 }, async () => {
      const wdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-spawn-hydra-'));
      try {
        // The parents spawn in turn: hydra gathers multi-command spawns in one state per server (docs/spawn.md).
        const env: NodeJS.ProcessEnv = { ...process.env, SPAWN_PROBE_SERIAL: '1' };
        for (const k of ['PMI_FD', 'PMI_PORT', 'PMI_ID', 'PMI_RANK', 'PMI_SIZE', 'TSMPI_JOBID']) delete env[k];
        const r = await run('timeout', ['-k', '5', '70', HYDRA, ...flags, '-n', String(n), process.execPath, PROBE, 'parent', wdir], 80_000, { env });
        assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        const lines = r.stdout.split('\n').filter((l) => TAG.test(l));
        for (let p = 0; p < n; p++) {
          const parent = lines.filter((l) => l.startsWith(`parent ${p}: `)).map((l) => l.slice(`parent ${p}: `.length));
          assert.deepEqual(parent, [
            'errcodes 0,0,0', 'own parentValue undefined', `child published child-port-${p}`,
            `publish taken: PMI publish_name: cannot publish the service "child-svc-${p}": key_already_present (is it published already?)`,
            'after unpublish undefined',
            `unpublish again: PMI unpublish_name: cannot unpublish the service "child-svc-${p}": service_not_found`,
          ], r.stdout);
        }
        // Children of both parents print under the same roles; each child line names its parent's values.
        for (let c = 0; c < 3; c++) {
          const mine = lines.filter((l) => l.startsWith(`child ${c}: `)).map((l) => l.slice(`child ${c}: `.length));
          assert.equal(mine.length, 5 * n, r.stdout);
          const first = c < 2;
          for (let p = 0; p < n; p++) {
            assert.ok(mine.includes(`size 3 appnum ${first ? 0 : 1} spawned 1 preput port-of-${p}`), `child ${c} of parent ${p}:\n${r.stdout}`);
            assert.ok(mine.includes(`peer ${(c + 1) % 3} has child-${p}-${(c + 1) % 3} parentkey undefined`), r.stdout);
            assert.ok(mine.includes(`lookup parent parent-port-${p} lookup none undefined`), r.stdout);
          }
          const cwd = first ? `cwd ${wdir} CHILD_VAR undefined SECOND undefined args ["two words","k=v"]`
            : `cwd ${process.cwd()} CHILD_VAR undefined SECOND undefined args ["other"]`;
          assert.equal(mine.filter((l) => l === cwd).length, n, r.stdout);
        }
      } finally {
        fs.rmSync(wdir, { recursive: true, force: true });
      }
    });
  }
});

describe('Comm.Spawn under hydra: a side that dies ends the run', { skip }, () => {
  const CRASH = path.join(DIST, 'test', 'launcher', 'programs', 'spawn-crash.js');
  for (const [who, status] of [['child', 3], ['parent', 4]] as const) {
    it(`a ${who} that exits with ${status} while the other side waits for it ends hydra's run, not hangs it`, { timeout: 60_000 }, async () => {
      const env = { ...process.env };
      for (const k of ['PMI_FD', 'PMI_PORT', 'PMI_ID', 'PMI_RANK', 'PMI_SIZE', 'TSMPI_JOBID']) delete env[k];
      const r = await run('timeout', ['-k', '5', '40', HYDRA, '-n', '1', process.execPath, CRASH, who], 50_000, { env });
      assert.notEqual(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.notEqual(r.status, 124, `hydra's run hung until the time limit\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      assert.doesNotMatch(r.stdout, /answered/, r.stdout);
    });
  }
});
