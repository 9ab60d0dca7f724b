import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ucxProbe } from '../../src/native/addon.js';
import { DIST, tsmpiexec, tsmpiSegments } from '../helpers.js';

/**
 * PMI spawn under tsmpiexec, driven by the PMI client directly (test/launcher/programs/
 * spawn-probe.ts): each parent rank spawns a job of 3 processes from 2 commands with args,
 * wdir, env and a preput; the children check what they were given, use their own key-value
 * space and the name service shared with the parents. Refusals, and a failing child ending
 * the whole run with no segment left.
 */
const PROBE = path.join(DIST, 'test', 'launcher', 'programs', 'spawn-probe.js');
const node = process.execPath;

/** The lines of one process (`[1:2] child 2: ...` -> those of tag `1:2`), without tag and role. */
function linesOf(stdout: string, tag: string): string[] {
  const prefix = `[${tag}] `;
  return stdout.split('\n').filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length).replace(/^\w+ \d+: /, ''));
}

describe('tsmpiexec: PMI spawn and the name service', () => {
  for (const [n, flags] of [[1, []], [2, []], [1, ['--pmi-port']]] as const) {
    it(`${['-n', n, ...flags].join(' ')}: each parent spawns 3 children of 2 commands; children see their own job`, { timeout: 90_000 }, async () => {
      const wdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-spawn-wdir-'));
      try {
        const r = await tsmpiexec(['-n', String(n), '--tag-output', ...flags, node, PROBE, 'parent', wdir], 80_000);
        assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        const jobs = new Set<string>();
        for (let p = 0; p < n; p++) {
          const parent = linesOf(r.stdout, String(p));
          assert.deepEqual(parent, [
            'errcodes 0,0,0', 'own parentValue undefined', `child published child-port-${p}`,
            `publish taken: PMI publish_name: cannot publish the service "child-svc-${p}": key_already_present (is it published already?)`,
            'after unpublish undefined',
            `unpublish again: PMI unpublish_name: cannot unpublish the service "child-svc-${p}": service_not_found`,
          ], r.stdout);
          // Parent p's spawn is one of jobs 1..n; which one depends on who asked first.
          const job = [...Array(n).keys()].map((k) => k + 1).find((j) => linesOf(r.stdout, `${j}:0`)[0]?.endsWith(`preput port-of-${p}`));
          assert.ok(job !== undefined, `no spawned job got parent ${p}'s preput:\n${r.stdout}`);
          for (let c = 0; c < 3; c++) {
            const lines = linesOf(r.stdout, `${job}:${c}`);
            const first = c < 2;
            assert.equal(lines.length, 5, r.stdout);
            assert.equal(lines[0], `size 3 appnum ${first ? 0 : 1} spawned 1 preput port-of-${p}`);
            assert.equal(lines[1], first ? `cwd ${wdir} CHILD_VAR first SECOND 2 args ["two words","k=v"]`
              : `cwd ${process.cwd()} CHILD_VAR second SECOND undefined args ["other"]`);
            // The universe is the first job's size (no --hosts).
            const jobId = new RegExp(`^job (\\w+) universe ${n} host `).exec(lines[2]!)?.[1];
            assert.ok(jobId !== undefined && jobId !== '-', lines[2]);
            jobs.add(jobId);
            assert.equal(lines[3], `peer ${(c + 1) % 3} has child-${p}-${(c + 1) % 3} parentkey undefined`);
            assert.equal(lines[4], `lookup parent parent-port-${p} lookup none undefined`);
          }
        }
        // Each spawned job has one TSMPI_JOBID of its own.
        assert.equal(jobs.size, n, [...jobs].join(' '));
        for (const id of jobs) assert.deepEqual(tsmpiSegments(id), []);
      } finally {
        fs.rmSync(wdir, { recursive: true, force: true });
      }
    });
  }

  it('refuses a command it cannot find, a host it does not have and a missing wdir, with reasons', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '1', node, PROBE, 'refused'], 50_000);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const line = (what: string) => lines.find((l) => l.startsWith(`refused 0: ${what}: `)) ?? `no ${what} line:\n${r.stdout}`;
    assert.equal(line('bad command'), 'refused 0: bad command: PMI spawn of "/nonexistent/prog" failed: command 0 ("/nonexistent/prog"): ' +
      'cannot find an executable "/nonexistent/prog" (no such executable file); give its full path, or the directory in info path');
    assert.match(line('bad host'), /failed: command 0 \(".*node"\): info host "no-such-host" is not one of this job's hosts \(.*localhost.*\); name one of them/);
    assert.match(line('bad wdir'), /failed: command 0 \(".*node"\): info wdir "\/nonexistent\/dir" is not a directory on this host$/);
    assert.match(line('preput with a space'), /the value for K \("a b"\) contains white space/);
  });

  it('a child that exits 1 ends the whole run, named, and no job leaves a segment', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '1', node, PROBE, 'failing'], 50_000);
    assert.equal(r.status, 1, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.match(r.stderr, /^tsmpiexec: rank 0 of spawned job 1 \(node spawn-probe\.js; pid \d+\) exited with status 1$/m);
    const parentJob = /^failing 0: job (\w+)$/m.exec(r.stdout)?.[1];
    const childJob = /^fail 0: job (\w+) host /m.exec(r.stdout)?.[1];
    assert.ok(parentJob !== undefined && childJob !== undefined && parentJob !== childJob, r.stdout);
    assert.ok(r.ms < 20_000, `took ${r.ms} ms`);
    // The probe made a file named like a segment of each job: the launcher swept both.
    assert.deepEqual(tsmpiSegments(parentJob), []);
    assert.deepEqual(tsmpiSegments(childJob), []);
  });

  it('a spawned child that aborts ends the whole run with its exit code, named', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '1', node, PROBE, 'aborting'], 50_000);
    assert.equal(r.status, 7, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.match(r.stderr, /^tsmpiexec: rank 0 of spawned job 1 \(node spawn-probe\.js\) called MPI_Abort with exit code 7: the child gives up$/m);
  });

  it('a spawned process spawns again: each job reads its own spawner\'s preput', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '1', '--tag-output', node, PROBE, 'nested'], 50_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.deepEqual(r.stdout.split('\n').filter((l) => l !== '').sort(),
      ['[0] nested 0: errcodes 0', '[1:0] mid 0: errcodes 0', '[1:0] mid 0: preput from-nested', '[2:0] leaf 0: preput from-mid']);
  });

  it('through the ProcessManager (what Comm.Spawn calls): env lines, preput, names', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '1', node, path.join(DIST, 'test', 'launcher', 'programs', 'spawn-pm.js'), 'parent'], 50_000);
    assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.deepEqual(r.stdout.split('\n').filter((l) => l !== '').sort(), [
      'child 0: lookup pm-port-1',
      'child 0: size 2 parentValue tag#0$port#42 A_VAR 1 B_VAR two cwd /',
      'child 1: lookup pm-port-1',
      'child 1: size 2 parentValue tag#0$port#42 A_VAR 1 B_VAR two cwd /',
      'parent 0: bad env: spawn: info env entry "NOT" is not NAME=value (entries are separated by newlines or spaces; values cannot hold spaces)',
      'parent 0: errcodes 0,0',
      'parent 0: parentValue undefined',
    ]);
  });
});

describe('Comm.Spawn: a side that dies ends the run', { skip: ucxProbe().available ? false : `UCX is not usable here: ${ucxProbe().reason}` }, () => {
  const CRASH = path.join(DIST, 'test', 'launcher', 'programs', 'spawn-crash.js');
  for (const [who, named] of [
    ['child', /rank 1 of spawned job 1 \(node spawn-crash\.js; pid \d+(?: on host [^)]+)?\) exited with status 3/],
    ['parent', /rank 0 \(pid \d+\) exited with status 4/],
  ] as const) {
    it(`a ${who} that exits while the other side waits for it: the run ends, naming it, and leaves no segment`, { timeout: 60_000 }, async () => {
      const r = await tsmpiexec(['-n', '1', '--timeout', '40', process.execPath, CRASH, who], 50_000);
      assert.notEqual(r.status, 0, r.stdout);
      assert.match(r.stderr, named, r.stderr);
      assert.doesNotMatch(r.stdout, /answered/, r.stdout);
      assert.doesNotMatch(r.stderr, /timed out/, r.stderr);
      const jobs = new Set([...r.stdout.matchAll(/^process \d+: job (\w+)$/gm)].map((m) => m[1]!));
      assert.equal(jobs.size, 2, r.stdout);
      for (const job of jobs) assert.deepEqual(tsmpiSegments(job), [], `segments of job ${job} left in /dev/shm`);
    });
  }
});
