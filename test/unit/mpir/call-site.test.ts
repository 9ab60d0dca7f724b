import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DIST } from '../../helpers.js';
import { calledFunction, parseFrames, userFrame } from '../../../src/mpir/call-site.js';
import { contextName, describeOperation } from '../../../src/mpir/state-report.js';

const OWN = path.join(DIST, 'src');

describe('call sites in stack traces', () => {
  const stack = [
    'Error',
    `    at captureStack (${OWN}/mpir/call-site.js:20:12)`,
    `    at Progress.step (${pathToFileURL(`${OWN}/mpid/progress.js`).href}:40:7)`,
    `    at Intracomm.Recv (${OWN}/mpir/comm.js:251:10)`,
    '    at main (/home/u/app.js:12:8)',
    '    at node:internal/modules/run_main:1:1',
  ].join('\n');

  it('finds the user\'s frame and the tsmpi function it called (file: URLs as paths)', () => {
    const frames = parseFrames(stack);
    assert.deepEqual(frames.map((f) => f.own), [true, true, true, false, true]);
    assert.equal(frames[1]!.location, `${OWN}/mpid/progress.js:40:7`);
    assert.equal(userFrame(frames)!.location, '/home/u/app.js:12:8');
    assert.equal(calledFunction(frames), 'Intracomm.Recv');
  });

  it('names functions of the MPI object MPI.<name>, and takes async and anonymous frames', () => {
    const frames = parseFrames([
      `    at Object.Init (${OWN}/mpir/mpi.js:35:27)`,
      '    at async /home/u/app.mjs:3:1',
      '    at async main (/home/u/app.mjs:9:5)',
    ].join('\n'));
    assert.equal(calledFunction(frames), 'MPI.Init');
    assert.equal(userFrame(frames)!.location, '/home/u/app.mjs:3:1');
  });

  it('has no user frame when tsmpi runs on its own (an event-loop callback)', () => {
    const frames = parseFrames(`    at Agent.serve (${OWN}/mpir/rma/win.js:9:9)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`);
    assert.equal(userFrame(frames), null);
    assert.equal(calledFunction(frames), 'Agent.serve');
  });
});

describe('state report lines', () => {
  it('names communicators by context id, collectives apart', () => {
    assert.equal(contextName(0), 'MPI_COMM_WORLD');
    assert.equal(contextName(1), 'MPI_COMM_WORLD (collective)');
    assert.equal(contextName(2), 'MPI_COMM_SELF');
    assert.equal(contextName(8), 'comm#8');
    assert.equal(contextName(9), 'comm#8 (collective)');
  });

  it('describes receives with wildcards, sends and unexpected messages', () => {
    assert.equal(describeOperation({ kind: 'recv', ctx: 0, peer: -2, tag: -1, bytes: 8, state: 'posted' }),
      'recv from any source, any tag, 8-byte buffer, on MPI_COMM_WORLD: posted');
    assert.equal(describeOperation({ kind: 'send', ctx: 4, peer: 3, tag: 9, bytes: 1 << 20, state: 'rendezvous' }),
      'send to world rank 3, tag 9, 1048576 bytes, on comm#4: rendezvous');
    assert.equal(describeOperation({ kind: 'unexpected', ctx: 0, peer: 1, tag: 41, bytes: 16, state: 'arrived' }),
      'unexpected message from rank 1, tag 41, 16 bytes, on MPI_COMM_WORLD: arrived');
  });
});
