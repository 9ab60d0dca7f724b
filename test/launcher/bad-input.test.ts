import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, tsmpiexec, tsmpiSegments } from '../helpers.js';

/**
 * Bad input under MPI.ERRORS_ARE_FATAL (issue 17): one bad call on one rank ends the whole job
 * with a non-zero status, and what the launcher prints names the rank and the call; the ranks
 * waiting for it are stopped and no segment of the job is left. (Under MPI.ERRORS_RETURN the
 * same calls raise MPI.Exception: test/mpi/errors/fuzz.)
 */
const PROGRAM = path.join(DIST, 'test', 'launcher', 'programs', 'bad-input.js');

const CASES: { name: string; ranks: number; rank: number; says: RegExp }[] = [
  { name: 'comm', ranks: 3, rank: 1, says: /rank 1: fatal error \(MPI\.ERRORS_ARE_FATAL\): MPI_COMM_WORLD\.Sendrecv: sendtag -5 is invalid/ },
  { name: 'status', ranks: 2, rank: 0, says: /rank 0: fatal error \(MPI\.ERRORS_ARE_FATAL\): MPI_COMM_WORLD\.Recv: status must be an MPI\.Status/ },
  { name: 'win', ranks: 2, rank: 1, says: /rank 1: fatal error \(MPI\.ERRORS_ARE_FATAL\): Win\.Put: .*99/ },
  // No object with an error handler: the MPI.Exception is uncaught, and the launcher names the rank it ended.
  { name: 'request', ranks: 4, rank: 2, says: /MPI\.Exception: Request\.Waitall: requests\[0\] must be an MPI\.Request, got number 42/ },
  { name: 'datatype', ranks: 2, rank: 1, says: /MPI\.Exception: Datatype\.Create_vector: count -1 is out of range/ },
];

describe('bad input under MPI.ERRORS_ARE_FATAL', () => {
  for (const c of CASES) {
    it(`${c.name}: rank ${c.rank} of ${c.ranks} ends the job, naming rank and call`, { timeout: 60_000 }, async () => {
      const r = await tsmpiexec(['-n', String(c.ranks), '--timeout', '40', process.execPath, PROGRAM, c.name, String(c.rank)], 50_000);
      const out = `${r.stdout}\n${r.stderr}`;
      assert.notEqual(r.status, 0, out);
      assert.match(out, c.says);
      assert.match(out, new RegExp(`rank ${c.rank}\\b(: fatal error| \\(pid \\d+\\) exited with status [1-9])`));
      assert.doesNotMatch(out, /the bad call returned|timed out/, out);
      const jobId = /^job (\S+)$/m.exec(r.stdout)?.[1];
      assert.ok(jobId !== undefined && jobId !== 'undefined', `no job id printed\n${out}`);
      assert.deepEqual(tsmpiSegments(jobId), [], 'segments of the job left in /dev/shm');
    });
  }
});
