import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, ROOT, run, which } from '../helpers.js';

/**
 * The same programs under other PMI-1 process managers: MPICH's hydra in both of its modes
 * (inherited PMI_FD, and PMI_PORT + PMI_ID) and Slurm's srun --mpi=pmi2 (PMI-1 on PMI_FD).
 * A test skips, saying why, when the process manager is not installed or not running.
 */
const HELLO = path.join(ROOT, 'examples', 'hello.js');
const INIT_BASIC = path.join(DIST, 'test', 'mpi', 'init', 'init-basic.js');
const node = process.execPath;
const hydra = which('mpiexec.hydra');
const srun = which('srun');

function assertHellos(stdout: string, n: number): void {
  for (let r = 0; r < n; r++) assert.match(stdout, new RegExp(`^Hello from rank ${r} of ${n} on `, 'm'), stdout);
}

describe('MPICH hydra', () => {
  for (const mode of [[], ['-pmi-port']]) {
    const label = mode.length ? 'PMI_PORT' : 'PMI_FD';
    it(`runs examples/hello.js and init-basic with 2 ranks (${label})`, { timeout: 90_000 }, async (t) => {
      if (!hydra) {
        t.skip('mpiexec.hydra is not installed (apt-get install mpich)');
        return;
      }
      const hello = await run(hydra, [...mode, '-n', '2', node, HELLO], 40_000);
      assert.equal(hello.status, 0, hello.stderr);
      assertHellos(hello.stdout, 2);
      const basic = await run(hydra, [...mode, '-n', '3', node, INIT_BASIC, '3'], 40_000);
      assert.equal(basic.status, 0, basic.stdout + basic.stderr);
      assert.match(basic.stdout, /^ No Errors$/m);
    });
  }
});

describe('Slurm srun --mpi=pmi2', () => {
  it('runs examples/hello.js with 2 ranks', { timeout: 120_000 }, async (t) => {
    if (!srun) {
      t.skip('srun is not installed (../shared/tools/slurm-local.sh up installs and starts Slurm)');
      return;
    }
    const info = await run('sinfo', ['-h', '-o', '%T'], 15_000).catch(() => null);
    if (!info || info.status !== 0 || !/idle|mix|alloc/.test(info.stdout)) {
      t.skip(`srun exists but no Slurm node is up (sinfo said ${JSON.stringify(info?.stdout.trim() ?? 'nothing')}); ` +
        'run ../shared/tools/slurm-local.sh up');
      return;
    }
    const r = await run(srun, ['--mpi=pmi2', '-n', '2', node, HELLO], 100_000);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assertHellos(r.stdout, 2);
  });
});
