import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, tsmpiexec } from '../helpers.js';

/**
 * TSMPI_V8_FLAGS_AFTER_INIT (src/mpir/warmup.ts): Init's warm-up compiles the message path with
 * TSMPI_V8_FLAGS' deeper inlining; set to V8's own budget, the variable gives it back at Init's
 * end, so a program's loop compiled afterwards inlines less of the library (and compiles in a few
 * milliseconds instead of ~15, inside the program's timed part). Judged by what V8 says it
 * inlined (--trace-turbo-inlining): into a ping-pong loop of the program, at most half as many
 * functions as with the variable set to none.
 * Only where Init sets V8 flags at all: ranks with a core each.
 */
const skip = os.availableParallelism() < 2 ? 'the ranks need a core each for Init to set V8 flags' : false;

const PROGRAM = `import { MPI } from ${JSON.stringify(path.join(DIST, 'src', 'index.js'))};
MPI.Init();
const comm = MPI.COMM_WORLD;
const peer = 1 - comm.rank;
const out = new Uint8Array(8);
const into = new Uint8Array(8);
function userTimedLoop(skip, n) {
  for (let i = 0; i < skip; i++) {
    if (comm.rank === 0) { comm.Send(out, peer, 1); comm.Recv(into, peer, 1); } else { comm.Recv(into, peer, 1); comm.Send(out, peer, 1); }
  }
  const t0 = MPI.Wtime();
  for (let i = 0; i < n; i++) {
    if (comm.rank === 0) { comm.Send(out, peer, 1); comm.Recv(into, peer, 1); } else { comm.Recv(into, peer, 1); comm.Send(out, peer, 1); }
  }
  return MPI.Wtime() - t0;
}
userTimedLoop(2000, 2000);
MPI.Finalize();
`;

/** How many functions V8 inlined into the function named `name`, over both ranks and all its compiles. */
function inlinedInto(trace: string, name: string): number {
  return trace.split('\n').filter((l) => l.startsWith('Inlining ') && l.endsWith(`<SharedFunctionInfo ${name}>}`)).length;
}

describe('TSMPI_V8_FLAGS_AFTER_INIT', () => {
  it('set to V8\'s budget, gives it back to a program\'s loops after the warm-up compiled the message path; none by default', { skip, timeout: 90_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-v8-after-'));
    const script = path.join(dir, 'loop.mjs');
    fs.writeFileSync(script, PROGRAM);
    try {
      const traced = ['-x', 'TSMPI_NODE_FLAGS=--single-threaded --trace-turbo-inlining'];
      const after = await tsmpiexec(['-n', '2', ...traced, '-x', 'TSMPI_V8_FLAGS_AFTER_INIT=--max-inlined-bytecode-size-cumulative=920',
        'node', script], 40_000);
      assert.equal(after.status, 0, after.stderr);
      // The default: none.
      const kept = await tsmpiexec(['-n', '2', ...traced, 'node', script], 40_000);
      assert.equal(kept.status, 0, kept.stderr);
      const user = [inlinedInto(after.stdout, 'userTimedLoop'), inlinedInto(kept.stdout, 'userTimedLoop')];
      const warm = [inlinedInto(after.stdout, 'warmUpMessagePath'), inlinedInto(kept.stdout, 'warmUpMessagePath')];
      // Measured: 20 against 80 into the program's loop (its two loops compiled once each a rank).
      assert.ok(user[1]! > 0 && user[0]! * 2 <= user[1]!, `inlined into the program's loop: ${user[0]} with V8's budget back, ${user[1]} without`);
      // The warm-up's loop is compiled before the budget changes, in both runs (46-74 inlined; how
      // often V8 compiles it again during the warm-up varies from run to run, so only that it did).
      assert.ok(warm[0]! > 0 && warm[1]! > 0, `inlined into the warm-up's loop: ${warm[0]} and ${warm[1]}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
