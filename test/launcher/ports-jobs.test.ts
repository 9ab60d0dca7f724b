import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ucxProbe } from '../../src/native/addon.js';
import { DIST, tsmpiexec, tsmpiSegments, type RunResult } from '../helpers.js';

/**
 * Two jobs, each started by its own tsmpiexec, meet through a port (MPI.Open_port, Accept,
 * Connect; programs/two-jobs.ts): messages, a broadcast, Merge and an Allreduce over both, then
 * Disconnect, or MPI.Finalize doing it; and a connector rank that dies while the acceptor
 * waits for it, which must end the acceptor's job with the lost process named, not hang it.
 * No job leaves a segment in /dev/shm.
 */
const PROGRAM = path.join(DIST, 'test', 'launcher', 'programs', 'two-jobs.js');
const skip = ucxProbe().available ? false : `UCX is not usable here: ${ucxProbe().reason}`;

function jobIdOf(r: RunResult): string {
  const id = /^job (\S+)$/m.exec(r.stdout)?.[1];
  assert.ok(id !== undefined && id !== 'undefined', `no job id printed\n${r.stdout}\n${r.stderr}`);
  return id;
}

async function twoJobs(mode: string, accepting: number, connecting: number): Promise<[RunResult, RunResult]> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-port-')), 'port');
  const run = (role: string, n: number) =>
    tsmpiexec(['-n', String(n), '--timeout', '50', process.execPath, PROGRAM, role, file, mode], 60_000);
  return Promise.all([run('accept', accepting), run('connect', connecting)]);
}

describe('two jobs through a port', { skip }, () => {
  for (const [mode, a, c] of [['disconnect', 2, 3], ['finalize', 3, 1], ['disconnect', 1, 1]] as const) {
    it(`${a} ranks accept, ${c} connect, then ${mode === 'disconnect' ? 'Disconnect' : 'MPI.Finalize alone'}`, { timeout: 70_000 }, async () => {
      const [acc, con] = await twoJobs(mode, a, c);
      for (const [r, role, n] of [[acc, 'accept', a], [con, 'connect', c]] as const) {
        assert.equal(r.status, 0, `${role}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
        for (let k = 0; k < n; k++) assert.match(r.stdout, new RegExp(`^${role} rank ${k}: ok$`, 'm'), r.stdout);
        assert.deepEqual(tsmpiSegments(jobIdOf(r)), [], `${role}: segments left in /dev/shm`);
      }
    });
  }

  it('a connector rank that dies ends the acceptor\'s job, naming the lost process', { timeout: 70_000 }, async () => {
    const [acc, con] = await twoJobs('crash', 2, 2);
    assert.match(con.stderr, /rank 1 \(pid \d+\) exited with status 7/, con.stderr);
    assert.notEqual(acc.status, 0, acc.stdout);
    assert.match(acc.stderr, /lost rank \d+ \(on [^(]+\(another job, \w+\)\)/, acc.stderr);
    for (const r of [acc, con]) assert.deepEqual(tsmpiSegments(jobIdOf(r)), [], 'segments left in /dev/shm');
  });
});
