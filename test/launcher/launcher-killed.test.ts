import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, processAlive, tsmpiexec, tsmpiSegments } from '../helpers.js';

const BLOCKED = path.join(DIST, 'test', 'launcher', 'programs', 'blocked-report.js');

/**
 * A launcher killed outright (SIGKILL: it can stop nothing) takes its ranks with it: a rank that
 * a process manager started asks the kernel to end it with its parent (src/boot, native
 * endWithParent), which reaches a rank asleep in a blocking call too. Ranks of 2 and 3, blocked
 * in Recv; after the kill no rank is left and no segment of the job remains.
 */
describe('a launcher killed with SIGKILL', () => {
  for (const n of [2, 3]) {
    it(`ends its ${n} blocked ranks, and leaves no segment of the job`, { timeout: 60_000 }, async () => {
      const ranks = new Map<number, number>();
      let jobId = '';
      let launcher: number | undefined;
      let lines = '';
      const done = tsmpiexec(['-n', String(n), 'node', BLOCKED], 50_000, {
        onSpawn: (child) => { launcher = child.pid; },
        onStdout: (text) => {
          lines += text;
          for (const m of lines.matchAll(/blocked rank (\d+) pid (\d+) job (\S+)/g)) {
            ranks.set(Number(m[1]), Number(m[2]));
            jobId = m[3]!;
          }
          if (ranks.size === n && launcher !== undefined && processAlive(launcher)) process.kill(launcher, 'SIGKILL');
        },
      });
      const r = await done;
      assert.equal(r.signal, 'SIGKILL', `the launcher ended by its kill (status ${r.status}, stderr ${r.stderr})`);
      assert.equal(ranks.size, n, lines);
      const deadline = Date.now() + 5000;
      while ([...ranks.values()].some(processAlive) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      for (const [rank, pid] of ranks) assert.equal(processAlive(pid), false, `rank ${rank} (pid ${pid}) outlived its launcher by 5 s`);
      assert.notEqual(jobId, '?');
      assert.deepEqual(tsmpiSegments(jobId), [], `segments of job ${jobId} left in /dev/shm`);
    });
  }
});
